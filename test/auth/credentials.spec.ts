import { generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ManualClock } from '@app/runtime';
import { Permission } from '@app/access';
import { ApiKeyService } from '@app/api-keys';
import { RoleService, TenantRegistry, UserRegistry } from '@app/identity';
import { startTestApp, TestApp, TEST_JWT_KEY } from '../support/test-app';
import { TEST_PROVIDERS } from '../support/databases';
import { createUser, CreatedUser, landlordActor } from '../factories/identity.factory';
import { cookieValue, setCookiesOf, signIn, SignedIn } from '../support/auth';

const SESSION = '/api/Authentication/Session';
const MINUTE = 60_000;

type State = 'absent' | 'bad' | 'good';
const STATES: State[] = ['absent', 'bad', 'good'];

describe.each(TEST_PROVIDERS)('credentials on %s', (provider) => {
  let t: TestApp;
  let bearerUser: CreatedUser;
  let cookieUser: CreatedUser;
  let bearer: SignedIn;
  let cookie: SignedIn;
  let GOOD_KEY = '';

  beforeAll(async () => {
    t = await startTestApp(provider);
    bearerUser = await createUser(t.app, { name: `bearer-${provider}` });
    cookieUser = await createUser(t.app, { name: `cookie-${provider}` });
    bearer = await signIn(t.url, bearerUser.name, bearerUser.password);
    cookie = await signIn(t.url, cookieUser.name, cookieUser.password);
    // A real key of the Administrator, created as the user interface would.
    const landlord = await landlordActor(t.app);
    GOOD_KEY = (
      await t.app
        .get(ApiKeyService)
        .create(landlord, { userRegistryGuid: landlord.userGuid, name: 'precedence' })
    ).key;
  });
  afterAll(() => t.close());

  describe('precedence: x-api-key, then bearer, then cookie; the first present is the only one evaluated', () => {
    const cases = STATES.flatMap((k) => STATES.flatMap((b) => STATES.map((c) => [k, b, c] as const)));
    it.each(cases)('api key %s, bearer %s, cookie %s', async (k, b, c) => {
      const r = request(t.url).get(SESSION);
      if (k !== 'absent') r.set('X-Api-Key', k === 'good' ? GOOD_KEY : 'bad-key');
      if (b !== 'absent')
        r.set('Authorization', `Bearer ${b === 'good' ? bearer.token : `${bearer.token}x`}`);
      if (c !== 'absent') r.set('Cookie', c === 'good' ? cookie.cookie : 'authentication-jwt=garbage');
      const res = await r;
      const decisive = k !== 'absent' ? ['api-key', k] : b !== 'absent' ? ['bearer', b] : ['cookie', c];
      if (decisive[1] === 'good') {
        expect(res.status).toBe(200);
        expect(res.body.credential).toBe(decisive[0]);
        const expectedUser = { 'api-key': 'Administrator', bearer: bearerUser.name, cookie: cookieUser.name };
        expect(res.body.userName).toBe(expectedUser[decisive[0] as keyof typeof expectedUser]);
      } else {
        expect(res.status).toBe(401);
        expect(res.body).toMatchObject({ status: 401, type: 'urn:problem-type:authentication-required' });
        if (decisive[0] === 'api-key') expect(res.body.reason).toBe('Key Not Found');
        // The same challenge whichever carrier failed: it tells nothing the body does not.
        expect(res.headers['www-authenticate']).toBe('Bearer realm="decisioning-operations-service"');
      }
    });

    it('treats header names and the Bearer scheme case-insensitively; another scheme is not a carrier', async () => {
      await request(t.url).get(SESSION).set('x-API-key', GOOD_KEY).expect(200);
      await request(t.url).get(SESSION).set('authorization', `bearer ${bearer.token}`).expect(200);
      await request(t.url).get(SESSION).set('authorization', `BEARER ${bearer.token}`).expect(200);
      // Basic (a reverse proxy's) or Negotiate does not hide the cookie …
      for (const other of ['Basic dXNlcjpwYXNz', 'Negotiate YIIB', 'Bearerx abc', 'Token abc']) {
        const res = await request(t.url)
          .get(SESSION)
          .set('Authorization', other)
          .set('Cookie', cookie.cookie);
        expect({ other, status: res.status, user: res.body.userName }).toEqual({
          other,
          status: 200,
          user: cookieUser.name,
        });
        await request(t.url).get(SESSION).set('Authorization', other).expect(401);
      }
      // … while a Bearer header with a malformed token is the bearer carrier, and refused.
      for (const malformed of ['Bearer', 'Bearer ', 'bearer a b', 'Bearer ***'])
        await request(t.url)
          .get(SESSION)
          .set('Authorization', malformed)
          .set('Cookie', cookie.cookie)
          .expect(401);
      await request(t.url)
        .get(SESSION)
        .set('x-api-key', '')
        .set('Authorization', `Bearer ${bearer.token}`)
        .expect(401);
    });
  });

  describe('the session token', () => {
    const claims = () => {
      const now = Math.floor(Date.now() / 1000);
      return { sub: bearerUser.guid, sst: Date.now(), iat: now, exp: now + 600 };
    };
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const get = (token: string) => request(t.url).get(SESSION).set('Authorization', `Bearer ${token}`);

    it('accepts a well-formed HS256 token signed with JwtKey (the control case)', async () => {
      await get(jwt.sign(claims(), TEST_JWT_KEY, { algorithm: 'HS256' })).expect(200);
    });

    it('refuses alg none', async () => {
      await get(`${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims())}.`).expect(401);
      await get(jwt.sign(claims(), '', { algorithm: 'none' })).expect(401);
    });

    it('refuses a tampered payload', async () => {
      const [h, , s] = bearer.token.split('.');
      await get(`${h}.${b64({ ...claims(), sub: cookieUser.guid })}.${s}`).expect(401);
      const [h2, p2] = bearer.token.split('.');
      await get(`${h2}.${p2}.${'A'.repeat(43)}`).expect(401);
    });

    it('refuses other algorithms, RS/HS confusion and a wrong key', async () => {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      await get(jwt.sign(claims(), privateKey, { algorithm: 'RS256' })).expect(401);
      // HS256 keyed with a public key (the classic confusion) is just a wrong key here.
      const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
      await get(jwt.sign(claims(), pem, { algorithm: 'HS256' })).expect(401);
      await get(jwt.sign(claims(), TEST_JWT_KEY, { algorithm: 'HS512' })).expect(401);
      await get(jwt.sign(claims(), 'another-key-0123456789abcdefghijklmnop', { algorithm: 'HS256' })).expect(
        401,
      );
    });

    it('refuses a token without exp, sst or sub', async () => {
      const c = claims();
      for (const drop of ['exp', 'sst', 'sub'] as const) {
        const partial: Partial<typeof c> = { ...c };
        delete partial[drop];
        await get(jwt.sign(partial, TEST_JWT_KEY, { algorithm: 'HS256' })).expect(401);
      }
    });

    it('carries the user Guid and the session start, never permissions', () => {
      const decoded = jwt.decode(bearer.token) as Record<string, unknown>;
      expect(Object.keys(decoded).sort()).toEqual(['exp', 'iat', 'sst', 'sub']);
      expect(decoded.sub).toBe(bearerUser.guid);
      expect(decoded.sst).toBe(Date.parse(bearer.body.sessionStartedAt));
      expect((decoded.exp as number) - (decoded.iat as number)).toBe(15 * 60);
    });
  });

  describe('state read from the database on every request', () => {
    const repo = () => t.app.get(DataSource).getRepository(UserRegistry);

    it('refuses a session that started before TokensValidFrom, bearer and cookie alike', async () => {
      const u = await createUser(t.app);
      const s = await signIn(t.url, u.name, u.password);
      await request(t.url).get(SESSION).set('Authorization', `Bearer ${s.token}`).expect(200);
      await repo().update(
        { Guid: u.guid },
        { TokensValidFrom: new Date(Date.parse(s.body.sessionStartedAt) + 1) },
      );
      await request(t.url).get(SESSION).set('Authorization', `Bearer ${s.token}`).expect(401);
      await request(t.url).get(SESSION).set('Cookie', s.cookie).expect(401);
      // A new session starts after the revocation instant (an Argon2 verification alone takes longer than 1 ms).
      const again = await signIn(t.url, u.name, u.password);
      await request(t.url).get(SESSION).set('Authorization', `Bearer ${again.token}`).expect(200);
    });

    it.each([
      ['inactive', { Active: false }],
      ['deleted', { DeletedDate: new Date() }],
    ])('refuses the token of a user who is %s', async (_label, change) => {
      const u = await createUser(t.app);
      const s = await signIn(t.url, u.name, u.password);
      await request(t.url).get(SESSION).set('Authorization', `Bearer ${s.token}`).expect(200);
      await repo().update({ Guid: u.guid }, change);
      await request(t.url).get(SESSION).set('Authorization', `Bearer ${s.token}`).expect(401);
    });

    it('keeps the session of a user whose password is locked (the lock stops new sign-ins only)', async () => {
      const u = await createUser(t.app);
      const s = await signIn(t.url, u.name, u.password);
      await repo().update({ Guid: u.guid }, { PasswordLocked: true, PasswordLockedDate: new Date() });
      await request(t.url).get(SESSION).set('Authorization', `Bearer ${s.token}`).expect(200);
      await request(t.url).get(SESSION).set('Cookie', s.cookie).expect(200);
    });

    it('takes permissions from the role in the database, not from the token', async () => {
      const u = await createUser(t.app, { permissions: [] });
      const s = await signIn(t.url, u.name, u.password);
      const res = await request(t.url)
        .get('/api/UserRegistry')
        .set('Authorization', `Bearer ${s.token}`)
        .expect(403);
      expect(res.body.detail).toMatch(/Read Write Security User/);
      await t.app
        .get(RoleService)
        .update(await landlordActor(t.app), u.roleGuid, { permissions: [Permission.ReadWriteSecurityUser] });
      await request(t.url).get('/api/UserRegistry').set('Authorization', `Bearer ${s.token}`).expect(200);
    });
  });

  it('GET Session describes the caller', async () => {
    const u = await createUser(t.app, { permissions: [Permission.ReadSecurityAudit, Permission.Invoke] });
    const s = await signIn(t.url, u.name, u.password);
    const res = await request(t.url).get(SESSION).set('Authorization', `Bearer ${s.token}`).expect(200);
    const tenant = await t.app
      .get(DataSource)
      .getRepository(TenantRegistry)
      .findOneByOrFail({ Guid: u.tenantGuid });
    expect(res.body).toEqual({
      userGuid: u.guid,
      userName: u.name,
      tenantGuid: u.tenantGuid,
      tenantName: tenant.Name,
      landlord: false,
      permissions: [Permission.ReadSecurityAudit, Permission.Invoke],
      permissionNames: ['Read Security Audit', 'Invoke'],
      credential: 'bearer',
      sessionStartedAt: s.body.sessionStartedAt,
      tokenExpiresAt: s.body.expiresAt,
      absoluteExpiresAt: new Date(Date.parse(s.body.sessionStartedAt) + 720 * MINUTE).toISOString(),
    });
  });

  it('serves the API explorer to authenticated callers only', async () => {
    await request(t.url).get('/swagger/json').expect(401);
    await request(t.url).get('/swagger/json').set('Authorization', 'Bearer nope').expect(401);
    const doc = await request(t.url)
      .get('/swagger/json')
      .set('Authorization', `Bearer ${bearer.token}`)
      .expect(200);
    expect(doc.body.paths['/api/Authentication/ByUserNamePassword']).toBeDefined();
    const html = await request(t.url).get('/swagger/index.html').set('Cookie', cookie.cookie).expect(200);
    expect(html.text).toMatch(/swagger/i);
  });

  it("a tenant administrator gets 404 for another tenant's user and 403 naming a missing permission", async () => {
    const admin = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
    const colleague = await createUser(t.app, { tenantGuid: admin.tenantGuid });
    const stranger = await createUser(t.app);
    const s = await signIn(t.url, admin.name, admin.password);
    const auth = { Authorization: `Bearer ${s.token}` };
    await request(t.url).get(`/api/UserRegistry/${colleague.guid}`).set(auth).expect(200);
    const missing = await request(t.url).get(`/api/UserRegistry/${stranger.guid}`).set(auth).expect(404);
    expect(missing.body).toMatchObject({ status: 404, type: 'urn:problem-type:not-found' });
    const forbidden = await request(t.url).get('/api/RoleRegistry').set(auth).expect(403);
    expect(forbidden.body).toMatchObject({
      status: 403,
      type: 'urn:problem-type:forbidden',
      detail: 'This endpoint needs the permission Read Write Security Role.',
    });
    await request(t.url).get('/api/TenantRegistry').set(auth).expect(403);
  });
});

