import { randomBytes } from 'node:crypto';
import { Logger } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AuthenticationType, FailureType } from '@app/audit';
import { UserRegistry } from '@app/identity';
import { MOCK_PASSCODE } from '@app/auth';
import { startTestApp, TestApp } from '../support/test-app';
import { createSqliteDirectory, TEST_PROVIDERS } from '../support/databases';
import { freePort } from '../support/free-port';
import { spawnServer, waitFor } from '../support/spawn-server';
import { createUser } from '../factories/identity.factory';
import { cookieValue, loginRows, setCookiesOf } from '../support/auth';
import { addPrincipal, kadmin, negotiateToken, TEST_REALM, TEST_SERVICE, testKdc } from '../support/kdc';

const BY_NEGOTIATE = '/api/Authentication/ByNegotiate';
const REFUSED = { status: 401, type: 'urn:problem-type:negotiate-required' };

/** A Kerberos principal (and its password) in the run's KDC; the name is unique per call. */
function principal(prefix: string): { name: string; password: string } {
  const name = `${prefix}-${randomBytes(4).toString('hex')}`;
  const password = `Krb-${randomBytes(9).toString('base64url')}`;
  addPrincipal(testKdc(), name, password);
  return { name, password };
}

describe.each(TEST_PROVIDERS)('Negotiate sign-in against a real KDC on %s', (provider) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(provider, {
      NegotiateAuthentication: 'True',
      NegotiateKeytab: testKdc().keytab,
      NegotiateServicePrincipal: TEST_SERVICE,
    });
  });
  afterAll(() => t.close());

  const negotiate = (token?: string) => {
    const r = request(t.url).get(BY_NEGOTIATE);
    return token === undefined ? r : r.set('authorization', `Negotiate ${token}`);
  };
  const userRow = (guid: string) =>
    t.app.get(DataSource).getRepository(UserRegistry).findOneByOrFail({ Guid: guid });
  const setUser = (guid: string, change: Partial<UserRegistry>) =>
    t.app.get(DataSource).getRepository(UserRegistry).update({ Guid: guid }, change);

  it('signs a KDC-proven user in: 200, the sign-in body, both cookies, a working session, a row with type 2', async () => {
    const p = principal('alice');
    // The registry name differs in case: the realm is stripped and the name matched case-insensitively.
    const u = await createUser(t.app, { name: p.name.toUpperCase() });
    const res = await negotiate(negotiateToken(testKdc(), p.name, p.password))
      .set('user-agent', 'browser/1.0')
      .expect(200);
    expect(res.body).toEqual({
      token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      expiresAt: expect.any(String),
      sessionStartedAt: expect.any(String),
    });
    // RFC 4559: the acceptor's token goes back for mutual authentication.
    expect(res.headers['www-authenticate']).toMatch(/^Negotiate [A-Za-z0-9+/]+=*$/);
    const cookies = setCookiesOf(res);
    expect(cookieValue(cookies, 'authentication-jwt')).toBe(res.body.token);
    expect(cookieValue(cookies, 'authentication-expiry')).toBe(res.body.expiresAt);
    const session = await request(t.url)
      .get('/api/Authentication/Session')
      .set('cookie', `authentication-jwt=${res.body.token}`)
      .expect(200);
    expect(session.body).toMatchObject({ userGuid: u.guid, userName: u.name, credential: 'cookie' });
    expect((await userRow(u.guid)).LastLoginDate).not.toBeNull();
    const rows = await loginRows(t.app, `${p.name}@${TEST_REALM}`);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      AuthenticationTypeId: AuthenticationType.Negotiate,
      Failed: false,
      FailureTypeId: null,
      FailureMessage: null,
      TenantRegistryId: u.actor.tenantId,
      UserAgent: 'browser/1.0',
      RemoteIp: '127.0.0.1',
    });
  });

  it('answers 401 with the Negotiate challenge and writes no row when no token is sent', async () => {
    const before = (await loginRows(t.app)).length;
    for (const r of [negotiate(), negotiate().set('authorization', 'Basic dXNlcjpwYXNz')]) {
      const res = await r.expect(401);
      expect(res.headers['www-authenticate']).toBe('Negotiate');
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject(REFUSED);
      expect(setCookiesOf(res).filter((c) => c.startsWith('authentication-jwt=') && !/=;/.test(c))).toEqual(
        [],
      );
    }
    expect(await loginRows(t.app)).toHaveLength(before);
  });

  it('refuses a principal with no registry user: 401, row FailureTypeId 1 naming the principal', async () => {
    const p = principal('stranger');
    const res = await negotiate(negotiateToken(testKdc(), p.name, p.password)).expect(401);
    expect(res.headers['www-authenticate']).toBe('Negotiate');
    expect(res.body).toMatchObject(REFUSED);
    expect(setCookiesOf(res).some((c) => c.startsWith('authentication-jwt=ey'))).toBe(false);
    const rows = await loginRows(t.app, `${p.name}@${TEST_REALM}`);
    expect(rows.map((r) => [r.AuthenticationTypeId, r.Failed, r.FailureTypeId, r.FailureMessage])).toEqual([
      [AuthenticationType.Negotiate, true, FailureType.UnknownUser, null],
    ]);
    expect(rows[0].TenantRegistryId).toBeNull();
  });

  it.each([
    ['not active', { Active: false }, FailureType.NotActive],
    ['password locked', { PasswordLocked: true }, FailureType.PasswordLocked],
  ] as const)('refuses a %s user: 401, a row with its FailureTypeId', async (_what, change, failureType) => {
    const p = principal('held');
    const u = await createUser(t.app, { name: p.name });
    await setUser(u.guid, change);
    const res = await negotiate(negotiateToken(testKdc(), p.name, p.password)).expect(401);
    expect(res.body).toMatchObject(REFUSED);
    expect((await userRow(u.guid)).LastLoginDate).toBeNull();
    const rows = await loginRows(t.app, `${p.name}@${TEST_REALM}`);
    expect(rows.map((r) => [r.Failed, r.FailureTypeId, r.FailureMessage, r.TenantRegistryId])).toEqual([
      [true, failureType, null, u.actor.tenantId],
    ]);
  });

  it('refuses garbage, a replayed token and a ticket for another service with 401, never a 500 or GSS text', async () => {
    const p = principal('replay');
    await createUser(t.app, { name: p.name });
    const token = negotiateToken(testKdc(), p.name, p.password);
    await negotiate(token).expect(200);
    // A ticket for a service principal the KDC knows but this service's keytab does not hold.
    kadmin(testKdc(), 'addprinc -randkey HTTP/elsewhere.test');
    const elsewhere = negotiateToken(testKdc(), p.name, p.password, 'HTTP@elsewhere.test');
    const before = (await loginRows(t.app, '')).length;
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const attempts = [token, elsewhere, 'YWJjZA==', Buffer.from(randomBytes(300)).toString('base64'), '!!!!'];
    try {
      for (const attempt of attempts) {
        const res = await negotiate(attempt).expect(401);
        expect(res.headers['www-authenticate']).toBe('Negotiate');
        expect(res.body).toEqual({
          ...REFUSED,
          title: 'Negotiate authentication required',
          detail: 'Negotiate (Kerberos) sign-in did not complete for this caller.',
          instance: BY_NEGOTIATE,
        });
      }
      // Each refused for its own reason, told to the operator only (WARN), with no token in it.
      const reasons = warn.mock.calls.map((c) => String(c[0]));
      expect(reasons).toHaveLength(attempts.length);
      expect(reasons[0]).toMatch(/^Negotiate handshake failed: [^:]*GSS failure.*replay/i);
      expect(reasons[1]).toMatch(/not found in keytab/i);
      expect(reasons[2]).toMatch(/Invalid token/i);
      expect(reasons[4]).toMatch(/no base64 token/);
      for (const r of reasons) expect(r).not.toContain(token.slice(0, 40));
    } finally {
      warn.mockRestore();
    }
    // Each is an attempt with no established identity: FailureTypeId 1, no user name.
    const rows = (await loginRows(t.app, '')).slice(before);
    expect(rows.map((r) => [r.AuthenticationTypeId, r.FailureTypeId, r.TenantRegistryId])).toEqual(
      attempts.map(() => [AuthenticationType.Negotiate, FailureType.UnknownUser, null]),
    );
  });

  it('keeps username/password sign-in and password change disabled (404)', async () => {
    await request(t.url)
      .post('/api/Authentication/ByUserNamePassword')
      .send({ userName: 'Administrator', password: 'whatever-password' })
      .expect(404);
    await request(t.url)
      .post('/api/Authentication/WirePasswordHash')
      .send({ userName: 'Administrator' })
      .expect(404);
  });
});

