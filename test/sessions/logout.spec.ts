import request from 'supertest';
import { connect } from 'node:net';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { Logger } from '@nestjs/common';
import { clientContextOf } from '@app/http-edge';
import { ManualClock } from '@app/runtime';
import { LogoutOutcome, LogoutReason, LogoutRecorder, UserLogout } from '@app/audit';
import { UserRegistry } from '@app/identity';
import { startTestApp, startTwoNodes, TestApp } from '../support/test-app';
import { createPostgresDatabase, TEST_PROVIDERS } from '../support/databases';
import { startPostgresServer, PostgresServer } from '../support/postgres-server';
import { startRedisServer, RedisServer } from '../support/redis-server';
import { createUser, CreatedUser } from '../factories/identity.factory';
import { logoutRows, setCookiesOf, signIn } from '../support/auth';

const LOGOUT = '/api/Authentication/Logout';
// eslint-disable-next-line no-control-regex -- the characters a stored user agent must never contain
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const SESSION = '/api/Authentication/Session';
const WARNING = 'x-service-logout-warning';

/** Both cookies deleted: each Set-Cookie line empties the value and expires it in the past, Path=/. */
function expectCookiesDeleted(res: request.Response): void {
  const lines = setCookiesOf(res);
  for (const name of ['authentication-jwt', 'authentication-expiry']) {
    const line = lines.find((l) => l.startsWith(`${name}=`));
    expect(line).toBeDefined();
    expect(line).toMatch(new RegExp(`^${name}=;`));
    expect(line).toMatch(/Path=\//);
    expect(line).toMatch(/Expires=Thu, 01 Jan 1970/);
    expect(line).toMatch(/SameSite=Lax/);
  }
  expect(lines.find((l) => l.startsWith('authentication-jwt='))).toMatch(/HttpOnly/);
  expect(lines.find((l) => l.startsWith('authentication-expiry='))).not.toMatch(/HttpOnly/);
}

/** Each test speaks from its own address (TrustProxy), so the once-a-minute rule of one never hides another's row. */
let addressCounter = 1;
const nextAddress = () => `198.51.100.${addressCounter++}`;

async function rowsFrom(t: TestApp, ip: string): Promise<UserLogout[]> {
  return t.app
    .get(DataSource)
    .getRepository(UserLogout)
    .find({ where: { RemoteIp: ip }, order: { Id: 'ASC' } });
}

describe.each(TEST_PROVIDERS)('POST /api/Authentication/Logout on %s', (provider) => {
  let t: TestApp;
  let clock: ManualClock;
  let u: CreatedUser;
  beforeAll(async () => {
    clock = new ManualClock(Date.now());
    t = await startTestApp(provider, { TrustProxy: 'True' }, { clock });
    u = await createUser(t.app);
  });
  afterAll(() => t.close());

  const logout = (ip: string) =>
    request(t.url).post(LOGOUT).set('X-Forwarded-For', ip).set('User-Agent', 'test-agent');

  it('valid cookie: 200, cookies deleted, every session of the user revoked, UserLogout ReasonId 1 OutcomeId 1', async () => {
    const s = await signIn(t.url, u.name, u.password);
    const other = await signIn(t.url, u.name, u.password); // another device of the same user
    const ip = nextAddress();
    const res = await logout(ip).set('Cookie', s.cookie).set('Sec-Fetch-Site', 'same-origin').send();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ loggedOut: true });
    expect(res.headers[WARNING]).toBeUndefined();
    expect(res.headers['cache-control']).toBe('no-store');
    expectCookiesDeleted(res);
    await request(t.url).get(SESSION).set('Cookie', s.cookie).expect(401);
    await request(t.url).get(SESSION).set('Authorization', `Bearer ${other.token}`).expect(401);
    const user = await t.app.get(DataSource).getRepository(UserRegistry).findOneByOrFail({ Guid: u.guid });
    expect(user.TokensValidFrom!.getTime()).toBeGreaterThan(Date.parse(s.body.sessionStartedAt));
    const rows = await rowsFrom(t, ip);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      UserName: u.name,
      TenantRegistryId: u.actor.tenantId,
      ReasonId: LogoutReason.UserLoggedOut,
      OutcomeId: LogoutOutcome.Revoked,
      RemoteIp: ip,
      LocalIp: '127.0.0.1',
      UserAgent: 'test-agent',
      RevokedByUser: null,
    });
    expect(rows[0].SessionStartedDate?.toISOString()).toBe(s.body.sessionStartedAt);
    expect(rows[0].CreatedDate.getTime()).toBe(clock.now());
  });

  it('valid bearer: the same, and the user can sign in again afterwards', async () => {
    clock.advance(5);
    const s = await signIn(t.url, u.name, u.password);
    const ip = nextAddress();
    const res = await logout(ip).set('Authorization', `Bearer ${s.token}`).send();
    expect(res.status).toBe(200);
    expectCookiesDeleted(res);
    await request(t.url).get(SESSION).set('Authorization', `Bearer ${s.token}`).expect(401);
    expect(await rowsFrom(t, ip)).toEqual([
      expect.objectContaining({ UserName: u.name, ReasonId: 1, OutcomeId: 1 }),
    ]);
    clock.advance(5);
    const again = await signIn(t.url, u.name, u.password);
    await request(t.url).get(SESSION).set('Authorization', `Bearer ${again.token}`).expect(200);
  });

  it('a session started in the same millisecond as the logout still ends (TokensValidFrom past its start)', async () => {
    const s = await signIn(t.url, u.name, u.password); // the manual clock does not move
    await logout(nextAddress()).set('Authorization', `Bearer ${s.token}`).send().expect(200);
    await request(t.url).get(SESSION).set('Authorization', `Bearer ${s.token}`).expect(401);
  });

  it.each([
    ['missing', () => ({})],
    ['malformed cookie', () => ({ Cookie: 'authentication-jwt=not.a.jwt' })],
    ['malformed bearer', () => ({ Authorization: 'Bearer ???' })],
    ['Basic authorization', () => ({ Authorization: 'Basic dXNlcjpwYXNz' })],
  ])('%s: 200, cookies deleted, OutcomeId 2 without a user', async (_label, headers) => {
    const ip = nextAddress();
    const res = await logout(ip).set(headers()).send();
    expect(res.status).toBe(200);
    expect(res.headers[WARNING]).toBeUndefined();
    expectCookiesDeleted(res);
    expect(await rowsFrom(t, ip)).toEqual([
      expect.objectContaining({ UserName: null, TenantRegistryId: null, ReasonId: 1, OutcomeId: 2 }),
    ]);
  });

  it('expired token: 200, cookies deleted, OutcomeId 2', async () => {
    clock.advance(5);
    const s = await signIn(t.url, u.name, u.password);
    clock.advance(16 * 60_000); // past 15 minutes and the 30 s tolerance
    const ip = nextAddress();
    const res = await logout(ip).set('Cookie', s.cookie).send();
    expect(res.status).toBe(200);
    expectCookiesDeleted(res);
    expect(await rowsFrom(t, ip)).toEqual([expect.objectContaining({ UserName: null, OutcomeId: 2 })]);
  });

  it('revoked token (already logged out): 200, cookies deleted, OutcomeId 2', async () => {
    clock.advance(5);
    const s = await signIn(t.url, u.name, u.password);
    await logout(nextAddress()).set('Cookie', s.cookie).send().expect(200);
    const ip = nextAddress();
    const res = await logout(ip).set('Cookie', s.cookie).send();
    expect(res.status).toBe(200);
    expectCookiesDeleted(res);
    expect(await rowsFrom(t, ip)).toEqual([
      expect.objectContaining({ OutcomeId: 2, Message: 'The session had already been revoked.' }),
    ]);
  });

  it('x-api-key present: never a browser session; OutcomeId 2 and the cookie session it carried stays valid', async () => {
    clock.advance(5);
    const s = await signIn(t.url, u.name, u.password);
    const ip = nextAddress();
    const res = await logout(ip).set('x-api-key', 'anything').set('Cookie', s.cookie).send();
    expect(res.status).toBe(200);
    expectCookiesDeleted(res);
    expect(await rowsFrom(t, ip)).toEqual([expect.objectContaining({ UserName: null, OutcomeId: 2 })]);
    await request(t.url).get(SESSION).set('Cookie', s.cookie).expect(200);
  });

  it('no antiforgery token and no origin rule for logout; the origin rule still guards other cookie POSTs', async () => {
    clock.advance(5);
    const s = await signIn(t.url, u.name, u.password);
    await request(t.url)
      .post('/api/Authentication/ChangePassword')
      .set('Cookie', s.cookie)
      .set('Sec-Fetch-Site', 'cross-site')
      .send({ password: u.password, newPassword: 'x', repeatNewPassword: 'x' })
      .expect(403);
    const res = await logout(nextAddress())
      .set('Cookie', s.cookie)
      .set('Sec-Fetch-Site', 'cross-site')
      .send();
    expect(res.status).toBe(200);
    await request(t.url).get(SESSION).set('Cookie', s.cookie).expect(401);
  });

  it('any body, even malformed JSON or a huge one, is ignored: still 200', async () => {
    for (const [type, body] of [
      ['application/json', '{not json'],
      ['application/json', `"${'x'.repeat(2 * 1024 * 1024)}"`],
      ['application/x-www-form-urlencoded', 'a=1'],
    ]) {
      const res = await logout(nextAddress()).set('Content-Type', type).send(body);
      expect(res.status).toBe(200);
      expectCookiesDeleted(res);
    }
  });

  it('callers with no session: at most one row a minute per address', async () => {
    const ip = nextAddress();
    const otherIp = nextAddress();
    for (let i = 0; i < 5; i++) await logout(ip).send().expect(200);
    await logout(otherIp).send().expect(200);
    expect(await rowsFrom(t, ip)).toHaveLength(1);
    expect(await rowsFrom(t, otherIp)).toHaveLength(1);
    clock.advance(59_999);
    await logout(ip).send().expect(200);
    expect(await rowsFrom(t, ip)).toHaveLength(1);
    clock.advance(1);
    await logout(ip).send().expect(200);
    expect(await rowsFrom(t, ip)).toHaveLength(2);
    // A caller with a session is always recorded, whatever the address did before.
    const s = await signIn(t.url, u.name, u.password);
    await logout(ip).set('Authorization', `Bearer ${s.token}`).send().expect(200);
    expect((await rowsFrom(t, ip)).map((r) => r.OutcomeId)).toEqual([2, 2, 1]);
  });

  it('a hostile user agent is stored bounded and inert; CR, LF and NUL never even reach the service', async () => {
    const ip = nextAddress();
    // Latin-1 bytes over the wire: C1 CSI (0x9B) starts an ANSI sequence in many terminals; 10 kB long.
    const hostile = `\u009b31mRED\u009b0m ${'A'.repeat(10_000)}`;
    const res = await request(t.url)
      .post(LOGOUT)
      .set('X-Forwarded-For', ip)
      .set('User-Agent', Buffer.from(hostile, 'latin1').toString('latin1'))
      .send();
    expect(res.status).toBe(200);
    const [row] = await rowsFrom(t, ip);
    expect(row.UserAgent).toHaveLength(512);
    expect(row.UserAgent).not.toMatch(CONTROL);
    expect(row.UserAgent!.startsWith('\ufffd31mRED\ufffd0m AAA')).toBe(true);

    // The whole hostile set straight through the one recorder (Node's HTTP parser refuses CR, LF, NUL, ESC).
    const recorder = t.app.get(LogoutRecorder);
    const fake = {
      headers: {
        'user-agent': `evil\r\nX-Injected: 1\u0000\u001b[31mred\u001b[0m\u001b]0;title\u0007${'B'.repeat(10_000)}`,
      },
      ip: `1.2.3.4\r\n${'9'.repeat(100)}`,
      socket: { localAddress: '127.0.0.1' },
    };
    // The recorder takes the plain ClientContext the edge builds from a request.
    await recorder.record(clientContextOf(fake as never), {
      userName: `name\u0000\r\n${'n'.repeat(1000)}`,
      tenantId: null,
      reason: LogoutReason.UserLoggedOut,
      outcome: LogoutOutcome.CookiesCleared,
      revokedByUser: `\u001b[2J${'r'.repeat(1000)}`,
      message: `m\n${'m'.repeat(5000)}`,
    });
    const stored = await t.app
      .get(DataSource)
      .getRepository(UserLogout)
      .findOneOrFail({ where: {}, order: { Id: 'DESC' } });
    for (const value of [
      stored.UserAgent,
      stored.RemoteIp,
      stored.UserName,
      stored.RevokedByUser,
      stored.Message,
    ]) {
      expect(value).not.toBeNull();
      expect(value!.length).toBeLessThanOrEqual(512);
      expect(value).not.toMatch(CONTROL);
    }
    expect(stored.UserAgent).toMatch(/^evil\ufffd\ufffdX-Injected: 1\ufffd\ufffd\[31mred/);
    expect(stored.UserAgent).toHaveLength(512);

    // Over a raw socket, CR/NUL in a header are refused by the parser before any code of ours runs.
    const raw = await rawRequest(
      t.url,
      `POST ${LOGOUT} HTTP/1.1\r\nHost: x\r\nUser-Agent: a\u0000b\r\nContent-Length: 0\r\n\r\n`,
    );
    expect(raw).toMatch(/^HTTP\/1\.1 400/);
  });
});

