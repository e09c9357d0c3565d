import request from 'supertest';
import { Permission } from '@app/access';
import { LogoutOutcome, LogoutReason } from '@app/audit';
import { createUser } from '../factories/identity.factory';
import { logoutRows, signIn } from '../support/auth';
import { TEST_PROVIDERS } from '../support/databases';
import { openStream } from '../support/sse';
import { waitFor } from '../support/spawn-server';
import { startTestApp, TestApp } from '../support/test-app';

/** spec: Session (JWT) — "User's password changed" ends the earlier sessions, also when an administrator resets it. */
describe.each(TEST_PROVIDERS)('an administrator password reset on %s', (provider) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(provider);
  });
  afterAll(() => t.close());

  it("ends the user's sessions and streams, and writes UserLogout ReasonId 3 naming the administrator", async () => {
    const admin = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
    const user = await createUser(t.app, { tenantGuid: admin.tenantGuid });
    const adminToken = (await signIn(t.url, admin.name, admin.password)).token;
    const session = await signIn(t.url, user.name, user.password);
    await request(t.url)
      .get('/api/Authentication/Session')
      .set('Authorization', `Bearer ${session.token}`)
      .expect(200);
    const stream = await openStream(`${t.url}/api/Stream/Telemetry`, {
      Authorization: `Bearer ${session.token}`,
    });
    expect(stream.status).toBe(200);

    await request(t.url)
      .post(`/api/UserRegistry/${user.guid}/ResetPassword`)
      .set('Authorization', `Bearer ${adminToken}`)
      .set('User-Agent', 'admin-console')
      .send({ password: 'A-New-Password-From-Admin' })
      .expect(200);

    await request(t.url)
      .get('/api/Authentication/Session')
      .set('Authorization', `Bearer ${session.token}`)
      .expect(401);
    await stream.ended;
    // the audit row is written right after the answer
    await waitFor(async () => (await logoutRows(t.app, user.name)).length > 0, 5000, 'the UserLogout row');
    expect(await logoutRows(t.app, user.name)).toEqual([
      expect.objectContaining({
        ReasonId: LogoutReason.PasswordChanged,
        OutcomeId: LogoutOutcome.Revoked,
        RevokedByUser: admin.name,
        UserAgent: 'admin-console',
      }),
    ]);
    // the administrator's own session is untouched
    await request(t.url)
      .get('/api/Authentication/Session')
      .set('Authorization', `Bearer ${adminToken}`)
      .expect(200);
  });
});
