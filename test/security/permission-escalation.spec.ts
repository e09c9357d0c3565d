import request from 'supertest';
import { DataSource } from 'typeorm';
import { ALL_PERMISSIONS, Permission, PERMISSION_NAMES } from '@app/access';
import { ApiKeyService, UserRegistryApiKey } from '@app/api-keys';
import { RoleService, UserRegistry } from '@app/identity';
import { createUser, CreatedUser, landlordActor } from '../factories/identity.factory';
import { signIn } from '../support/auth';
import { TEST_PROVIDERS } from '../support/databases';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * No caller may hand out a permission they do not hold — not by assigning a role
 * (to a new user, to another user, or to themselves), not by creating or editing a role, not by acting as a
 * user who holds more (a password reset, an API key) — nor change their own role. Table-driven over every
 * permission: the caller holds all the others.
 */
jest.setTimeout(180_000);

type Attempt = (c: Case) => request.Test;

interface Case {
  t: TestApp;
  caller: CreatedUser;
  token: string;
  /** Roles of the caller's tenant: every permission; only the one the caller lacks; exactly the caller's. */
  roleAll: string;
  roleMissing: string;
  roleSame: string;
  /** Another user of the tenant (role: exactly the caller's permissions), and one who holds the missing one. */
  peer: CreatedUser;
  superior: CreatedUser;
  /** An API key of the superior (its guid). */
  superiorKey: string;
  missing: Permission;
}

const as = (c: Case, method: 'post' | 'put', path: string) =>
  request(c.t.url)[method](path).set('Authorization', `Bearer ${c.token}`);

/**
 * Each way of handing out the missing permission, or of acting on a user who holds it (cutting them off
 * included: Revoke Sessions, deactivation, deletion, their API key): every one must be a 403 that changes
 * nothing.
 */
const ESCALATIONS: [string, Attempt][] = [
  [
    'PUT own roleGuid: a role with every permission',
    (c) => as(c, 'put', `/api/UserRegistry/${c.caller.guid}`).send({ roleGuid: c.roleAll }),
  ],
  [
    'PUT own roleGuid: another role with no more than the caller holds',
    (c) => as(c, 'put', `/api/UserRegistry/${c.caller.guid}`).send({ roleGuid: c.roleSame }),
  ],
  [
    'POST a user with a role holding it',
    (c) =>
      as(c, 'post', '/api/UserRegistry').send({
        name: `u-${Date.now()}-${Math.random()}`,
        roleGuid: c.roleMissing,
        password: 'A-Long-Enough-Password-1',
      }),
  ],
  [
    'PUT another user into a role holding it',
    (c) => as(c, 'put', `/api/UserRegistry/${c.peer.guid}`).send({ roleGuid: c.roleMissing }),
  ],
  [
    'POST a role holding it',
    (c) => as(c, 'post', '/api/RoleRegistry').send({ name: `r-${Date.now()}`, permissions: [c.missing] }),
  ],
  [
    'PUT it into a role',
    (c) => as(c, 'put', `/api/RoleRegistry/${c.roleSame}`).send({ permissions: [...ALL_PERMISSIONS] }),
  ],
  [
    'PUT a role that holds it (edit a superior role)',
    (c) => as(c, 'put', `/api/RoleRegistry/${c.roleMissing}`).send({ permissions: [] }),
  ],
  [
    'ResetPassword of a user who holds it',
    (c) =>
      as(c, 'post', `/api/UserRegistry/${c.superior.guid}/ResetPassword`).send({
        password: 'Taken-Over-Password-1',
        passwordExpired: false,
      }),
  ],
  [
    'PUT a user who holds it (move them away)',
    (c) => as(c, 'put', `/api/UserRegistry/${c.superior.guid}`).send({ roleGuid: c.roleSame }),
  ],
  [
    'an API key for a user who holds it',
    (c) =>
      as(c, 'post', '/api/UserRegistryApiKey').send({ userRegistryGuid: c.superior.guid, name: 'take-over' }),
  ],
  [
    'Revoke Sessions of a user who holds it',
    (c) => as(c, 'post', `/api/UserRegistry/RevokeTokens/${c.superior.guid}`),
  ],
  ['Deactivate a user who holds it', (c) => as(c, 'post', `/api/UserRegistry/${c.superior.guid}/Deactivate`)],
  ['Unlock a user who holds it', (c) => as(c, 'post', `/api/UserRegistry/${c.superior.guid}/Unlock`)],
  [
    'DELETE a user who holds it',
    (c) =>
      request(c.t.url)
        .delete(`/api/UserRegistry/${c.superior.guid}`)
        .set('Authorization', `Bearer ${c.token}`),
  ],
  [
    'revoke the API key of a user who holds it',
    (c) =>
      request(c.t.url)
        .delete(`/api/UserRegistryApiKey/${c.superiorKey}`)
        .set('Authorization', `Bearer ${c.token}`),
  ],
];

