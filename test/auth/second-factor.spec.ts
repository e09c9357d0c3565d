import request from 'supertest';
import { DataSource } from 'typeorm';
import { AuthenticationType, FailureType } from '@app/audit';
import { ManualClock } from '@app/runtime';
import { Permission } from '@app/access';
import { UserRegistry, UserService } from '@app/identity';
import { MOCK_PASSCODE, SessionTokens } from '@app/auth';
import { startTestApp, TestApp } from '../support/test-app';
import { TEST_PROVIDERS } from '../support/databases';
import { createUser, landlordActor } from '../factories/identity.factory';
import { cookieValue, loginRows, logoutRows, setCookiesOf } from '../support/auth';

const SIGN_IN = '/api/Authentication/ByUserNamePassword';
const PASSCODE = '/api/Authentication/Passcode';
const SESSION = '/api/Authentication/Session';
const GENERIC = { status: 401, type: 'urn:problem-type:sign-in-failed', title: 'Sign-in failed' };
const MFA = { EnableMultifactorAuthentication: 'True' };

/** Signs in with the password and expects the 202 of a pending second factor; returns the passcode token. */
async function passwordStep(url: string, body: object): Promise<string> {
  const res = await request(url).post(SIGN_IN).send(body);
  if (res.status !== 202) throw new Error(`sign-in answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.passcodeToken as string;
}

describe.each(TEST_PROVIDERS)('second factor against the bundled mock on %s', (provider) => {
  let t: TestApp;
  const clock = new ManualClock(Date.now());
  beforeAll(async () => {
    t = await startTestApp(provider, MFA, { clock });
  });
  afterAll(() => t.close());

  const userRow = (guid: string) =>
    t.app.get(DataSource).getRepository(UserRegistry).findOneByOrFail({ Guid: guid });

  it('a proven password answers 202 with a passcode token: no session, no success row (a passcode-requested row, 13), no LastLoginDate', async () => {
    const u = await createUser(t.app);
    await request(t.url).post(SIGN_IN).send({ userName: u.name, password: 'wrong-password-1' }).expect(401);
    const res = await request(t.url)
      .post(SIGN_IN)
      .send({ userName: u.name, password: u.password })
      .expect(202);
    expect(res.body).toEqual({
      secondFactorRequired: true,
      passcodeToken: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      expiresAt: new Date(Math.floor((clock.now() + 5 * 60_000) / 1000) * 1000).toISOString(),
    });
    expect(setCookiesOf(res).filter((c) => c.startsWith('authentication-'))).toEqual([]);
    const row = await userRow(u.guid);
    expect(row.LastLoginDate).toBeNull();
    expect(row.FailedPasswordCount).toBe(1); // only a completed sign-in resets it
    // The 202 is recorded as a passcode requested, so an abandoned second step shows.
    expect((await loginRows(t.app, u.name)).map((r) => [r.Failed, r.FailureTypeId])).toEqual([
      [true, FailureType.WrongPassword],
      [true, FailureType.SecondFactorRequired],
    ]);
  });

  it('the right passcode signs in like sign-in: token, both cookies, a working session, ONE success row after the 13', async () => {
    const u = await createUser(t.app);
    const passcodeToken = await passwordStep(t.url, { userName: u.name, password: u.password });
    const res = await request(t.url)
      .post(PASSCODE)
      .set('user-agent', 'mfa-agent/1.0')
      .send({ passcodeToken, passcode: MOCK_PASSCODE })
      .expect(200);
    expect(res.body).toEqual({
      token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      expiresAt: expect.any(String),
      sessionStartedAt: new Date(clock.now()).toISOString(),
    });
    const cookies = setCookiesOf(res);
    expect(cookieValue(cookies, 'authentication-jwt')).toBe(res.body.token);
    expect(cookieValue(cookies, 'authentication-expiry')).toBe(res.body.expiresAt);
    const bearer = await request(t.url)
      .get(SESSION)
      .set('authorization', `Bearer ${res.body.token}`)
      .expect(200);
    expect(bearer.body).toMatchObject({ userGuid: u.guid, credential: 'bearer' });
    await request(t.url).get(SESSION).set('cookie', `authentication-jwt=${res.body.token}`).expect(200);
    const rows = await loginRows(t.app, u.name);
    expect(rows.map((r) => [r.Failed, r.FailureTypeId])).toEqual([
      [true, FailureType.SecondFactorRequired],
      [false, null],
    ]);
    expect(rows[1]).toMatchObject({
      Failed: false,
      FailureTypeId: null,
      AuthenticationTypeId: AuthenticationType.UserNamePassword,
      UserAgent: 'mfa-agent/1.0',
    });
    const row = await userRow(u.guid);
    expect(row.LastLoginDate?.getTime()).toBe(clock.now());
    expect(row.FailedPasswordCount).toBe(0);
  });

  it('the UserLogin grid counts refusals apart from the steps to continue: refused=true is the wrong password alone', async () => {
    const landlord = await landlordActor(t.app);
    const auditor = await createUser(t.app, {
      tenantGuid: landlord.tenantGuid,
      permissions: [Permission.ReadSecurityAudit],
    });
    const auditorStep = await passwordStep(t.url, { userName: auditor.name, password: auditor.password });
    const auditorToken = (
      await request(t.url)
        .post(PASSCODE)
        .send({ passcodeToken: auditorStep, passcode: MOCK_PASSCODE })
        .expect(200)
    ).body.token as string;
    const u = await createUser(t.app);
    await request(t.url).post(SIGN_IN).send({ userName: u.name, password: 'wrong-password-1' }).expect(401);
    const passcodeToken = await passwordStep(t.url, { userName: u.name, password: u.password });
    await request(t.url).post(PASSCODE).send({ passcodeToken, passcode: MOCK_PASSCODE }).expect(200);

    const grid = async (filter: Record<string, string>) => {
      const res = await request(t.url)
        .get('/api/UserLogin')
        .query({ search: u.name, from: '2000-01-01T00:00:00Z', to: '2999-01-01T00:00:00Z', ...filter })
        .set('Authorization', `Bearer ${auditorToken}`)
        .expect(200);
      const body = res.body as { total: number; rows: { failed: boolean; failureTypeId: number | null }[] };
      return [body.total, body.rows.map((r) => [r.failed, r.failureTypeId])];
    };
    // newest first: the success, the passcode requested (13), the wrong password (5)
    expect(await grid({})).toEqual([
      3,
      [
        [false, null],
        [true, FailureType.SecondFactorRequired],
        [true, FailureType.WrongPassword],
      ],
    ]);
    expect(await grid({ refused: 'true' })).toEqual([1, [[true, FailureType.WrongPassword]]]);
    expect(await grid({ failed: 'true' })).toEqual([
      2,
      [
        [true, FailureType.SecondFactorRequired],
        [true, FailureType.WrongPassword],
      ],
    ]);
    expect(await grid({ refused: 'false' })).toEqual([
      2,
      [
        [false, null],
        [true, FailureType.SecondFactorRequired],
      ],
    ]);
    // a value that is neither true nor false is the caller's mistake: a problem naming the parameter
    const bad = await request(t.url)
      .get('/api/UserLogin')
      .query({ refused: 'yes' })
      .set('Authorization', `Bearer ${auditorToken}`)
      .expect(400);
    expect(bad.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'refused' })]);
  });

  it('a passcode token completes at most once, and any completed sign-in voids the outstanding ones', async () => {
    const u = await createUser(t.app);
    const a = await passwordStep(t.url, { userName: u.name, password: u.password });
    const b = await passwordStep(t.url, { userName: u.name, password: u.password });
    clock.advance(1_000);
    await request(t.url).post(PASSCODE).send({ passcodeToken: b, passcode: MOCK_PASSCODE }).expect(200);
    for (const used of [b, a]) {
      const res = await request(t.url).post(PASSCODE).send({ passcodeToken: used, passcode: MOCK_PASSCODE });
      expect(res.body).toMatchObject(GENERIC);
      expect(setCookiesOf(res)).toEqual([]);
    }
    expect((await loginRows(t.app, u.name)).map((r) => [r.Failed, r.FailureTypeId])).toEqual([
      [true, FailureType.SecondFactorRequired],
      [true, FailureType.SecondFactorRequired],
      [false, null],
      [true, FailureType.SecondFactorMismatch],
      [true, FailureType.SecondFactorMismatch],
    ]);
    expect((await userRow(u.guid)).FailedPasswordCount).toBe(0); // a spent token is not a guess
  });

  it('the same passcode token sent five times at once signs in exactly once (the completion is atomic)', async () => {
    const u = await createUser(t.app);
    const token = await passwordStep(t.url, { userName: u.name, password: u.password });
    clock.advance(1_000);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        request(t.url).post(PASSCODE).send({ passcodeToken: token, passcode: MOCK_PASSCODE }),
      ),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, 401, 401, 401, 401]);
    expect((await loginRows(t.app, u.name)).filter((r) => !r.Failed)).toHaveLength(1);
  });

  it('refuses a passcode token as a session, as bearer and as cookie', async () => {
    const u = await createUser(t.app);
    const passcodeToken = await passwordStep(t.url, { userName: u.name, password: u.password });
    expect(t.app.get(SessionTokens).verify(passcodeToken)).toBeNull();
    const bearer = await request(t.url).get(SESSION).set('authorization', `Bearer ${passcodeToken}`);
    expect(bearer.status).toBe(401);
    expect(bearer.body.type).toBe('urn:problem-type:authentication-required');
    const cookie = await request(t.url).get(SESSION).set('cookie', `authentication-jwt=${passcodeToken}`);
    expect(cookie.status).toBe(401);
    expect(setCookiesOf(cookie).some((c) => /^authentication-jwt=[^;]+\./.test(c))).toBe(false);
  });

  it('a session token is not a passcode token', async () => {
    const u = await createUser(t.app);
    const session = t.app.get(SessionTokens).issue(u.guid, clock.now());
    const res = await request(t.url)
      .post(PASSCODE)
      .send({ passcodeToken: session.token, passcode: MOCK_PASSCODE });
    expect(res.body).toMatchObject(GENERIC);
    expect(await loginRows(t.app, u.name)).toEqual([]);
  });

  it('a wrong passcode is a 401 with FailureTypeId 11 and counts: PasswordAttempts + 1 of them lock the account', async () => {
    const u = await createUser(t.app);
    const passcodeToken = await passwordStep(t.url, { userName: u.name, password: u.password });
    for (let i = 0; i < 4; i++) {
      const res = await request(t.url)
        .post(PASSCODE)
        .send({ passcodeToken, passcode: `12345${i}` });
      expect(res.body).toMatchObject(GENERIC);
    }
    const row = await userRow(u.guid);
    expect(row.FailedPasswordCount).toBe(4);
    expect(row.PasswordLocked).toBe(true);
    // Locked: the right passcode, and then the right password, fail as PasswordLocked.
    const late = await request(t.url).post(PASSCODE).send({ passcodeToken, passcode: MOCK_PASSCODE });
    expect(late.body).toMatchObject(GENERIC);
    expect(setCookiesOf(late)).toEqual([]);
    await request(t.url).post(SIGN_IN).send({ userName: u.name, password: u.password }).expect(401);
    const rows = await loginRows(t.app, u.name);
    expect(rows.map((r) => [r.Failed, r.FailureTypeId, r.AuthenticationTypeId])).toEqual([
      [true, FailureType.SecondFactorRequired, AuthenticationType.UserNamePassword],
      ...Array(4).fill([true, FailureType.SecondFactorMismatch, AuthenticationType.UserNamePassword]),
      [true, FailureType.PasswordLocked, AuthenticationType.UserNamePassword],
      [true, FailureType.PasswordLocked, AuthenticationType.UserNamePassword],
    ]);
  });

  it('wrong passwords and wrong passcodes share one lockout count', async () => {
    const u = await createUser(t.app);
    for (let i = 0; i < 2; i++)
      await request(t.url)
        .post(SIGN_IN)
        .send({ userName: u.name, password: `wrong-password-${i}` })
        .expect(401);
    const passcodeToken = await passwordStep(t.url, { userName: u.name, password: u.password });
    await request(t.url).post(PASSCODE).send({ passcodeToken, passcode: '999999' }).expect(401);
    expect((await userRow(u.guid)).PasswordLocked).toBe(false);
    await request(t.url).post(PASSCODE).send({ passcodeToken, passcode: '999998' }).expect(401);
    expect((await userRow(u.guid)).PasswordLocked).toBe(true);
  });

  it('an expired passcode token is a generic 401, recorded naming nobody (it proves nobody)', async () => {
    const u = await createUser(t.app);
    const passcodeToken = await passwordStep(t.url, { userName: u.name, password: u.password });
    clock.advance(5 * 60_000 + 1_000);
    const before = (await loginRows(t.app, '')).length;
    const res = await request(t.url).post(PASSCODE).send({ passcodeToken, passcode: MOCK_PASSCODE });
    expect(res.body).toMatchObject(GENERIC);
    expect((await loginRows(t.app, u.name)).map((r) => r.FailureTypeId)).toEqual([
      FailureType.SecondFactorRequired,
    ]);
    const nobody = await loginRows(t.app, '');
    expect(nobody).toHaveLength(before + 1);
    expect(nobody[nobody.length - 1]).toMatchObject({
      Failed: true,
      FailureTypeId: FailureType.SecondFactorMismatch,
      TenantRegistryId: null,
    });
    expect((await userRow(u.guid)).FailedPasswordCount).toBe(0);
  });

  it('a malformed or tampered passcode token is a generic 401 naming nobody; a missing passcode a 400 naming the user', async () => {
    const u = await createUser(t.app);
    const passcodeToken = await passwordStep(t.url, { userName: u.name, password: u.password });
    const [h, p, s] = passcodeToken.split('.');
    for (const bad of ['x', `${h}.${p}.${s.slice(0, -2)}AA`, `${h}.${p}x.${s}`]) {
      const res = await request(t.url).post(PASSCODE).send({ passcodeToken: bad, passcode: MOCK_PASSCODE });
      expect(res.body).toMatchObject(GENERIC);
    }
    await request(t.url).post(PASSCODE).send({ passcodeToken }).expect(400);
    expect((await loginRows(t.app, u.name)).map((r) => r.FailureTypeId)).toEqual([
      FailureType.SecondFactorRequired,
      FailureType.SecondFactorMismatch, // the refused body: its token names the user
    ]);
  });

  it('a user deactivated after the password step cannot complete it (row FailureTypeId 2)', async () => {
    const u = await createUser(t.app);
    const passcodeToken = await passwordStep(t.url, { userName: u.name, password: u.password });
    await t.app.get(UserService).deactivate(await landlordActor(t.app), u.guid);
    const res = await request(t.url).post(PASSCODE).send({ passcodeToken, passcode: MOCK_PASSCODE });
    expect(res.body).toMatchObject(GENERIC);
    expect((await loginRows(t.app, u.name)).map((r) => r.FailureTypeId)).toEqual([
      FailureType.SecondFactorRequired,
      FailureType.NotActive,
    ]);
  });

  it('a password change waits for the passcode; a token of the old password dies with it', async () => {
    const u = await createUser(t.app);
    const newPassword = 'A-New-Long-Password-1';
    const change = await passwordStep(t.url, {
      userName: u.name,
      password: u.password,
      newPassword,
      repeatNewPassword: newPassword,
    });
    expect(change).not.toContain('$argon2'); // the new hash travels encrypted
    // Not changed yet: the old password still proves, the new one does not.
    const older = await passwordStep(t.url, { userName: u.name, password: u.password });
    await request(t.url).post(SIGN_IN).send({ userName: u.name, password: newPassword }).expect(401);
    const res = await request(t.url).post(PASSCODE).send({ passcodeToken: change, passcode: MOCK_PASSCODE });
    expect(res.status).toBe(200);
    await request(t.url).get(SESSION).set('authorization', `Bearer ${res.body.token}`).expect(200);
    await passwordStep(t.url, { userName: u.name, password: newPassword });
    await request(t.url).post(SIGN_IN).send({ userName: u.name, password: u.password }).expect(401);
    // The token of the old password no longer proves anything (not counted).
    const stale = await request(t.url).post(PASSCODE).send({ passcodeToken: older, passcode: MOCK_PASSCODE });
    expect(stale.body).toMatchObject(GENERIC);
    expect((await logoutRows(t.app, u.name)).map((r) => r.ReasonId)).toEqual([3]);
    expect((await loginRows(t.app, u.name)).map((r) => [r.Failed, r.FailureTypeId])).toEqual([
      [true, FailureType.SecondFactorRequired], // the change, waiting for its passcode
      [true, FailureType.SecondFactorRequired], // the older password step
      [true, FailureType.WrongPassword], // the new password before the change
      [false, null],
      [true, FailureType.SecondFactorRequired], // the new password's step
      [true, FailureType.WrongPassword], // the old password after it
      [true, FailureType.SecondFactorMismatch], // the stale passcode token
    ]);
  });

  it('ChangePassword from a signed-in session also waits for the passcode, then ends the old session', async () => {
    const u = await createUser(t.app);
    const first = await request(t.url)
      .post(PASSCODE)
      .send({
        passcodeToken: await passwordStep(t.url, { userName: u.name, password: u.password }),
        passcode: MOCK_PASSCODE,
      })
      .expect(200);
    const auth = `Bearer ${first.body.token}`;
    clock.advance(1_000);
    const newPassword = 'Changed-Long-Password-2';
    const step = await request(t.url)
      .post('/api/Authentication/ChangePassword')
      .set('authorization', auth)
      .send({ password: u.password, newPassword, repeatNewPassword: newPassword })
      .expect(202);
    expect(step.body.secondFactorRequired).toBe(true);
    await request(t.url).get(SESSION).set('authorization', auth).expect(200); // nothing changed yet
    const done = await request(t.url)
      .post(PASSCODE)
      .send({ passcodeToken: step.body.passcodeToken, passcode: MOCK_PASSCODE })
      .expect(200);
    await request(t.url).get(SESSION).set('authorization', auth).expect(401);
    await request(t.url).get(SESSION).set('authorization', `Bearer ${done.body.token}`).expect(200);
    const logouts = await logoutRows(t.app, u.name);
    expect(logouts.map((r) => [r.ReasonId, r.SessionStartedDate?.toISOString()])).toEqual([
      [3, first.body.sessionStartedAt],
    ]);
  });

  it('the mock answers valid only for its passcode, the shipped key and this application id', async () => {
    const good = {
      applicationId: t.settings.MultifactorAuthenticationApplicationId,
      clientKey: 'ShippedDefaultClientKey',
      userName: 'anyone',
      passcode: MOCK_PASSCODE,
    };
    expect((await request(t.url).post('/api/mfa').send(good).expect(200)).body).toEqual({ valid: true });
    for (const bad of [
      { ...good, passcode: '000001' },
      { ...good, clientKey: 'ShippedDefaultClientKeyX' },
      { ...good, applicationId: 'Other' },
    ])
      expect((await request(t.url).post('/api/mfa').send(bad).expect(200)).body).toEqual({ valid: false });
  });
});

describe('second factor settings', () => {
  it('with a changed client key the mock refuses even its passcode', async () => {
    const t = await startTestApp('sqlite', {
      ...MFA,
      MultifactorAuthenticationClientKey: 'a-real-provider-key',
    });
    try {
      const u = await createUser(t.app);
      const passcodeToken = await passwordStep(t.url, { userName: u.name, password: u.password });
      const res = await request(t.url).post(PASSCODE).send({ passcodeToken, passcode: MOCK_PASSCODE });
      expect(res.body).toMatchObject(GENERIC);
      expect((await loginRows(t.app, u.name)).map((r) => r.FailureTypeId)).toEqual([
        FailureType.SecondFactorRequired,
        FailureType.SecondFactorMismatch,
      ]);
      const direct = await request(t.url).post('/api/mfa').send({
        applicationId: t.settings.MultifactorAuthenticationApplicationId,
        clientKey: 'ShippedDefaultClientKey',
        userName: u.name,
        passcode: MOCK_PASSCODE,
      });
      expect(direct.body).toEqual({ valid: false });
    } finally {
      await t.close();
    }
  });

  it('without EnableMultifactorAuthentication sign-in answers 200 and the passcode step does not exist', async () => {
    const t = await startTestApp('sqlite');
    try {
      const u = await createUser(t.app);
      await request(t.url).post(SIGN_IN).send({ userName: u.name, password: u.password }).expect(200);
      await request(t.url).post(PASSCODE).send({ passcodeToken: 'x', passcode: MOCK_PASSCODE }).expect(404);
    } finally {
      await t.close();
    }
  });
});
