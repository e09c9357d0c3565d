import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { Browser } from 'playwright-core';
import { Permission } from '@app/access';
import { UserService } from '@app/identity';
import { createUser, landlordActor } from '../factories/identity.factory';
import { loginRows } from '../support/auth';
import { launchChromium } from '../support/chromium';
import { TEST_PROVIDERS } from '../support/databases';
import { RedisServer, startRedisServer } from '../support/redis-server';
import { startTestApp, startTwoNodes, TestApp } from '../support/test-app';

/** No user-name oracle, per-address rate limits, no login CSRF. */

const wireHash = (t: TestApp, userName: string, ip?: string) => {
  const r = request(t.url).post('/api/Authentication/WirePasswordHash').send({ userName });
  return ip ? r.set('X-Forwarded-For', ip) : r;
};
const signInAttempt = (t: TestApp, body: object, ip?: string) => {
  const r = request(t.url).post('/api/Authentication/ByUserNamePassword').send(body);
  return ip ? r.set('X-Forwarded-For', ip) : r;
};

describe.each(TEST_PROVIDERS)('WirePasswordHash tells nothing about which names exist (%s)', (provider) => {
  it('with WirePasswordHashUnknownPercent=0 an unknown name answers like an ordinary user: false', async () => {
    const t = await startTestApp(provider, { WirePasswordHashUnknownPercent: '0' });
    try {
      const user = await createUser(t.app);
      expect((await wireHash(t, user.name).expect(200)).body).toEqual({ wirePasswordHash: false });
      for (const name of ['nobody-at-all', 'ghost', 'Administrator2'])
        expect((await wireHash(t, name).expect(200)).body).toEqual({ wirePasswordHash: false });
    } finally {
      await t.close();
    }
  });

  it('unknown names answer true at the set rate, each name always the same, on every node', async () => {
    const [a, b] = await startTwoNodes({ WirePasswordHashUnknownPercent: '30' });
    try {
      const names = Array.from({ length: 300 }, (_, i) => `unknown-${i}-${provider}`);
      const answers = await Promise.all(
        names.map(async (n) => (await wireHash(a, n)).body.wirePasswordHash as boolean),
      );
      const share = answers.filter(Boolean).length / names.length;
      // 300 draws at 0.3: the standard deviation is 0.026, so this is more than 4 of them either way.
      expect(share).toBeGreaterThan(0.19);
      expect(share).toBeLessThan(0.41);
      for (let i = 0; i < 40; i++) {
        expect((await wireHash(a, names[i])).body.wirePasswordHash).toBe(answers[i]);
        expect((await wireHash(b, names[i].toUpperCase())).body.wirePasswordHash).toBe(answers[i]);
      }
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('unset: unknown names answer true at the share of users who have WirePasswordHash', async () => {
    const t = await startTestApp(provider);
    try {
      const landlord = await landlordActor(t.app);
      // The Administrator and 4 users: 5 in all, of whom every one but the Administrator is flagged: 80 %.
      for (let i = 0; i < 4; i++) {
        const u = await createUser(t.app);
        await t.app.get(UserService).resetPassword(landlord, u.guid, {
          password: 'a'.repeat(64),
          passwordExpired: false,
          wirePasswordHash: true,
        });
      }
      const answers = await Promise.all(
        Array.from(
          { length: 200 },
          async (_, i) => (await wireHash(t, `nobody-${i}`)).body.wirePasswordHash as boolean,
        ),
      );
      const share = answers.filter(Boolean).length / answers.length;
      expect(share).toBeGreaterThan(0.68);
      expect(share).toBeLessThan(0.92);
    } finally {
      await t.close();
    }
  });
});

describe('per-address rate limits on the sign-in routes (one node)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite', { SignInRateLimitPerMinute: '5', TrustProxy: 'True' });
  });
  afterAll(() => t.close());

  it('the sixth sign-in request of a minute from one address is a 429 problem with Retry-After, and writes no row', async () => {
    const ip = '203.0.113.10';
    for (let i = 0; i < 5; i++)
      await signInAttempt(t, { userName: 'spray-target', password: 'x' }, ip).expect(401);
    const limited = await signInAttempt(t, { userName: 'spray-target', password: 'x' }, ip).expect(429);
    expect(limited.headers['content-type']).toContain('application/problem+json');
    expect(limited.body).toMatchObject({ status: 429, title: 'Too Many Requests' });
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(await loginRows(t.app, 'spray-target')).toHaveLength(5);
    // Passcode shares the bucket; another address has its own; WirePasswordHash its own bucket.
    await request(t.url)
      .post('/api/Authentication/Passcode')
      .set('X-Forwarded-For', ip)
      .send({ passcodeToken: 'x', passcode: '1' })
      .expect(429);
    await signInAttempt(t, { userName: 'spray-target', password: 'x' }, '203.0.113.11').expect(401);
    await wireHash(t, 'spray-target', ip).expect(200);
  });

  it('every answer of a sign-in route carries RateLimit-Policy and RateLimit (draft -10), the 429 included', async () => {
    const ip = '203.0.113.30';
    const seen: { status: number; policy: string; left: string }[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await signInAttempt(t, { userName: 'counted', password: 'x' }, ip);
      seen.push({ status: r.status, policy: r.headers['ratelimit-policy'], left: r.headers.ratelimit });
      expect(Object.keys(r.headers).filter((h) => h.startsWith('x-ratelimit'))).toEqual([]);
    }
    expect(seen.map((s) => s.status)).toEqual([401, 401, 401, 401, 401, 429]);
    for (const s of seen) expect(s.policy).toBe('"sign-in";q=5;w=60');
    const remaining = seen.map((s) => /^"sign-in";r=(\d+);t=(\d+)$/.exec(s.left));
    expect(remaining.map((m) => Number(m?.[1]))).toEqual([4, 3, 2, 1, 0, 0]);
    for (const m of remaining) expect(Number(m?.[2])).toBeLessThanOrEqual(60);
    const wire = await wireHash(t, 'counted', ip).expect(200);
    expect(wire.headers['ratelimit-policy']).toBe('"wire-password-hash";q=5;w=60');
    expect(wire.headers.ratelimit).toMatch(/^"wire-password-hash";r=4;t=\d+$/);
  });

  it('WirePasswordHash: the sixth ask of a minute from one address is a 429', async () => {
    const ip = '203.0.113.20';
    for (let i = 0; i < 5; i++) await wireHash(t, `census-${i}`, ip).expect(200);
    await wireHash(t, 'census-5', ip).expect(429);
  });
});