describe.each(TEST_PROVIDERS)('session lifetime with a controllable clock on %s', (provider) => {
  let t: TestApp;
  let clock: ManualClock;
  let u: CreatedUser;
  beforeAll(async () => {
    clock = new ManualClock(Date.parse('2026-01-01T08:00:00.000Z'));
    // Absolute lifetime 60 minutes, so the test walks past it in a few steps.
    t = await startTestApp(provider, { SessionAbsoluteLifetimeIntervalValue: '60' }, { clock });
    u = await createUser(t.app);
  });
  afterAll(() => t.close());

  const bearerGet = (token: string) => request(t.url).get(SESSION).set('Authorization', `Bearer ${token}`);

  it('a token is valid for 15 minutes, with at most 30 seconds of tolerance', async () => {
    const s = await signIn(t.url, u.name, u.password);
    expect(Date.parse(s.body.expiresAt) - clock.now()).toBe(15 * MINUTE);
    clock.advance(15 * MINUTE + 20_000);
    await bearerGet(s.token).expect(200);
    clock.advance(15_000);
    await bearerGet(s.token).expect(401);
  });

  it('each cookie request gets a fresh 15-minute token with the original session start', async () => {
    const s = await signIn(t.url, u.name, u.password);
    const started = s.body.sessionStartedAt;
    clock.advance(10 * MINUTE);
    const res = await request(t.url).get(SESSION).set('Cookie', s.cookie).expect(200);
    const cookies = setCookiesOf(res);
    const fresh = cookieValue(cookies, 'authentication-jwt')!;
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(s.token);
    expect(cookieValue(cookies, 'authentication-expiry')).toBe(
      new Date(clock.now() + 15 * MINUTE).toISOString(),
    );
    expect(res.body.sessionStartedAt).toBe(started);
    expect(res.body.tokenExpiresAt).toBe(new Date(clock.now() + 15 * MINUTE).toISOString());
    expect((jwt.decode(fresh) as { sst: number }).sst).toBe(Date.parse(started));
    // Past the first token's expiry: the old one is refused, the refreshed one is not.
    clock.advance(10 * MINUTE);
    await bearerGet(s.token).expect(401);
    await request(t.url).get(SESSION).set('Cookie', `authentication-jwt=${fresh}`).expect(200);
  });

  it('never extends a session past its absolute lifetime, however often it is refreshed', async () => {
    const s = await signIn(t.url, u.name, u.password);
    const end = Date.parse(s.body.sessionStartedAt) + 60 * MINUTE;
    let token = s.token;
    for (let minute = 10; minute <= 50; minute += 10) {
      clock.advance(10 * MINUTE);
      const res = await request(t.url).get(SESSION).set('Cookie', `authentication-jwt=${token}`).expect(200);
      token = cookieValue(setCookiesOf(res), 'authentication-jwt')!;
      expect(res.body.absoluteExpiresAt).toBe(new Date(end).toISOString());
    }
    // Refreshed at minute 50: its expiry is capped at the absolute end (minute 60), not minute 65.
    expect((jwt.decode(token) as { exp: number }).exp * 1000).toBe(end);
    clock.advance(9 * MINUTE);
    await request(t.url).get(SESSION).set('Cookie', `authentication-jwt=${token}`).expect(200);
    clock.advance(2 * MINUTE);
    await request(t.url).get(SESSION).set('Cookie', `authentication-jwt=${token}`).expect(401);
    await bearerGet(token).expect(401);
  });
});
