import request from 'supertest';
import { DataSource } from 'typeorm';
import { Permission } from '@app/access';
import { UserRegistry } from '@app/identity';
import { createOpenApiDocument } from '../../apps/server/src/openapi';
// The repository itself (not exported by the feature): the gate holds an action between its read and its write.
import { IdentityRepository } from '../../libs/identity/src/identity.repository';
import { createUser, CreatedUser } from '../factories/identity.factory';
import { signIn } from '../support/auth';
import { TEST_PROVIDERS } from '../support/databases';
import { startTestApp, TestApp } from '../support/test-app';
import { gateAfter, openGates } from './gate';

/**
 * A user's ETag and the POST actions (docs/api-contract.md, HTTP conventions):
 * - the ETag moves with what an administrator edits, never with sign-in state: wrong passwords, the lock, a
 *   sign-in, a logout, Revoke Sessions and Unlock leave it as it was, so nobody who knows a user name can make an
 *   administrator's If-Match stale;
 * - Deactivate, ResetPassword, Unlock and RevokeTokens honour If-Match like PUT (412, nothing written), in the
 *   action's own conditional statement: of 50 concurrent actions naming one version, exactly one applies when
 *   the action moves the version; 50 stale ones racing a fresh one are all refused.
 */
const STRESS = 50;
jest.setTimeout(240_000);

type Action = 'Deactivate' | 'ResetPassword' | 'Unlock' | 'RevokeTokens';
const ACTIONS: Action[] = ['Deactivate', 'ResetPassword', 'Unlock', 'RevokeTokens'];
const OPERATIONS: Record<Action, [string, string]> = {
  Deactivate: ['/api/UserRegistry/{guid}/Deactivate', 'deactivateUser'],
  ResetPassword: ['/api/UserRegistry/{guid}/ResetPassword', 'resetUserPassword'],
  Unlock: ['/api/UserRegistry/{guid}/Unlock', 'unlockUser'],
  RevokeTokens: ['/api/UserRegistry/RevokeTokens/{id}', 'revokeUserTokens'],
};

