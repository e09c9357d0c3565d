import request from 'supertest';
import { FailureType } from '@app/audit';
import { Permission } from '@app/access';
import { MOCK_PASSCODE } from '@app/auth';
import { createUser, landlordActor } from '../factories/identity.factory';
import { loginRows } from '../support/auth';
import { startTestApp, TestApp } from '../support/test-app';

const SIGN_IN = '/api/Authentication/ByUserNamePassword';
const PASSCODE = '/api/Authentication/Passcode';

/**
 * Every sign-in attempt writes one UserLogin row (spec: UserLogin
 * rule 1), the second factor's failures have their own FailureTypeIds (11, 12), a 202 is recorded (13), a
 * refused new password too (14); the names show in the grid and the CSV; the per-address rate limit keeps
 * anonymous callers from flooding the never-purged table.
 */
describe('a UserLogin row for every sign-in attempt', () => {
  let t: TestApp;
  let auditor: string;
  beforeAll(async () => {
    t = await startTestApp('sqlite', { EnableMultifactorAuthentication: 'True' });
    const a = await createUser(t.app, {
      tenantGuid: (await landlordActor(t.app)).tenantGuid,
      permissions: [Permission.ReadSecurityAudit],
    });
    const step = await request(t.url)
      .post(SIGN_IN)
      .send({ userName: a.name, password: a.password })
      .expect(202);
    auditor = (
      await request(t.url)
        .post(PASSCODE)
        .send({ passcodeToken: step.body.passcodeToken, passcode: MOCK_PASSCODE })
        .expect(200)
    ).body.token as string;
  });
  afterAll(() => t.close());

  it('a proven password with an unacceptable new password: a 422 naming the field and a row 14', async () => {
    const u = await createUser(t.app);
    const res = await request(t.url)
      .post(SIGN_IN)
      .send({ userName: u.name, password: u.password, newPassword: 'short', repeatNewPassword: 'short' })
      .expect(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'newPassword' })]);
    expect((await loginRows(t.app, u.name)).map((r) => [r.Failed, r.FailureTypeId])).toEqual([
      [true, FailureType.NewPasswordRefused],
    ]);
  });

  it('ChangePassword refused by the validation: a row naming the signed-in user', async () => {
    const u = await createUser(t.app);
    const done = await request(t.url)
      .post(PASSCODE)
      .send({
        passcodeToken: (await request(t.url).post(SIGN_IN).send({ userName: u.name, password: u.password }))
          .body.passcodeToken,
        passcode: MOCK_PASSCODE,
      })
      .expect(200);
    await request(t.url)
      .post('/api/Authentication/ChangePassword')
      .set('Authorization', `Bearer ${done.body.token}`)
      .send({ password: u.password, newPassword: 42, repeatNewPassword: 42 })
      .expect(400);
    await request(t.url)
      .post('/api/Authentication/ChangePassword')
      .set('Authorization', `Bearer ${done.body.token}`)
      .send({ newPassword: 'Another-Password-12', repeatNewPassword: 'Another-Password-12' })
      .expect(400);
    expect((await loginRows(t.app, u.name)).map((r) => r.FailureTypeId)).toEqual([
      FailureType.SecondFactorRequired,
      null,
      FailureType.NewPasswordRefused,
      FailureType.NoPassword,
    ]);
  });

  it('the grid and the CSV name the new failure types', async () => {
    const u = await createUser(t.app);
    const token = (await request(t.url).post(SIGN_IN).send({ userName: u.name, password: u.password })).body
      .passcodeToken as string;
    await request(t.url).post(PASSCODE).send({ passcodeToken: token, passcode: '999999' }).expect(401);
    const grid = await request(t.url)
      .get('/api/UserLogin')
      .query({ search: u.name })
      .set('Authorization', `Bearer ${auditor}`)
      .expect(200);
    expect(
      grid.body.rows.map((r: { failureTypeId: number; failureType: string }) => [
        r.failureTypeId,
        r.failureType,
      ]),
    ).toEqual([
      [11, 'SecondFactorMismatch'],
      [13, 'SecondFactorRequired'],
    ]);
    const csv = await request(t.url)
      .get('/api/UserLogin')
      .query({ search: u.name, format: 'csv' })
      .set('Authorization', `Bearer ${auditor}`)
      .expect(200);
    expect(csv.text).toContain('"SecondFactorMismatch"');
    expect(csv.text).toContain('"SecondFactorRequired"');
  });
});

describe('rows written under the per-address rate limit', () => {
  it('past the limit a bad passcode token is a 429 and writes no row', async () => {
    const t = await startTestApp('sqlite', {
      EnableMultifactorAuthentication: 'True',
      SignInRateLimitPerMinute: '3',
      TrustProxy: 'True',
    });
    try {
      const from = (r: request.Test) => r.set('X-Forwarded-For', '203.0.113.99');
      for (let i = 0; i < 3; i++)
        await from(request(t.url).post(PASSCODE))
          .send({ passcodeToken: 'forged', passcode: '1' })
          .expect(401);
      await from(request(t.url).post(PASSCODE)).send({ passcodeToken: 'forged', passcode: '1' }).expect(429);
      expect((await loginRows(t.app, '')).map((r) => r.FailureTypeId)).toEqual([11, 11, 11]);
    } finally {
      await t.close();
    }
  });
});