function rawRequest(url: string, text: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(Buffer.from(text, 'latin1')));
    let out = '';
    socket.on('data', (d: Buffer) => (out += d.toString('latin1')));
    socket.on('end', () => resolve(out));
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
  });
}

describe('two nodes with one Redis: the no-session window is shared', () => {
  let redis: RedisServer;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    redis = await startRedisServer();
    [a, b] = await startTwoNodes({ TrustProxy: 'True', RedisConnectionString: redis.url });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.stop();
  });

  const logout = (t: TestApp, ip: string) => request(t.url).post(LOGOUT).set('X-Forwarded-For', ip).send();

  it('an address recorded through A within the minute is not recorded again through B', async () => {
    const ip = nextAddress();
    await logout(a, ip).expect(200);
    await logout(b, ip).expect(200);
    await logout(b, ip).expect(200);
    await logout(a, ip).expect(200);
    const rows = await rowsFrom(a, ip);
    expect(rows.map((r) => [r.OutcomeId, r.ReasonId])).toEqual([[2, 1]]);
    // A different address is its own window, on either node.
    const other = nextAddress();
    await logout(b, other).expect(200);
    expect(await rowsFrom(a, other)).toHaveLength(1);
  });

  it('with Redis stopped each node still answers 200 at once and records the address itself (nothing lost)', async () => {
    await redis.pause();
    try {
      const ip = nextAddress();
      const started = Date.now();
      await logout(a, ip).expect(200);
      await logout(b, ip).expect(200);
      await logout(b, ip).expect(200);
      expect(Date.now() - started).toBeLessThan(3000);
      // Once per node: each node's own window still holds.
      expect((await rowsFrom(a, ip)).length).toBe(2);
    } finally {
      await redis.start();
    }
  });
});