/** The same routes used within the caller's own permissions: allowed (the rule refuses only what it must). */
const WITHIN: [string, Attempt, number][] = [
  [
    'POST a user with a role of no more than the caller holds',
    (c) =>
      as(c, 'post', '/api/UserRegistry').send({
        name: `ok-${Date.now()}-${Math.random()}`,
        roleGuid: c.roleSame,
        password: 'A-Long-Enough-Password-1',
      }),
    201,
  ],
  [
    'PUT another user into such a role',
    (c) => as(c, 'put', `/api/UserRegistry/${c.peer.guid}`).send({ roleGuid: c.roleSame }),
    200,
  ],
  [
    'POST a role with the caller’s own permissions',
    (c) =>
      as(c, 'post', '/api/RoleRegistry').send({
        name: `ok-${Date.now()}`,
        permissions: ALL_PERMISSIONS.filter((p) => p !== c.missing),
      }),
    201,
  ],
  ['Revoke Sessions of a peer', (c) => as(c, 'post', `/api/UserRegistry/RevokeTokens/${c.peer.guid}`), 204],
  [
    'ResetPassword of a peer',
    (c) =>
      as(c, 'post', `/api/UserRegistry/${c.peer.guid}/ResetPassword`).send({
        password: 'A-Peer-Password-123',
        passwordExpired: true,
      }),
    200,
  ],
];