describe('Negotiate settings', () => {
  it('the real entry point takes the keytab from NegotiateKeytab alone (no KRB5_KTNAME in its environment)', async () => {
    const kdc = testKdc();
    addPrincipal(kdc, 'administrator', 'Admin-Krb-Password-1');
    const port = await freePort();
    const server = spawnServer({
      DataDirectory: createSqliteDirectory(),
      Port: String(port),
      CreateDemoModel: 'False',
      NegotiateAuthentication: 'True',
      NegotiateKeytab: kdc.keytab,
      NegotiateServicePrincipal: TEST_SERVICE,
      KRB5_CONFIG: kdc.krb5Conf,
    });
    try {
      await waitFor(() => server.output().includes('Service listening'), 30_000, 'the service to listen');
      const token = negotiateToken(kdc, 'administrator', 'Admin-Krb-Password-1');
      const res = await request(`http://127.0.0.1:${port}`)
        .get(BY_NEGOTIATE)
        .set('authorization', `Negotiate ${token}`);
      expect({ status: res.status, output: res.status === 200 ? '' : server.output() }).toEqual({
        status: 200,
        output: '',
      });
      const session = await request(`http://127.0.0.1:${port}`)
        .get('/api/Authentication/Session')
        .set('authorization', `Bearer ${res.body.token}`)
        .expect(200);
      expect(session.body.userName).toBe('Administrator');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it('the real entry point refuses NegotiateAuthentication=True without a keytab, naming NegotiateKeytab', async () => {
    const server = spawnServer({ NegotiateAuthentication: 'True', DataDirectory: createSqliteDirectory() });
    expect(await server.exited).toBe(1);
    expect(server.output()).toContain('NegotiateKeytab');
  });

  it('answers 404 while NegotiateAuthentication is False', async () => {
    const t = await startTestApp('sqlite');
    try {
      await request(t.url).get(BY_NEGOTIATE).set('authorization', 'Negotiate YWJjZA==').expect(404);
      expect(await loginRows(t.app)).toHaveLength(0);
    } finally {
      await t.close();
    }
  });

  it('with the second factor: 202 and a passcode token, nothing else; the passcode completes it once, row type 2', async () => {
    const t = await startTestApp('sqlite', {
      NegotiateAuthentication: 'True',
      NegotiateKeytab: testKdc().keytab,
      NegotiateServicePrincipal: TEST_SERVICE,
      EnableMultifactorAuthentication: 'True',
    });
    try {
      const p = principal('mfa');
      const u = await createUser(t.app, { name: p.name });
      const first = await request(t.url)
        .get(BY_NEGOTIATE)
        .set('authorization', `Negotiate ${negotiateToken(testKdc(), p.name, p.password)}`)
        .expect(202);
      expect(first.body).toEqual({
        secondFactorRequired: true,
        passcodeToken: expect.any(String),
        expiresAt: expect.any(String),
      });
      expect(setCookiesOf(first).some((c) => c.startsWith('authentication-jwt='))).toBe(false);
      const user = () => t.app.get(DataSource).getRepository(UserRegistry).findOneByOrFail({ Guid: u.guid });
      expect((await user()).LastLoginDate).toBeNull();
      // The 202 is recorded as a passcode requested (13), type 2.
      expect(
        (await loginRows(t.app, `${p.name}@${TEST_REALM}`)).map((r) => [
          r.AuthenticationTypeId,
          r.FailureTypeId,
        ]),
      ).toEqual([[AuthenticationType.Negotiate, FailureType.SecondFactorRequired]]);
      // The token is not a session.
      await request(t.url)
        .get('/api/Authentication/Session')
        .set('authorization', `Bearer ${first.body.passcodeToken}`)
        .expect(401);

      const wrong = await request(t.url)
        .post('/api/Authentication/Passcode')
        .send({ passcodeToken: first.body.passcodeToken, passcode: '999999' })
        .expect(401);
      expect(wrong.body.type).toBe('urn:problem-type:sign-in-failed');
      const done = await request(t.url)
        .post('/api/Authentication/Passcode')
        .send({ passcodeToken: first.body.passcodeToken, passcode: MOCK_PASSCODE })
        .expect(200);
      await request(t.url)
        .get('/api/Authentication/Session')
        .set('authorization', `Bearer ${done.body.token}`)
        .expect(200);
      // Once only.
      await request(t.url)
        .post('/api/Authentication/Passcode')
        .send({ passcodeToken: first.body.passcodeToken, passcode: MOCK_PASSCODE })
        .expect(401);
      const rows = await loginRows(t.app, `${p.name}@${TEST_REALM}`);
      expect(rows.map((r) => [r.AuthenticationTypeId, r.Failed, r.FailureTypeId])).toEqual([
        [AuthenticationType.Negotiate, true, FailureType.SecondFactorRequired],
        [AuthenticationType.Negotiate, true, FailureType.SecondFactorMismatch],
        [AuthenticationType.Negotiate, false, null],
        [AuthenticationType.Negotiate, true, FailureType.SecondFactorMismatch],
      ]);
      expect((await user()).LastLoginDate).not.toBeNull();
    } finally {
      await t.close();
    }
  });

  it('with NegotiateRealm, refuses a principal of another realm as an unknown user (FailureTypeId 1)', async () => {
    const t = await startTestApp('sqlite', {
      NegotiateAuthentication: 'True',
      NegotiateKeytab: testKdc().keytab,
      NegotiateRealm: 'OTHER.REALM',
    });
    try {
      const p = principal('realm');
      await createUser(t.app, { name: p.name });
      await request(t.url)
        .get(BY_NEGOTIATE)
        .set('authorization', `Negotiate ${negotiateToken(testKdc(), p.name, p.password)}`)
        .expect(401);
      const rows = await loginRows(t.app, `${p.name}@${TEST_REALM}`);
      expect(rows.map((r) => [r.Failed, r.FailureTypeId])).toEqual([[true, FailureType.UnknownUser]]);
    } finally {
      await t.close();
    }
  });
});
