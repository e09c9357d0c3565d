import { Injectable } from '@nestjs/common';
import { Actor, CredentialKind, Permission, isPermission } from '@app/access';
import { Problems } from '@app/problems';
import { IdentityRepository } from './identity.repository';
import { assertHoldsEvery } from './permission-rule';

/** What other features may know of users: Actors built from the database, and tenant-scoped references. */
@Injectable()
export class ActorService {
  constructor(private readonly repo: IdentityRepository) {}

  /**
   * Actors of the given users, built from their role's permissions and tenant. A user who is deleted or
   * inactive, or whose tenant is deleted, gets no Actor (absent from the map). A password lockout does not
   * count: API keys are independent of password events (spec: API keys 5; docs/decisions.md), else anybody
   * who knows a service account's name could cut its integrations with a few wrong passwords.
   */
  async actorsFor(userIds: readonly number[], credential: CredentialKind): Promise<Map<number, Actor>> {
    const out = new Map<number, Actor>();
    if (!userIds.length) return out;
    const users = await this.repo.findUsersByIds([...new Set(userIds)]);
    const usable = users.filter((u) => u.Active && u.DeletedDate === null);
    const perms = await this.repo.permissionsOf([...new Set(usable.map((u) => u.RoleRegistryId))]);
    const tenants = new Map((await this.repo.listTenants()).map((t) => [t.Id, t]));
    for (const u of usable) {
      const tenant = tenants.get(u.TenantRegistryId);
      if (!tenant) continue; // a deleted tenant's users cannot act
      out.set(u.Id, {
        userId: u.Id,
        userGuid: u.Guid,
        userName: u.Name,
        tenantId: tenant.Id,
        tenantGuid: tenant.Guid,
        landlord: tenant.Landlord,
        permissions: new Set<Permission>((perms.get(u.RoleRegistryId) ?? []).filter(isPermission)),
        credential,
      });
    }
    return out;
  }

  /** Whether the user (deleted or not) belongs to the tenant. */
  async isUserInTenant(userId: number, tenantId: number): Promise<boolean> {
    const [u] = await this.repo.findUsersByIds([userId]);
    return u?.TenantRegistryId === tenantId;
  }

  /** The guid of the user (deleted or not) when they belong to the tenant; undefined otherwise. */
  async userGuidInTenant(userId: number, tenantId: number): Promise<string | undefined> {
    const [u] = await this.repo.findUsersByIds([userId]);
    return u?.TenantRegistryId === tenantId ? u.Guid : undefined;
  }

  /**
   * A user of the caller's OWN tenant (even for the landlord), or the 404 problem used for "none". With
   * `actingOn` (an action on the user: a credential for them, Revoke Sessions), also one who holds no
   * permission the caller lacks, else the 403: nobody gets a permission they do not hold by acting as someone
   * who does, nor cuts off someone who holds more (docs/SECURITY.md, Administrators and permissions).
   */
  async userInOwnTenant(
    actor: Actor,
    userGuid: string,
    options: { actingOn?: boolean } = {},
  ): Promise<{ id: number; guid: string; name: string; Version: number }> {
    const u = await this.repo.findUserByGuid(userGuid);
    if (!u || u.TenantRegistryId !== actor.tenantId) throw Problems.notFound('user');
    if (options.actingOn) await this.assertMayActOn(actor, u.RoleRegistryId);
    return { id: u.Id, guid: u.Guid, name: u.Name, Version: u.Version };
  }

  /**
   * The 403 when the user `userId` (deleted or not) holds a permission the caller lacks: an action on them
   * (revoking their API key) is refused like every other action on such a user.
   */
  async assertMayActOnUser(actor: Actor, userId: number): Promise<void> {
    const [u] = await this.repo.findUsersByIds([userId]);
    if (u) await this.assertMayActOn(actor, u.RoleRegistryId);
  }

  private async assertMayActOn(actor: Actor, roleId: number): Promise<void> {
    assertHoldsEvery(
      actor,
      (await this.repo.permissionsOf([roleId])).get(roleId) ?? [],
      'You cannot act on this user: their role',
    );
  }
}
