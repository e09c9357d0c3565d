import request from 'supertest';
import { DataSource } from 'typeorm';
import { AuthenticationType, FailureType } from '@app/audit';
import { PasswordHasher, UserRegistry, BOOTSTRAP_ADMINISTRATOR } from '@app/identity';
import { Permission } from '@app/access';
import { startTestApp, TestApp, TEST_ADMIN_PASSWORD } from '../support/test-app';
import { TEST_PROVIDERS } from '../support/databases';
import { createUser } from '../factories/identity.factory';
import { cookieValue, loginRows, setCookiesOf, signIn } from '../support/auth';
import { OAUTH_CALLBACK_PATH } from '@app/auth';
import { OidcBrowser } from '../support/oidc-browser';
import { OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, reserveOidcProvider } from '../support/oidc-provider';

const SIGN_IN = '/api/Authentication/ByUserNamePassword';
const GENERIC = { status: 401, type: 'urn:problem-type:sign-in-failed', title: 'Sign-in failed' };

describe.each(TEST_PROVIDERS)('username and password sign-in on %s', (provider) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(provider);
  });
  afterAll(() => t.close());

  const userRow = (guid: string) =>
    t.app.get(DataSource).getRepository(UserRegistry).findOneByOrFail({ Guid: guid });
  const post = (body: object, ua?: string) => {
    const r = request(t.url).post(SIGN_IN);
    if (ua !== undefined) r.set('user-agent', ua);
    return r.send(body);
  };

  it('signs in: token, both cookies, a UserLogin row, LastLoginDate set and the count reset', async () => {
    const u = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
    await post({ userName: u.name, password: 'wrong-password-1' }).expect(401);
    expect((await userRow(u.guid)).FailedPasswordCount).toBe(1);
    const res = await post({ userName: u.name, password: u.password }, 'agent/1.0').expect(200);
    expect(res.body).toEqual({
      token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      expiresAt: expect.any(String),
      sessionStartedAt: expect.any(String),
    });
    const lifetime = Date.parse(res.body.expiresAt) - Date.parse(res.body.sessionStartedAt);
    expect(lifetime).toBeGreaterThan(14 * 60_000);
    expect(lifetime).toBeLessThanOrEqual(15 * 60_000);
    const cookies = setCookiesOf(res);
    const jwtCookie = cookies.find((c) => c.startsWith('authentication-jwt='))!;
    expect(jwtCookie).toMatch(/HttpOnly/i);
    expect(jwtCookie).toMatch(/SameSite=Lax/i);
    expect(jwtCookie).not.toMatch(/Secure/i); // plain HTTP here
    expect(jwtCookie).not.toMatch(/Expires=|Max-Age=/i); // SessionCookie=True: browser-session cookie
    expect(cookieValue(cookies, 'authentication-jwt')).toBe(res.body.token);
    const expiry = cookies.find((c) => c.startsWith('authentication-expiry='))!;
    expect(expiry).not.toMatch(/HttpOnly/i);
    expect(cookieValue(cookies, 'authentication-expiry')).toBe(res.body.expiresAt);
    const row = await userRow(u.guid);
    expect(row.FailedPasswordCount).toBe(0);
    expect(row.LastLoginDate).not.toBeNull();
    const rows = await loginRows(t.app, u.name);
    expect(rows.map((r) => [r.Failed, r.FailureTypeId])).toEqual([
      [true, FailureType.WrongPassword],
      [false, null],
    ]);
    expect(rows[1]).toMatchObject({
      AuthenticationTypeId: AuthenticationType.UserNamePassword,
      TenantRegistryId: u.actor.tenantId,
      UserAgent: 'agent/1.0',
      RemoteIp: '127.0.0.1',
      LocalIp: '127.0.0.1',
      FailureMessage: null,
    });
  });

  it('writes FailureTypeId 1 (unknown user) with no tenant, verifying against a dummy hash', async () => {
    const spy = jest.spyOn(t.app.get(PasswordHasher), 'verifyDummy');
    const name = `nobody-${Date.now()}`;
    const res = await post({ userName: name, password: 'whatever-password' }).expect(401);
    expect(res.body).toMatchObject(GENERIC);
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockRestore();
    const rows = await loginRows(t.app, name);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      Failed: true,
      FailureTypeId: 1,
      TenantRegistryId: null,
      FailureMessage: null,
    });
  });

  it('writes FailureTypeId 2 for an inactive user, with the same body', async () => {
    const u = await createUser(t.app);
    await t.app.get(DataSource).getRepository(UserRegistry).update({ Guid: u.guid }, { Active: false });
    const res = await post({ userName: u.name, password: u.password }).expect(401);
    expect(res.body).toEqual({ ...GENERIC, detail: expect.any(String), instance: SIGN_IN });
    expect((await loginRows(t.app, u.name)).map((r) => r.FailureTypeId)).toEqual([2]);
  });

  it('writes FailureTypeId 6 when no password is supplied', async () => {
    const u = await createUser(t.app);
    expect((await post({ userName: u.name }).expect(401)).body).toMatchObject(GENERIC);
    expect((await post({ userName: u.name, password: '' }).expect(401)).body).toMatchObject(GENERIC);
    expect((await post({ userName: u.name, password: null }).expect(401)).body).toMatchObject(GENERIC);
    expect((await loginRows(t.app, u.name)).map((r) => r.FailureTypeId)).toEqual([6, 6, 6]);
  });

  it('writes FailureTypeId 4 with a distinct problem when the password is right but expired', async () => {
    const res = await post({ userName: BOOTSTRAP_ADMINISTRATOR, password: TEST_ADMIN_PASSWORD }).expect(401);
    expect(res.body).toMatchObject({
      status: 401,
      type: 'urn:problem-type:password-expired',
      passwordExpired: true,
    });
    expect(setCookiesOf(res)).toEqual([]);
    const rows = await loginRows(t.app, BOOTSTRAP_ADMINISTRATOR);
    expect(rows.at(-1)).toMatchObject({ Failed: true, FailureTypeId: 4 });
  });

  it('answers every other failure with one identical body', async () => {
    const u = await createUser(t.app);
    const bodies = [
      (await post({ userName: `nobody-${Date.now()}`, password: 'x-password-1' })).body,
      (await post({ userName: u.name, password: 'wrong-password-1' })).body,
      (await post({ userName: u.name })).body,
    ];
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
  });

  it('locks on the 4th consecutive wrong password; later attempts are FailureTypeId 3 even when right', async () => {
    const u = await createUser(t.app);
    for (let i = 0; i < 3; i++) await post({ userName: u.name, password: `wrong-${i}-password` }).expect(401);
    expect((await userRow(u.guid)).PasswordLocked).toBe(false);
    await post({ userName: u.name, password: 'wrong-3-password' }).expect(401);
    const row = await userRow(u.guid);
    expect(row.PasswordLocked).toBe(true);
    expect(row.PasswordLockedDate).not.toBeNull();
    const res = await post({ userName: u.name, password: u.password }).expect(401);
    expect(res.body).toMatchObject(GENERIC);
    expect((await loginRows(t.app, u.name)).map((r) => r.FailureTypeId)).toEqual([5, 5, 5, 5, 3]);
  });

  it('a right password resets the consecutive count', async () => {
    const u = await createUser(t.app);
    for (let i = 0; i < 3; i++) await post({ userName: u.name, password: `wrong-${i}-password` }).expect(401);
    await signIn(t.url, u.name, u.password);
    for (let i = 0; i < 3; i++) await post({ userName: u.name, password: `wrong-${i}-password` }).expect(401);
    expect((await userRow(u.guid)).PasswordLocked).toBe(false);
  });

  it('50 concurrent wrong attempts lock the account and none slips past the lock', async () => {
    const u = await createUser(t.app);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => post({ userName: u.name, password: `wrong-${i}-password` })),
    );
    expect(results.every((r) => r.status === 401)).toBe(true);
    const row = await userRow(u.guid);
    expect(row.PasswordLocked).toBe(true);
    // Exactly PasswordAttempts + 1 attempts were counted; every other one found the lock.
    expect(row.FailedPasswordCount).toBe(4);
    const types = (await loginRows(t.app, u.name)).map((r) => r.FailureTypeId);
    expect(types).toHaveLength(50);
    expect(types.filter((x) => x === 5)).toHaveLength(4);
    expect(types.filter((x) => x === 3)).toHaveLength(46);
    await post({ userName: u.name, password: u.password }).expect(401);
  });

  it('a right password racing wrong ones after the lock never signs in', async () => {
    const u = await createUser(t.app);
    for (let i = 0; i < 4; i++) await post({ userName: u.name, password: `wrong-${i}-password` }).expect(401);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        post({ userName: u.name, password: i % 2 ? u.password : 'wrong-x-password' }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(401));
  });

  it('refuses a password longer than 1024 characters before hashing', async () => {
    const u = await createUser(t.app);
    const hasher = t.app.get(PasswordHasher);
    const verify = jest.spyOn(hasher, 'verify');
    const dummy = jest.spyOn(hasher, 'verifyDummy');
    const res = await post({ userName: u.name, password: 'x'.repeat(1025) }).expect(401);
    expect(res.body).toMatchObject(GENERIC);
    expect(verify).not.toHaveBeenCalled();
    expect(dummy).not.toHaveBeenCalled();
    verify.mockRestore();
    dummy.mockRestore();
    expect((await loginRows(t.app, u.name)).map((r) => r.FailureTypeId)).toEqual([5]);
  });

  it('stores a hostile user name and user agent as bounded, inert text', async () => {
    const name = `evil\u001b[31m\r\n${'n'.repeat(400)}`;
    // Node refuses C0 controls in a header, but a tab and C1 controls (CSI \u009b) go through.
    const ua = `ua\t\u009b2J\u0085${'a'.repeat(900)}`;
    // No user name holds a control character: the name is refused, naming the field, and the
    // attempt is still written.
    const res = await post({ userName: name, password: 'whatever-password' }, ua).expect(400);
    expect(res.body.errors).toEqual([
      { field: 'userName', code: 'invalid_value', message: expect.any(String) as string },
    ]);
    const rows = await loginRows(t.app);
    const row = rows.at(-1)!;
    expect(row.CreatedUser).toHaveLength(256);
    // eslint-disable-next-line no-control-regex
    expect(row.CreatedUser).not.toMatch(/[\u0000-\u001f]/);
    expect(row.UserAgent).toHaveLength(512);
    // eslint-disable-next-line no-control-regex
    expect(row.UserAgent).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(row.UserAgent!.startsWith('ua\uFFFD')).toBe(true); // the tab
  });

  it('answers a malformed body with a 400 problem, never a 500, and still writes the attempt row', async () => {
    const before = (await loginRows(t.app)).length;
    const res = await post({ userName: 42, password: ['a'] }).expect(400);
    expect(res.body).toMatchObject({ status: 400, type: 'urn:problem-type:validation' });
    const u = await createUser(t.app);
    await post({ userName: u.name, password: 42 }).expect(400);
    const long = `long-${'x'.repeat(2000)}`;
    await post({ userName: long, password: 'some-password' }).expect(400);
    const rows = (await loginRows(t.app)).slice(before);
    expect(rows.map((r) => [r.Failed, r.FailureTypeId, r.AuthenticationTypeId])).toEqual([
      [true, FailureType.UnknownUser, AuthenticationType.UserNamePassword],
      [true, FailureType.NoPassword, AuthenticationType.UserNamePassword],
      [true, FailureType.UnknownUser, AuthenticationType.UserNamePassword],
    ]);
    expect(rows[0].CreatedUser).toBe('');
    expect(rows[1]).toMatchObject({ CreatedUser: u.name, TenantRegistryId: u.actor.tenantId });
    expect(rows[2].CreatedUser.length).toBeLessThanOrEqual(256);
  });
});