describe('the revocation cannot be written in time (a row lock held by another transaction)', () => {
  let t: TestApp;
  let connectionString: string;
  beforeAll(async () => {
    connectionString = await createPostgresDatabase();
    t = await startTestApp('postgres', { LogoutRevocationTimeoutMilliseconds: '300' }, { connectionString });
  });
  afterAll(() => t.close());

  it('200, cookies deleted, the warning header, the reason at ERROR, and a UserLogout row OutcomeId 3', async () => {
    const u = await createUser(t.app);
    const s = await signIn(t.url, u.name, u.password);
    const blocker = new Client({ connectionString });
    await blocker.connect();
    const errors = jest.spyOn(Logger.prototype, 'error');
    try {
      await blocker.query('BEGIN');
      await blocker.query(`SELECT 1 FROM "UserRegistry" WHERE "Guid" = $1 FOR UPDATE`, [u.guid]);
      const started = Date.now();
      const res = await request(t.url).post(LOGOUT).set('Cookie', s.cookie).send();
      expect(Date.now() - started).toBeLessThan(5000);
      expect(res.status).toBe(200);
      expect(res.headers[WARNING]).toBe('revocation-failed');
      expectCookiesDeleted(res);
      expect(errors).toHaveBeenCalledWith(
        expect.objectContaining({ userGuid: u.guid, reason: expect.stringMatching(/longer than 300 ms/) }),
        'Logout could not revoke the session',
      );
      const rows = await logoutRows(t.app, u.name);
      expect(rows).toEqual([
        expect.objectContaining({
          ReasonId: 1,
          OutcomeId: LogoutOutcome.RevocationFailed,
          Message: 'Revocation failed: the database did not answer in time.',
        }),
      ]);
      expect(rows[0].SessionStartedDate?.toISOString()).toBe(s.body.sessionStartedAt);
    } finally {
      errors.mockRestore();
      await blocker.query('ROLLBACK');
      await blocker.end();
    }
  });
});

