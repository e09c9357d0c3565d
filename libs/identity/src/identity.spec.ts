import { HttpStatus } from '@nestjs/common';
import { DataSource } from 'typeorm';
import * as argon2 from 'argon2';
import { ALL_PERMISSIONS, Permission } from '@app/access';
import { ProblemException } from '@app/problems';
import { authorize } from '@app/auth';
import { createUser, landlordActor } from '../../../test/factories/identity.factory';
import { TEST_PROVIDERS } from '../../../test/support/databases';
import { startTestApp, TestApp, TEST_ADMIN_PASSWORD } from '../../../test/support/test-app';
import { RoleRegistryPermission, TenantRegistry, UserRegistry } from './entities';
import { RoleService } from './role.service';
import { TenantService } from './tenant.service';
import { UserService } from './user.service';
import { IdentityAuthService } from './identity-auth.service';

async function problemOf(p: Promise<unknown>): Promise<{ status: number; detail?: string }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ProblemException) return e.toProblem();
    throw e;
  }
  throw new Error('expected a problem');
}

describe.each(TEST_PROVIDERS)('identity on %s', (provider) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(provider);
  });
  afterAll(() => t.close());

  it('bootstraps one landlord tenant, an administrator role with every permission and an expired Administrator', async () => {
    const ds = t.app.get(DataSource);
    const tenants = await ds.getRepository(TenantRegistry).find();
    expect(tenants.filter((x) => x.Landlord)).toHaveLength(1);
    const admin = await ds.getRepository(UserRegistry).findOneByOrFail({ Name: 'Administrator' });
    expect(admin.TenantRegistryId).toBe(tenants.find((x) => x.Landlord)?.Id);
    expect(admin.PasswordExpiryDate!.getTime()).toBeLessThanOrEqual(Date.now());
    expect(admin.PasswordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await argon2.verify(admin.PasswordHash!, TEST_ADMIN_PASSWORD)).toBe(true);
    const perms = await ds
      .getRepository(RoleRegistryPermission)
      .findBy({ RoleRegistryId: admin.RoleRegistryId });
    expect(perms.map((p) => p.PermissionId).sort()).toEqual([...ALL_PERMISSIONS].sort());
  });

  it('does not bootstrap twice', async () => {
    const { BootstrapService } = await import('./bootstrap.service');
    expect(await t.app.get(BootstrapService).ensureLandlord()).toBeUndefined();
    expect(await t.app.get(DataSource).getRepository(TenantRegistry).count()).toBe(1);
  });

  describe('tenant scope', () => {
    it("a tenant administrator sees only their tenant and gets 404 for another tenant's user", async () => {
      const a = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
      const a2 = await createUser(t.app, { tenantGuid: a.tenantGuid });
      const b = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
      const users = t.app.get(UserService);

      const listed = (await users.list(a.actor)).items.map((u) => u.guid).sort();
      expect(listed).toEqual([a.guid, a2.guid].sort());
      expect((await users.get(a.actor, a2.guid)).name).toBe(a2.name);

      const notFound = await problemOf(users.get(a.actor, b.guid));
      expect(notFound.status).toBe(HttpStatus.NOT_FOUND);
      // the same answer as for a user that does not exist
      const missing = await problemOf(users.get(a.actor, '00000000-0000-4000-8000-000000000000'));
      expect(missing).toEqual(notFound);
      for (const attempt of [
        users.update(a.actor, b.guid, { active: false }),
        users.resetPassword(a.actor, b.guid, { password: 'another-password-123' }),
        users.unlock(a.actor, b.guid),
        users.deactivate(a.actor, b.guid),
        users.delete(a.actor, b.guid),
      ]) {
        expect((await problemOf(attempt)).status).toBe(404);
      }
      // b is untouched
      expect((await users.get(b.actor, b.guid)).active).toBe(true);
    });

    it("a tenant administrator cannot assign another tenant's role", async () => {
      const a = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
      const b = await createUser(t.app);
      const p = await problemOf(
        t.app
          .get(UserService)
          .create(a.actor, { name: 'x-' + a.name, roleGuid: b.roleGuid, password: 'long-enough-password' }),
      );
      // a GUID the document takes, naming no role the caller may assign (a well-formed value the service refuses: 422, not 400)
      expect(p.status).toBe(422);
    });

    it("the landlord reaches every tenant's users; only the landlord manages tenants", async () => {
      const landlord = await landlordActor(t.app);
      const b = await createUser(t.app);
      expect((await t.app.get(UserService).get(landlord, b.guid)).guid).toBe(b.guid);
      const a = await createUser(t.app, { permissions: [...ALL_PERMISSIONS] });
      expect((await problemOf(t.app.get(TenantService).list(a.actor))).status).toBe(403);
      expect((await problemOf(t.app.get(TenantService).create(a.actor, { name: 'x' }))).status).toBe(403);
    });

    it('roles are scoped like users', async () => {
      const a = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityRole] });
      const b = await createUser(t.app);
      const roles = t.app.get(RoleService);
      expect((await roles.list(a.actor)).items.map((r) => r.guid)).toEqual([a.roleGuid]);
      expect((await problemOf(roles.get(a.actor, b.roleGuid))).status).toBe(404);
      expect(
        (await problemOf(roles.create(a.actor, { name: 'r', permissions: [], tenantGuid: b.tenantGuid })))
          .status,
      ).toBe(422);
    });
  });

  describe('permissions', () => {
    it('403 with a problem naming the missing permission', () => {
      const actor = {
        userId: 1,
        userGuid: 'g',
        userName: 'u',
        tenantId: 2,
        tenantGuid: 't',
        landlord: false,
        permissions: new Set([Permission.Invoke]),
        credential: 'bearer' as const,
      };
      const e = (() => {
        try {
          authorize(actor, { kind: 'authenticated', permission: Permission.ReadWriteSecurityUser });
        } catch (err) {
          return err as ProblemException;
        }
        throw new Error('expected 403');
      })();
      expect(e.toProblem()).toMatchObject({
        status: 403,
        detail: 'This endpoint needs the permission Read Write Security User.',
      });
      expect(() => authorize(actor, { kind: 'authenticated', permission: Permission.Invoke })).not.toThrow();
      expect(() => authorize(actor, { kind: 'authenticated', landlordOnly: true })).toThrow(/landlord/);
      expect(() =>
        authorize({ ...actor, landlord: true }, { kind: 'authenticated', landlordOnly: true }),
      ).not.toThrow();
    });
  });

  it("the session check's permission sets: one shared set per role list, a new one when the list changes", async () => {
    const auth = t.app.get(IdentityAuthService);
    const permissions = [Permission.Invoke, Permission.ReadWriteSecurityUser];
    const a = await createUser(t.app, { permissions });
    const b = await createUser(t.app, { permissions });
    const none = await createUser(t.app);
    const ofA = (await auth.sessionUser(a.guid))!.permissions;
    expect([...ofA].sort()).toEqual([...permissions].sort());
    expect((await auth.sessionUser(b.guid))!.permissions).toBe(ofA);
    expect((await auth.sessionUser(none.guid))!.permissions.size).toBe(0);
    const ds = t.app.get(DataSource);
    const roleOfA = (await ds.getRepository(UserRegistry).findOneByOrFail({ Guid: a.guid })).RoleRegistryId;
    await ds
      .getRepository(RoleRegistryPermission)
      .delete({ RoleRegistryId: roleOfA, PermissionId: Permission.Invoke });
    expect([...(await auth.sessionUser(a.guid))!.permissions]).toEqual([Permission.ReadWriteSecurityUser]);
    expect([...(await auth.sessionUser(b.guid))!.permissions].sort()).toEqual([...permissions].sort());
  });

  describe('users', () => {
    it('names are unique case-insensitively among non-deleted users', async () => {
      const landlord = await landlordActor(t.app);
      const a = await createUser(t.app, { name: `Mixed-${provider}-Case` });
      const users = t.app.get(UserService);
      const dup = await problemOf(
        users.create(landlord, { name: `mixed-${provider}-CASE`, roleGuid: a.roleGuid }),
      );
      expect(dup.status).toBe(409);
      await users.delete(landlord, a.guid);
      const again = await users.create(landlord, { name: `MIXED-${provider}-case`, roleGuid: a.roleGuid });
      expect(again.guid).not.toBe(a.guid);
    });

    it('password rules: too short is a 422 naming the field (the document takes any text; the rules are settings)', async () => {
      const landlord = await landlordActor(t.app);
      const a = await createUser(t.app);
      const p = await problemOf(
        t.app.get(UserService).resetPassword(landlord, a.guid, { password: 'short' }),
      );
      expect(p).toMatchObject({
        status: 422,
        detail: 'password must be 12 to 128 characters long.',
        errors: [{ field: 'password', message: 'password must be 12 to 128 characters long.' }],
      });
    });

    it('reset password expires it by default and clears a lock; unlock clears the counter', async () => {
      const landlord = await landlordActor(t.app);
      const a = await createUser(t.app);
      const ds = t.app.get(DataSource);
      await ds
        .getRepository(UserRegistry)
        .update(
          { Guid: a.guid },
          { PasswordLocked: true, FailedPasswordCount: 4, PasswordLockedDate: new Date() },
        );
      const unlocked = await t.app.get(UserService).unlock(landlord, a.guid);
      expect(unlocked).toMatchObject({
        passwordLocked: false,
        failedPasswordCount: 0,
        passwordLockedDate: null,
      });
      const reset = await t.app
        .get(UserService)
        .resetPassword(landlord, a.guid, { password: 'a-brand-new-password' });
      expect(new Date(reset.passwordExpiryDate!).getTime()).toBeLessThanOrEqual(Date.now());
      const row = await ds.getRepository(UserRegistry).findOneByOrFail({ Guid: a.guid });
      expect(await argon2.verify(row.PasswordHash!, 'a-brand-new-password')).toBe(true);
    });

    it('deactivate, and refusing to deactivate or delete yourself', async () => {
      const a = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
      const b = await createUser(t.app, { tenantGuid: a.tenantGuid });
      expect((await t.app.get(UserService).deactivate(a.actor, b.guid)).active).toBe(false);
      expect((await problemOf(t.app.get(UserService).deactivate(a.actor, a.guid))).status).toBe(409);
      expect((await problemOf(t.app.get(UserService).delete(a.actor, a.guid))).status).toBe(409);
    });
  });
});
