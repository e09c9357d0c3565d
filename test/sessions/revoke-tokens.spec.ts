import request from 'supertest';
import { Permission } from '@app/common';
import { LogoutOutcome, LogoutReason } from '@app/audit';
import { ApiKeyService } from '@app/api-keys';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser } from '../factories/identity.factory';
import { logoutRows, signIn } from '../support/auth';

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