describe('without TrustProxy, X-Forwarded-For does not make new addresses', () => {
  it('counts every request of the socket address together', async () => {
    const t = await startTestApp('sqlite', { SignInRateLimitPerMinute: '3' });
    try {
      for (let i = 0; i < 3; i++) await wireHash(t, 'x', `198.51.100.${i}`).expect(200);
      await wireHash(t, 'x', '198.51.100.99').expect(429);
    } finally {
      await t.close();
    }
  });
});

describe('rate limits are shared by the nodes through Redis, and survive a Redis outage per node', () => {
  let redis: RedisServer;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    redis = await startRedisServer();
    [a, b] = await startTwoNodes({ RedisConnectionString: redis.url, SignInRateLimitPerMinute: '4' });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await redis.stop();
  });

  it('two requests on each node use up the address; the fifth is refused on either', async () => {
    for (const node of [a, b, a, b]) await wireHash(node, 'shared').expect(200);
    await wireHash(b, 'shared').expect(429);
    await wireHash(a, 'shared').expect(429);
  });

  it('while Redis is stopped each node still limits on its own', async () => {
    await redis.pause();
    try {
      // A fresh window per node (the shared counter is unreachable).
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++)
        statuses.push((await signInAttempt(a, { userName: 'r', password: 'x' })).status);
      expect(statuses.slice(0, 4)).toEqual([401, 401, 401, 401]);
      expect(statuses.slice(4)).toEqual([429, 429]);
    } finally {
      await redis.start();
    }
  });
});

describe('login CSRF: the sign-in routes take JSON only and refuse cross-site requests', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(() => t.close());

  it.each([
    ['/api/Authentication/ByUserNamePassword'],
    ['/api/Authentication/Passcode'],
    ['/api/Authentication/WirePasswordHash'],
  ])('%s: a form body is a 415 problem', async (path) => {
    const res = await request(t.url)
      .post(path)
      .type('form')
      .send({ userName: 'a', password: 'b' })
      .expect(415);
    expect(res.headers['content-type']).toContain('application/problem+json');
  });

  it('a JSON sign-in proven cross-site (Sec-Fetch-Site or Origin) is a 403; same-origin and header-less clients pass', async () => {
    const user = await createUser(t.app);
    const body = { userName: user.name, password: user.password };
    await signInAttempt(t, body).set('Sec-Fetch-Site', 'cross-site').expect(403);
    await signInAttempt(t, body).set('Origin', 'https://attacker.example').expect(403);
    await signInAttempt(t, body).set('Origin', 'null').expect(403);
    await signInAttempt(t, body).set('Origin', t.url).set('Sec-Fetch-Site', 'same-origin').expect(200);
    await signInAttempt(t, body).expect(200);
  });

  it('ChangePassword takes JSON only, also with a bearer token', async () => {
    const user = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
    const token = (await signInAttempt(t, { userName: user.name, password: user.password }).expect(200)).body
      .token;
    await request(t.url)
      .post('/api/Authentication/ChangePassword')
      .set('Authorization', `Bearer ${token}`)
      .type('form')
      .send({
        password: user.password,
        newPassword: 'A-Changed-Password-1',
        repeatNewPassword: 'A-Changed-Password-1',
      })
      .expect(415);
  });
});

describe('login CSRF in Chromium: a cross-site form cannot sign the browser in', () => {
  let t: TestApp;
  let attacker: Server;
  let browser: Browser;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    const user = await createUser(t.app, { name: 'attacker-account' });
    // The attacker's page, on another site (localhost vs the service's 127.0.0.1), posts their own credentials.
    attacker = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(`<!doctype html><form method="post" action="${t.url}/api/Authentication/ByUserNamePassword">
        <input name="userName" value="${user.name}"><input name="password" value="${user.password}">
        </form><script>document.forms[0].submit()</script>`);
    });
    await new Promise<void>((r) => attacker.listen(0, '127.0.0.1', r));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => attacker.close(r));
    await t.close();
  });

  it('the auto-submitted form gets a 415 and the browser holds no session cookie', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const port = (attacker.address() as AddressInfo).port;
    const answer = page.waitForResponse((r) => r.url().endsWith('/api/Authentication/ByUserNamePassword'));
    await page.goto(`http://localhost:${port}/`);
    expect((await answer).status()).toBe(415);
    const cookies = await context.cookies(t.url);
    expect(cookies.find((c) => c.name === 'authentication-jwt')).toBeUndefined();
    expect(await loginRows(t.app, 'attacker-account')).toEqual([]);
    await context.close();
  });
});
