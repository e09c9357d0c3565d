import request from 'supertest';
import { DataSource } from 'typeorm';
import { Logger } from '@nestjs/common';
import { ManualClock } from '@app/runtime';
import { Permission } from '@app/access';
import { LogoutOutcome, LogoutReason } from '@app/audit';
import { ApiKeyService } from '@app/api-keys';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser } from '../factories/identity.factory';
import { logoutRows, signIn } from '../support/auth';
import { waitFor } from '../support/spawn-server';

const LOGOUT = '/api/Authentication/Logout';
const SESSION = '/api/Authentication/Session';

describe('POST /api/UserRegistry/RevokeTokens/{id}', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('postgres');
  });
  afterAll(() => t.close());

  const revoke = (token: string, id: string) =>
    request(t.url)
      .post(`/api/UserRegistry/RevokeTokens/${id}`)
      .set('Authorization', `Bearer ${token}`)
      .send();

  it('204: every session of the user ends; UserLogout ReasonId 2 names the administrator who cut it', async () => {
    const admin = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
    const target = await createUser(t.app, { tenantGuid: admin.tenantGuid });
    const a = await signIn(t.url, admin.name, admin.password);
    const s1 = await signIn(t.url, target.name, target.password);
    const s2 = await signIn(t.url, target.name, target.password);
    await new Promise((r) => setTimeout(r, 2)); // the revocation instant is after both sessions began
    const res = await revoke(a.token, target.guid);
    expect(res.status).toBe(204);
    for (const s of [s1, s2]) await request(t.url).get(SESSION).set('Cookie', s.cookie).expect(401);
    await request(t.url).get(SESSION).set('Authorization', `Bearer ${a.token}`).expect(200);
    expect(await logoutRows(t.app, target.name)).toEqual([
      expect.objectContaining({
        ReasonId: LogoutReason.AdministratorRevoked,
        OutcomeId: LogoutOutcome.Revoked,
        TenantRegistryId: target.actor.tenantId,
        RevokedByUser: admin.name,
        RemoteIp: '127.0.0.1',
      }),
    ]);
  });

  it("404 for another tenant's user and for no user, the same answer; 403 without the permission", async () => {
    const admin = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
    const stranger = await createUser(t.app);
    const a = await signIn(t.url, admin.name, admin.password);
    const other = await revoke(a.token, stranger.guid);
    const none = await revoke(a.token, '00000000-0000-4000-8000-000000000000');
    expect(other.status).toBe(404);
    expect(none.status).toBe(404);
    expect({ ...other.body, instance: undefined }).toEqual({ ...none.body, instance: undefined });
    const s = await signIn(t.url, stranger.name, stranger.password);
    await request(t.url).get(SESSION).set('Authorization', `Bearer ${s.token}`).expect(200);

    const plain = await createUser(t.app, { tenantGuid: admin.tenantGuid });
    const p = await signIn(t.url, plain.name, plain.password);
    const forbidden = await revoke(p.token, admin.guid);
    expect(forbidden.status).toBe(403);
    await request(t.url).get(SESSION).set('Authorization', `Bearer ${a.token}`).expect(200);
    const bad = await revoke(a.token, 'not-a-guid');
    expect(bad.status).toBe(400);
    expect(bad.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('an API key keeps working after its user logs out, changes password and is revoked with RevokeTokens', async () => {
    const admin = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
    const user = await createUser(t.app, { tenantGuid: admin.tenantGuid });
    const { key } = await t.app
      .get(ApiKeyService)
      .create(admin.actor, { userRegistryGuid: user.guid, name: 'ci' });
    const withKey = () => request(t.url).get(SESSION).set('x-api-key', key);
    await withKey().expect(200);

    const s = await signIn(t.url, user.name, user.password);
    await request(t.url).post(LOGOUT).set('Cookie', s.cookie).send().expect(200);
    await withKey().expect(200);

    const s2 = await signIn(t.url, user.name, user.password);
    const newPassword = 'Another-long-password-2';
    await request(t.url)
      .post('/api/Authentication/ChangePassword')
      .set('Authorization', `Bearer ${s2.token}`)
      .send({ password: user.password, newPassword, repeatNewPassword: newPassword })
      .expect(200);
    await withKey().expect(200);

    const a = await signIn(t.url, admin.name, admin.password);
    await revoke(a.token, user.guid).expect(204);
    const res = await withKey().expect(200);
    expect(res.body).toMatchObject({ userGuid: user.guid, credential: 'api-key' });
    expect((await logoutRows(t.app, user.name)).map((r) => r.ReasonId)).toEqual([1, 3, 2]);
  });
});

/**
 * spec: Errors, "Revoke Sessions succeeds: 204". Once the revocation committed the sessions have ended: the
 * UserLogout row that follows is written within LogoutRevocationTimeoutMilliseconds, and its failure is logged,
 * never answered.
 */
describe('RevokeTokens when the UserLogout row cannot be written (PostgreSQL)', () => {
  const LIMIT_MS = 300;
  const clock = new ManualClock(Date.now());
  let t: TestApp;
  let ds: DataSource;
  beforeAll(async () => {
    t = await startTestApp('postgres', { LogoutRevocationTimeoutMilliseconds: String(LIMIT_MS) }, { clock });
    ds = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  /** A BEFORE INSERT trigger on "UserLogout" in this test file's own database, running `body`; dropped after. */
  async function withLogoutTrigger(body: string, work: () => Promise<void>): Promise<void> {
    await ds.query(
      `CREATE FUNCTION test_logout_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${body} END $$`,
    );
    await ds.query(
      'CREATE TRIGGER test_logout_insert BEFORE INSERT ON "UserLogout" FOR EACH ROW EXECUTE FUNCTION test_logout_insert()',
    );
    try {
      await work();
    } finally {
      await ds.query('DROP TRIGGER test_logout_insert ON "UserLogout"');
      await ds.query('DROP FUNCTION test_logout_insert()');
    }
  }

  async function adminAndTarget() {
    const admin = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
    const target = await createUser(t.app, { tenantGuid: admin.tenantGuid });
    const adminToken = (await signIn(t.url, admin.name, admin.password)).token;
    const session = await signIn(t.url, target.name, target.password);
    clock.advance(1_000); // the revocation instant is after the session began
    return { admin, target, adminToken, session };
  }

  const revoke = (token: string, id: string) =>
    request(t.url)
      .post(`/api/UserRegistry/RevokeTokens/${id}`)
      .set('Authorization', `Bearer ${token}`)
      .send();

  it('the insert fails after the revocation committed: 204, the old token is refused, the failure at ERROR, no row', async () => {
    const { target, adminToken, session } = await adminAndTarget();
    const errors = jest.spyOn(Logger.prototype, 'error');
    try {
      await withLogoutTrigger(`RAISE EXCEPTION 'UserLogout refused by the test trigger';`, async () => {
        const res = await revoke(adminToken, target.guid);
        expect(res.status).toBe(204);
        expect(res.text).toBe('');
      });
      await request(t.url).get(SESSION).set('Authorization', `Bearer ${session.token}`).expect(401);
      await request(t.url).get(SESSION).set('Authorization', `Bearer ${adminToken}`).expect(200);
      expect(errors).toHaveBeenCalledWith(
        {
          err: expect.stringMatching(/^QueryFailedError: UserLogout refused by the test trigger$/),
          reasonId: LogoutReason.AdministratorRevoked,
          outcome: LogoutOutcome.Revoked,
        },
        'A UserLogout row could not be written',
      );
      expect(await logoutRows(t.app, target.name)).toEqual([]);
    } finally {
      errors.mockRestore();
    }
  });

  it('a password change through sign-in whose UserLogout row fails: still signed in with the new password, the failure at ERROR', async () => {
    const u = await createUser(t.app);
    const errors = jest.spyOn(Logger.prototype, 'error');
    const newPassword = 'A-changed-password-4711';
    try {
      await withLogoutTrigger(`RAISE EXCEPTION 'UserLogout refused by the test trigger';`, async () => {
        await request(t.url)
          .post('/api/Authentication/ByUserNamePassword')
          .send({ userName: u.name, password: u.password, newPassword, repeatNewPassword: newPassword })
          .expect(200);
      });
      await signIn(t.url, u.name, newPassword);
      expect(errors).toHaveBeenCalledWith(
        expect.objectContaining({ reasonId: LogoutReason.PasswordChanged, outcome: LogoutOutcome.Revoked }),
        'A UserLogout row could not be written',
      );
    } finally {
      errors.mockRestore();
    }
  });

  it('the insert hangs: 204 after about LogoutRevocationTimeoutMilliseconds, the timeout at ERROR; the row lands later', async () => {
    const { admin, target, adminToken, session } = await adminAndTarget();
    const errors = jest.spyOn(Logger.prototype, 'error');
    try {
      // far longer than the limit: an answer that waited for the insert would take 5 s
      await withLogoutTrigger('PERFORM pg_sleep(5); RETURN NEW;', async () => {
        const started = Date.now();
        const res = await revoke(adminToken, target.guid);
        expect(res.status).toBe(204);
        // answered when the limit passed, not when the insert ended: its row is not there yet
        expect(Date.now() - started).toBeGreaterThanOrEqual(LIMIT_MS);
        expect(await logoutRows(t.app, target.name)).toEqual([]);
        await request(t.url).get(SESSION).set('Authorization', `Bearer ${session.token}`).expect(401);
        expect(errors).toHaveBeenCalledWith(
          {
            err: `TimeoutError: Writing the UserLogout row took longer than ${LIMIT_MS} ms`,
            reasonId: LogoutReason.AdministratorRevoked,
            outcome: LogoutOutcome.Revoked,
          },
          'A UserLogout row could not be written',
        );
        // the insert was not cancelled: its row is written once the trigger lets it through
        await waitFor(async () => (await logoutRows(t.app, target.name)).length > 0, 10_000, 'the late row');
      });
      expect(await logoutRows(t.app, target.name)).toEqual([
        expect.objectContaining({
          ReasonId: LogoutReason.AdministratorRevoked,
          OutcomeId: LogoutOutcome.Revoked,
          RevokedByUser: admin.name,
        }),
      ]);
    } finally {
      errors.mockRestore();
    }
  });
});