describe('the database is unreachable during logout (a real cut: the cluster is stopped)', () => {
  let pg: PostgresServer;
  let t: TestApp;
  beforeAll(async () => {
    pg = await startPostgresServer();
    t = await startTestApp('postgres', {}, { connectionString: pg.url });
  });
  afterAll(async () => {
    await t.close().catch(() => undefined);
    pg.stop();
  });

  it('still 200 with the cookies deleted and X-Service-Logout-Warning: revocation-failed', async () => {
    const u = await createUser(t.app);
    const cookie = await signIn(t.url, u.name, u.password);
    const bearer = await signIn(t.url, u.name, u.password);
    const errors = jest.spyOn(Logger.prototype, 'error');
    pg.pause();
    try {
      for (const headers of [{ Cookie: cookie.cookie }, { Authorization: `Bearer ${bearer.token}` }]) {
        const res = await request(t.url).post(LOGOUT).set(headers).send();
        expect(res.status).toBe(200);
        expect(res.headers[WARNING]).toBe('revocation-failed');
        expectCookiesDeleted(res);
        expect(JSON.stringify(res.body)).not.toMatch(/ECONN|postgres|UPDATE|SELECT/i);
      }
      expect(errors).toHaveBeenCalledWith(
        expect.objectContaining({ userGuid: u.guid }),
        'Logout could not revoke the session',
      );
      // the OutcomeId 3 row was attempted, and its failure logged too
      expect(errors).toHaveBeenCalledWith(
        expect.objectContaining({ outcome: LogoutOutcome.RevocationFailed }),
        'A UserLogout row could not be written',
      );
      // a caller without a session is logged out without any warning
      const res = await request(t.url).post(LOGOUT).send();
      expect(res.status).toBe(200);
      expect(res.headers[WARNING]).toBeUndefined();
    } finally {
      errors.mockRestore();
      pg.start();
    }
  });
});