describe.each(TEST_PROVIDERS)("a user's ETag and the POST actions' If-Match (%s)", (provider) => {
  let t: TestApp;
  let admin: CreatedUser;
  let adminToken: string;
  beforeAll(async () => {
    t = await startTestApp(provider);
    admin = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
    adminToken = (await signIn(t.url, admin.name, admin.password)).token;
  });
  afterAll(() => t.close());
  afterEach(openGates);

  const user = () => createUser(t.app, { tenantGuid: admin.tenantGuid });
  const row = (guid: string) =>
    t.app.get(DataSource).getRepository(UserRegistry).findOneByOrFail({ Guid: guid });
  const etag = async (guid: string) =>
    (
      await request(t.url)
        .get(`/api/UserRegistry/${guid}`)
        .set('Authorization', `Bearer ${adminToken}`)
        .expect(200)
    ).headers.etag;
  const act = (action: Action, guid: string, ifMatch?: string) => {
    const path =
      action === 'RevokeTokens'
        ? `/api/UserRegistry/RevokeTokens/${guid}`
        : `/api/UserRegistry/${guid}/${action}`;
    const req = request(t.url).post(path).set('Authorization', `Bearer ${adminToken}`);
    if (ifMatch !== undefined) req.set('If-Match', ifMatch);
    return action === 'ResetPassword'
      ? req.send({ password: `Reset-Password-${Math.random()}`, passwordExpired: false })
      : req;
  };
  const putEmail = (guid: string, ifMatch: string) =>
    request(t.url)
      .put(`/api/UserRegistry/${guid}`)
      .set('Authorization', `Bearer ${adminToken}`)
      .set('If-Match', ifMatch)
      .send({ email: `e-${Math.random().toString(36).slice(2)}@example.com` });
  const wrong = (name: string) =>
    request(t.url)
      .post('/api/Authentication/ByUserNamePassword')
      .send({ userName: name, password: 'not-the-password-x' })
      .expect(401);
  /** What the actions write (the ETag's version included). */
  const state = async (guid: string) => {
    const r = await row(guid);
    return {
      active: r.Active,
      hash: r.PasswordHash,
      tokensValidFrom: r.TokensValidFrom?.getTime() ?? null,
      locked: r.PasswordLocked,
      failed: r.FailedPasswordCount,
      version: r.Version,
    };
  };

  it('sign-in state never moves the ETag: wrong passwords, the lock, a sign-in, logout, Revoke Sessions, Unlock', async () => {
    const u = await user();
    const read = await etag(u.guid);
    for (let i = 0; i < 3; i++) await wrong(u.name);
    const s = await signIn(t.url, u.name, u.password);
    await request(t.url)
      .post('/api/Authentication/Logout')
      .set('Authorization', `Bearer ${s.token}`)
      .expect(200);
    for (let i = 0; i < 4; i++) await wrong(u.name); // locked
    expect((await row(u.guid)).PasswordLocked).toBe(true);
    expect(await etag(u.guid)).toBe(read);
    await act('RevokeTokens', u.guid, read).expect(204);
    const unlocked = await act('Unlock', u.guid, read).expect(200);
    expect(unlocked.headers.etag).toBe(read);
    // the administrator's edit made with what they read is applied, and moves the ETag
    const edited = await putEmail(u.guid, read).expect(200);
    expect(edited.headers.etag).not.toBe(read);
  });

  it.each(ACTIONS)(
    'POST %s with a stale If-Match: 412 problem, nothing written; with the current one: applied',
    async (action) => {
      const u = await user();
      await signIn(t.url, u.name, u.password); // a session to end, a TokensValidFrom to move
      for (let i = 0; i < 4; i++) await wrong(u.name); // a lock to lift
      const stale = await etag(u.guid);
      await putEmail(u.guid, stale).expect(200);
      const before = await state(u.guid);
      const refused = await act(action, u.guid, stale);
      expect(refused.status).toBe(412);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.body).toMatchObject({ status: 412, type: 'urn:problem-type:precondition-failed' });
      // a malformed or weak tag names no version either
      await act(action, u.guid, `W/${stale}`).expect(412);
      expect(await state(u.guid)).toEqual(before);
      const current = await etag(u.guid);
      const applied = await act(action, u.guid, `"999", ${current}`);
      expect(applied.status).toBe(action === 'RevokeTokens' ? 204 : 200);
      expect(await state(u.guid)).not.toEqual(before);
    },
  );

  it.each(ACTIONS)(
    'deterministic: POST %s read at the current version, the record edited before it writes: 412, nothing written (the version is in the statement)',
    async (action) => {
      const u = await user();
      await signIn(t.url, u.name, u.password);
      for (let i = 0; i < 4; i++) await wrong(u.name);
      const current = await etag(u.guid);
      const gate = gateAfter(t.app.get(IdentityRepository), 'findUserByGuid');
      const held = act(action, u.guid, current).then((r) => r);
      await gate.reached; // read, and its If-Match found current
      await putEmail(u.guid, current).expect(200);
      const before = await state(u.guid);
      gate.open();
      const answer = await held;
      expect(answer.status).toBe(412);
      expect(await state(u.guid)).toEqual(before);
    },
  );

  it('the document declares If-Match and 412 on each POST action, as on PUT', () => {
    const doc = createOpenApiDocument(t.app) as unknown as {
      paths: Record<
        string,
        Record<
          string,
          { operationId: string; parameters?: { in: string; name: string }[]; responses: object }
        >
      >;
    };
    for (const [path, operationId] of [
      ...Object.values(OPERATIONS),
      ['/api/UserRegistry/{guid}', 'updateUser'],
    ]) {
      const op = doc.paths[path].post ?? doc.paths[path].put;
      expect(op.operationId).toBe(operationId);
      expect(op.parameters).toEqual(
        expect.arrayContaining([expect.objectContaining({ in: 'header', name: 'If-Match' })]),
      );
      expect(Object.keys(op.responses)).toContain('412');
    }
  });

  it(`stress: ${STRESS} POST Deactivate with a stale If-Match racing one with the current: all ${STRESS} refused, exactly the fresh one applied`, async () => {
    const u = await user();
    const stale = await etag(u.guid);
    await putEmail(u.guid, stale).expect(200);
    const current = await etag(u.guid);
    const answers = await Promise.all([
      ...Array.from({ length: STRESS / 2 }, () => act('Deactivate', u.guid, stale)),
      act('Deactivate', u.guid, current),
      ...Array.from({ length: STRESS / 2 }, () => act('Deactivate', u.guid, stale)),
    ]);
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 412)).toHaveLength(STRESS);
    expect(statuses[STRESS / 2]).toBe(200);
    const after = await row(u.guid);
    expect(after.Active).toBe(false);
    expect(`"${after.Version}"`).toBe(answers[STRESS / 2].headers.etag);
  });

  it.each(['Deactivate', 'ResetPassword'] as const)(
    `stress: ${STRESS} concurrent POST %s naming the same current version: exactly one applies, the others are told 412`,
    async (action) => {
      const u = await user();
      const current = await etag(u.guid);
      const answers = await Promise.all(Array.from({ length: STRESS }, () => act(action, u.guid, current)));
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 412)).toHaveLength(STRESS - 1);
      expect((await row(u.guid)).Version).toBe(Number(current.replace(/"/g, '')) + 1);
    },
  );
});
