import request from 'supertest';
import { DataSource } from 'typeorm';
import { Permission } from '@app/access';
import { UserRegistry } from '@app/identity';
// The repository itself (not exported by the feature): the gate holds an edit between its read and its write.
import { IdentityRepository } from '../../libs/identity/src/identity.repository';
import { createUser, CreatedUser } from '../factories/identity.factory';
import { logoutRows, signIn } from '../support/auth';
import { TEST_PROVIDERS } from '../support/databases';
import { startTestApp, TestApp } from '../support/test-app';
import { gateAfter } from './gate';

/**
 * A deactivation ends the user's sessions for good (TokensValidFrom moves forward in
 * the same statement), so reactivating the account never brings an old session back; the automatic lockout
 * neither ends nor hides a session, and an administrator's Unlock only lifts it (password-lock.spec.ts). Each
 * cut writes one UserLogout row (ReasonId 2, the acting administrator). The race with an edit carrying a stale `active: true` in two forms:
 * a deterministic gate and 50 concurrent attempts.
 */
const STRESS = 50;
jest.setTimeout(240_000);

describe.each(TEST_PROVIDERS)('deactivation ends sessions for good, Unlock none (%s)', (provider) => {
  let t: TestApp;
  let admin: CreatedUser;
  let adminToken: string;
  beforeAll(async () => {
    t = await startTestApp(provider);
    admin = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
    adminToken = (await signIn(t.url, admin.name, admin.password)).token;
  });
  afterAll(() => t.close());

  const session = (token: string) =>
    request(t.url).get('/api/Authentication/Session').set('Authorization', `Bearer ${token}`);
  const asAdmin = (method: 'post' | 'put', path: string) =>
    request(t.url)[method](path).set('Authorization', `Bearer ${adminToken}`);
  const deactivate = (guid: string) => asAdmin('post', `/api/UserRegistry/${guid}/Deactivate`);
  const putActive = (guid: string, active: boolean) =>
    asAdmin('put', `/api/UserRegistry/${guid}`).send({ active });
  const unlock = (guid: string) => asAdmin('post', `/api/UserRegistry/${guid}/Unlock`);
  const row = (guid: string) =>
    t.app.get(DataSource).getRepository(UserRegistry).findOneByOrFail({ Guid: guid });
  const user = () => createUser(t.app, { tenantGuid: admin.tenantGuid });
  const lockOut = async (name: string) => {
    for (let i = 0; i < 4; i++)
      await request(t.url)
        .post('/api/Authentication/ByUserNamePassword')
        .send({ userName: name, password: 'not-the-password-x' })
        .expect(401);
  };

  it.each([
    ['POST Deactivate', (guid: string) => deactivate(guid)],
    ['PUT active: false', (guid: string) => putActive(guid, false)],
  ])('%s, then reactivation: the old session stays ended, ten times in a row', async (_how, cut) => {
    const u = await user();
    let survived = 0;
    for (let i = 0; i < 10; i++) {
      const old = (await signIn(t.url, u.name, u.password)).token;
      await session(old).expect(200);
      expect((await cut(u.guid)).status).toBe(200);
      await session(old).expect(401);
      await putActive(u.guid, true).expect(200);
      if ((await session(old)).status !== 401) survived++;
    }
    expect(survived).toBe(0);
  });

  it('a deactivation writes one UserLogout row: ReasonId 2, the acting administrator; reactivation never moves TokensValidFrom back', async () => {
    const u = await user();
    await signIn(t.url, u.name, u.password);
    await deactivate(u.guid).expect(200);
    const cutAt = (await row(u.guid)).TokensValidFrom;
    expect(cutAt).not.toBeNull();
    expect(await logoutRows(t.app, u.name)).toEqual([
      expect.objectContaining({ ReasonId: 2, OutcomeId: 1, RevokedByUser: admin.name }),
    ]);
    await putActive(u.guid, true).expect(200);
    expect((await row(u.guid)).TokensValidFrom?.getTime()).toBe(cutAt?.getTime());
    await signIn(t.url, u.name, u.password); // a new session after reactivation works
  });

  it('the automatic lockout neither ends nor hides a session; the administrator Unlock lifts it and ends nothing', async () => {
    const u = await user();
    const old = (await signIn(t.url, u.name, u.password)).token;
    const before = (await row(u.guid)).TokensValidFrom;
    await lockOut(u.name);
    const locked = await row(u.guid);
    expect(locked.PasswordLocked).toBe(true);
    // Anybody who knows the name can lock the account: that alone must not end or hide the user's sessions.
    expect(locked.TokensValidFrom?.getTime()).toBe(before?.getTime());
    await session(old).expect(200);
    await unlock(u.guid).expect(200);
    await session(old).expect(200);
    expect((await row(u.guid)).TokensValidFrom?.getTime()).toBe(before?.getTime());
    expect(await logoutRows(t.app, u.name)).toEqual([]);
    await signIn(t.url, u.name, u.password);
  });

  it('Unlock of a user who is not locked ends nothing', async () => {
    const u = await user();
    const token = (await signIn(t.url, u.name, u.password)).token;
    await unlock(u.guid).expect(200);
    await session(token).expect(200);
    expect(await logoutRows(t.app, u.name)).toEqual([]);
  });

  it('deterministic: a deactivation while an edit carrying a stale `active: true` is between its read and its write', async () => {
    const u = await user();
    const old = (await signIn(t.url, u.name, u.password)).token;
    const gate = gateAfter(t.app.get(IdentityRepository), 'findUserByGuid');
    const stale = putActive(u.guid, true).then((r) => r);
    await gate.reached;
    await deactivate(u.guid).expect(200);
    gate.open();
    expect((await stale).status).toBe(200);
    // the stale edit found nothing to change against what it read (active already true), so it wrote nothing:
    // the deactivation stands, and the old session stays ended
    expect((await row(u.guid)).Active).toBe(false);
    await session(old).expect(401);
  });

  it(`stress: ${STRESS} deactivations racing edits that carry a stale \`active: true\`; no old session survives`, async () => {
    const u = await user();
    let survived = 0;
    for (let i = 0; i < STRESS; i++) {
      await putActive(u.guid, true).expect(200);
      const old = (await signIn(t.url, u.name, u.password)).token;
      const [cut, stale] = await Promise.all([deactivate(u.guid), putActive(u.guid, true)]);
      expect(cut.status).toBe(200);
      expect(stale.status).toBe(200);
      await putActive(u.guid, true).expect(200);
      if ((await session(old)).status !== 401) survived++;
    }
    expect(survived).toBe(0);
  });
});
