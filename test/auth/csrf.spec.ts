import request from 'supertest';
import { Permission } from '@app/access';
import { startTestApp, TestApp } from '../support/test-app';
import { TEST_PROVIDERS, type TestProvider } from '../support/databases';
import { createUser } from '../factories/identity.factory';
import { signIn, SignedIn } from '../support/auth';

/**
 * A cookie-authenticated POST that passes the guard reaches validation and answers 400 (empty body); one
 * refused as cross-site answers the 403 CSRF problem.
 */
const ROUTE = '/api/RoleRegistry';
const CSRF = { status: 403, type: 'urn:problem-type:csrf-origin' };

async function setUp(provider: TestProvider, env: Record<string, string> = {}) {
  const t = await startTestApp(provider, env);
  const u = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityRole] });
  const s = await signIn(t.url, u.name, u.password);
  return { t, s };
}

describe.each(TEST_PROVIDERS)('CSRF origin check on %s', (provider) => {
  let t: TestApp;
  let s: SignedIn;
  beforeAll(async () => {
    ({ t, s } = await setUp(provider));
  });
  afterAll(() => t.close());

  const post = (headers: Record<string, string>) =>
    request(t.url).post(ROUTE).set('Cookie', s.cookie).set(headers).send({});

  it.each([
    ['Sec-Fetch-Site same-origin', { 'Sec-Fetch-Site': 'same-origin' }, 400],
    ['Sec-Fetch-Site none', { 'Sec-Fetch-Site': 'none' }, 400],
    ['Sec-Fetch-Site same-site', { 'Sec-Fetch-Site': 'same-site' }, 403],
    ['Sec-Fetch-Site cross-site', { 'Sec-Fetch-Site': 'cross-site' }, 403],
    [
      'Sec-Fetch-Site cross-site even with a matching Origin',
      { 'Sec-Fetch-Site': 'cross-site', Origin: 'SELF' },
      403,
    ],
    ['own Origin', { Origin: 'SELF' }, 400],
    ['foreign Origin', { Origin: 'https://evil.example' }, 403],
    ['same host, other port', { Origin: 'http://127.0.0.1:1' }, 403],
    ['Origin: null', { Origin: 'null' }, 403],
    ['own Referer', { Referer: 'SELF/app/page?x=1' }, 400],
    ['foreign Referer', { Referer: 'https://evil.example/page' }, 403],
    ['malformed Referer', { Referer: 'not a url' }, 403],
    ['foreign Origin wins over an own Referer', { Origin: 'https://evil.example', Referer: 'SELF/' }, 403],
    ['none of them', {}, 403],
  ])('%s', async (_label, headers, status) => {
    const resolved = Object.fromEntries(
      Object.entries(headers).map(([k, v]) => [k, v.replace('SELF', t.url)]),
    );
    const res = await post(resolved);
    expect(res.status).toBe(status);
    if (status === 403) expect(res.body).toMatchObject(CSRF);
    else expect(res.body).toMatchObject({ status: 400, type: 'urn:problem-type:validation' });
  });

  it('exempts bearer requests and safe methods', async () => {
    await request(t.url)
      .post(ROUTE)
      .set('Authorization', `Bearer ${s.token}`)
      .set('Origin', 'https://evil.example')
      .send({})
      .expect(400);
    await request(t.url).get(ROUTE).set('Cookie', s.cookie).set('Sec-Fetch-Site', 'cross-site').expect(200);
  });

  it('applies to PUT and DELETE too (PATCH follows the same rule; no route here has it)', async () => {
    for (const method of ['put', 'delete'] as const) {
      const res = await request(t.url)
        [method](`${ROUTE}/00000000-0000-4000-8000-000000000000`)
        .set('Cookie', s.cookie);
      expect(res.body).toMatchObject(CSRF);
    }
  });
});

describe('CSRF settings', () => {
  it('CsrfOriginCheck=False turns the check off', async () => {
    const { t, s } = await setUp('sqlite', { CsrfOriginCheck: 'False' });
    try {
      await request(t.url)
        .post(ROUTE)
        .set('Cookie', s.cookie)
        .set('Origin', 'https://evil.example')
        .send({})
        .expect(400);
    } finally {
      await t.close();
    }
  });

  it('honours X-Forwarded-Host only with TrustProxy', async () => {
    for (const trust of [false, true]) {
      const { t, s } = await setUp('sqlite', { TrustProxy: trust ? 'True' : 'False' });
      try {
        const res = await request(t.url)
          .post(ROUTE)
          .set('Cookie', s.cookie)
          .set('X-Forwarded-Host', 'app.example')
          .set('X-Forwarded-Proto', 'https')
          .set('Origin', 'https://app.example')
          .send({});
        expect(res.status).toBe(trust ? 400 : 403);
      } finally {
        await t.close();
      }
    }
  });
});