describe('X-Forwarded-For and the sign-in switches', () => {
  it('records X-Forwarded-For only with TrustProxy', async () => {
    for (const trust of [false, true]) {
      const t = await startTestApp('sqlite', { TrustProxy: trust ? 'True' : 'False' });
      try {
        const name = `fwd-${trust}`;
        await request(t.url)
          .post(SIGN_IN)
          .set('x-forwarded-for', '203.0.113.9')
          .send({ userName: name, password: 'p-password' })
          .expect(401);
        expect((await loginRows(t.app, name))[0].RemoteIp).toBe(trust ? '203.0.113.9' : '127.0.0.1');
      } finally {
        await t.close();
      }
    }
  });

  it('disables username/password sign-in and password change (404) under OAuth', async () => {
    const idp = await reserveOidcProvider();
    const t = await startTestApp('sqlite', {
      OAuthAuthentication: 'True',
      OAuthAuthority: idp.issuer,
      OAuthClientId: OIDC_CLIENT_ID,
      OAuthClientSecret: OIDC_CLIENT_SECRET,
    });
    try {
      await idp.start([`${t.url}${OAUTH_CALLBACK_PATH}`]);
      const u = await createUser(t.app);
      await request(t.url).post(SIGN_IN).send({ userName: u.name, password: u.password }).expect(404);
      await request(t.url)
        .post('/api/Authentication/WirePasswordHash')
        .send({ userName: u.name })
        .expect(404);
      await request(t.url).get('/api/Authentication/PasswordPublicKey').expect(404);
      // A session of this service issued by OpenID Connect still cannot change a password here.
      const browser = new OidcBrowser();
      await browser.signIn(`${t.url}/Account/Login`, u.name, OAUTH_CALLBACK_PATH);
      const token = browser.cookie(t.url, 'authentication-jwt');
      expect(token).toBeDefined();
      await request(t.url)
        .post('/api/Authentication/ChangePassword')
        .set('Authorization', `Bearer ${token}`)
        .send({
          password: u.password,
          newPassword: 'A-new-long-password-1',
          repeatNewPassword: 'A-new-long-password-1',
        })
        .expect(404);
      // Only the OpenID Connect sign-in wrote a row: the refused password routes wrote none.
      expect(await loginRows(t.app, u.name)).toEqual([
        expect.objectContaining({ AuthenticationTypeId: AuthenticationType.OAuth, Failed: false }),
      ]);
    } finally {
      await t.close();
      await idp.close();
    }
  });

  it('marks the cookies Secure when the request came over HTTPS (through a trusted proxy)', async () => {
    const t = await startTestApp('sqlite', { TrustProxy: 'True' });
    try {
      const u = await createUser(t.app);
      const res = await request(t.url)
        .post(SIGN_IN)
        .set('X-Forwarded-Proto', 'https')
        .send({ userName: u.name, password: u.password })
        .expect(200);
      const cookies = setCookiesOf(res);
      expect(cookies).toHaveLength(2);
      for (const c of cookies) expect(c).toMatch(/;\s*Secure/i);
    } finally {
      await t.close();
    }
  });

  it('sets an expiring cookie when SessionCookie is False', async () => {
    const t = await startTestApp('sqlite', { SessionCookie: 'False' });
    try {
      const u = await createUser(t.app);
      const s = await signIn(t.url, u.name, u.password);
      const line = s.setCookies.find((c) => c.startsWith('authentication-jwt='))!;
      const expires = /Expires=([^;]+)/i.exec(line)?.[1];
      expect(expires).toBeDefined();
      expect(Math.abs(Date.parse(expires!) - Date.parse(s.body.expiresAt))).toBeLessThan(1000);
    } finally {
      await t.close();
    }
  });
});