describe.each(TEST_PROVIDERS)('no caller grants a permission they do not hold (%s)', (provider) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(provider);
  });
  afterAll(() => t.close());

  /** A fresh tenant whose caller holds every permission but `missing`. */
  async function setUp(missing: Permission): Promise<Case> {
    const others = ALL_PERMISSIONS.filter((p) => p !== missing);
    const caller = await createUser(t.app, { permissions: others });
    const landlord = await landlordActor(t.app);
    const role = async (permissions: Permission[]) =>
      (
        await t.app
          .get(RoleService)
          .create(landlord, { name: `role-${Math.random()}`, permissions, tenantGuid: caller.tenantGuid })
      ).guid;
    const peer = await createUser(t.app, { tenantGuid: caller.tenantGuid, permissions: others });
    const superior = await createUser(t.app, {
      tenantGuid: caller.tenantGuid,
      permissions: [...ALL_PERMISSIONS],
    });
    const superiorKey = (
      await t.app.get(ApiKeyService).create(superior.actor, { userRegistryGuid: superior.guid, name: 'own' })
    ).guid;
    return {
      t,
      caller,
      superiorKey,
      token: (await signIn(t.url, caller.name, caller.password)).token,
      roleAll: await role([...ALL_PERMISSIONS]),
      roleMissing: await role([missing]),
      roleSame: await role(others),
      peer,
      superior,
      missing,
    };
  }

  const snapshot = async () =>
    (
      await t.app
        .get(DataSource)
        .getRepository(UserRegistry)
        .find({ order: { Id: 'ASC' } })
    ).map((u) => ({
      guid: u.Guid,
      role: u.RoleRegistryId,
      hash: u.PasswordHash,
      active: u.Active,
      deleted: u.DeletedDate,
      tokensValidFrom: u.TokensValidFrom,
    }));
  const keysRevoked = async () =>
    (await t.app.get(DataSource).getRepository(UserRegistryApiKey).find()).filter((k) => k.RevokedDate)
      .length;

  it.each(ALL_PERMISSIONS.map((p) => [PERMISSION_NAMES[p], p] as const))(
    'a caller without %s cannot hand it out in any way',
    async (_name, missing) => {
      const c = await setUp(missing);
      const [before, revokedBefore] = [await snapshot(), await keysRevoked()];
      const outcomes = [];
      for (const [what, attempt] of ESCALATIONS) outcomes.push({ what, status: (await attempt(c)).status });
      expect(outcomes).toEqual(ESCALATIONS.map(([what]) => ({ what, status: 403 })));
      expect(await snapshot()).toEqual(before);
      expect(await keysRevoked()).toBe(revokedBefore);
      // Still what it was: the tenant list stays closed to a caller without the permission.
      if (missing === Permission.ReadWriteTenant)
        await request(t.url).get('/api/TenantRegistry').set('Authorization', `Bearer ${c.token}`).expect(403);
    },
  );

  it.each(
    ALL_PERMISSIONS.filter(
      (p) => p !== Permission.ReadWriteSecurityUser && p !== Permission.ReadWriteSecurityRole,
    ).map((p) => [PERMISSION_NAMES[p], p] as const),
  )('a caller without %s still does everything within their own permissions', async (_name, missing) => {
    const c = await setUp(missing);
    const outcomes = [];
    for (const [what, attempt] of WITHIN) outcomes.push({ what, status: (await attempt(c)).status });
    expect(outcomes).toEqual(WITHIN.map(([what, , status]) => ({ what, status })));
  });

  it('nobody resets their own password through the administrative route (a session is not the password): 403, nothing changed; ChangePassword still works', async () => {
    const self = await createUser(t.app, { permissions: [...ALL_PERMISSIONS] });
    const session = (await signIn(t.url, self.name, self.password)).token;
    const key = (
      await t.app.get(ApiKeyService).create(self.actor, { userRegistryGuid: self.guid, name: 'own key' })
    ).key;
    const before = await snapshot();
    const reset = { password: 'Taken-Over-Password-1', passwordExpired: false };
    const attempts = [
      await request(t.url)
        .post(`/api/UserRegistry/${self.guid}/ResetPassword`)
        .set('Authorization', `Bearer ${session}`)
        .send(reset),
      await request(t.url)
        .post(`/api/UserRegistry/${self.guid}/ResetPassword`)
        .set('x-api-key', key)
        .send(reset),
      // PUT takes no password at all (the body is refused whole)
      await request(t.url)
        .put(`/api/UserRegistry/${self.guid}`)
        .set('Authorization', `Bearer ${session}`)
        .send({ password: reset.password }),
    ];
    expect(attempts.map((r) => r.status)).toEqual([403, 403, 400]);
    expect(attempts[0].headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(await snapshot()).toEqual(before);
    await request(t.url)
      .post('/api/Authentication/ByUserNamePassword')
      .send({ userName: self.name, password: reset.password })
      .expect(401);
    await request(t.url)
      .post('/api/Authentication/ChangePassword')
      .set('Authorization', `Bearer ${session}`)
      .send({ password: self.password, newPassword: reset.password, repeatNewPassword: reset.password })
      .expect(200);
    await signIn(t.url, self.name, reset.password);
  });

  it('AssignableRoles offers only the roles the caller may give (what the console shows is what the service allows)', async () => {
    const c = await setUp(Permission.ReadWriteModel);
    const { body } = await request(t.url)
      .get('/api/UserRegistry/AssignableRoles')
      .set('Authorization', `Bearer ${c.token}`)
      .expect(200);
    const offered = (body as { items: { guid: string }[]; next: string | null }).items.map((r) => r.guid);
    expect(body.next).toBeNull();
    expect(offered).toContain(c.roleSame);
    expect(offered).not.toContain(c.roleAll);
    expect(offered).not.toContain(c.roleMissing);
  });

  it('tenant moves: a landlord administrator without a permission cannot give it in another tenant either', async () => {
    const landlord = await landlordActor(t.app);
    const others = ALL_PERMISSIONS.filter((p) => p !== Permission.Invoke);
    const caller = await createUser(t.app, { tenantGuid: landlord.tenantGuid, permissions: others });
    const token = (await signIn(t.url, caller.name, caller.password)).token;
    const elsewhere = await createUser(t.app, { permissions: [Permission.Invoke] });
    const call = (method: 'post', path: string) =>
      request(t.url)[method](path).set('Authorization', `Bearer ${token}`);
    await call('post', '/api/RoleRegistry')
      .send({ name: 'invokers', permissions: [Permission.Invoke], tenantGuid: elsewhere.tenantGuid })
      .expect(403);
    await call('post', '/api/UserRegistry')
      .send({
        name: `moved-${Date.now()}`,
        roleGuid: elsewhere.roleGuid,
        password: 'A-Long-Enough-Password-1',
      })
      .expect(403);
  });
});
