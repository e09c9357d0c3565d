import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Actor, ALL_PERMISSIONS, PERMISSION_NAMES, Permission } from '@app/access';
import { Clock } from '@app/runtime';
import { type IfMatch, type Page, pageOf, versionedWrite } from '@app/http-edge';
import { Problems } from '@app/problems';
import { AdminEvents, fieldChanges, recordChange } from '@app/audit';
import type { PageRequest } from '@app/database';
import type { CreateRoleDto, PermissionDto, RoleDto, UpdateRoleDto } from './dto/identity.dto';
import { RoleRegistry, TenantRegistry } from './entities';
import { IdentityEvents } from './identity-events';
import { IdentityRepository } from './identity.repository';
import { toRoleDto } from './mappers';
import { assertHoldsEvery } from './permission-rule';

/** A role's permissions by name, in permission order: how the trail shows them (AdminEvent). */
function permissionNames(ids: readonly number[]): string {
  return [...new Set(ids)]
    .sort((a, b) => a - b)
    .map((id) => PERMISSION_NAMES[id as Permission] ?? String(id))
    .join(', ');
}

/** Roles belong to one tenant. A tenant administrator sees only their tenant's; the landlord sees all. */
@Injectable()
export class RoleService {
  constructor(
    private readonly repo: IdentityRepository,
    private readonly clock: Clock,
    private readonly events: IdentityEvents,
    private readonly trail: AdminEvents,
  ) {}

  permissions(): PermissionDto[] {
    return ALL_PERMISSIONS.map((id) => ({ id, name: PERMISSION_NAMES[id] }));
  }

  /** The role (with its version, for versionedWrite) and its tenant. */
  private async visibleRole(
    actor: Actor,
    guid: string,
  ): Promise<{ role: RoleRegistry; tenant: TenantRegistry; Version: number }> {
    const role = await this.repo.findRoleByGuid(guid);
    if (!role || (!actor.landlord && role.TenantRegistryId !== actor.tenantId))
      throw Problems.notFound('role');
    const tenant = await this.repo.findTenantById(role.TenantRegistryId);
    if (!tenant) throw Problems.notFound('role');
    return { role, tenant, Version: role.Version };
  }

  private async dto(role: RoleRegistry, tenantGuid: string): Promise<RoleDto> {
    const [perms, users] = await Promise.all([
      this.repo.permissionsOf([role.Id]),
      this.repo.countActiveUsersOfRole(role.Id),
    ]);
    return toRoleDto(role, tenantGuid, perms.get(role.Id) ?? [], users);
  }

  /** The roles the actor may see, a page of them when asked (null: the whole list). */
  async list(actor: Actor, page: PageRequest | null = null): Promise<Page<RoleDto>> {
    const rows = await this.repo.pageRoles(actor.landlord ? undefined : actor.tenantId, page);
    return pageOf(rows, async (roles) => {
      const ids = roles.map((r) => r.Id);
      const [perms, users] = await Promise.all([
        this.repo.permissionsOf(ids),
        this.repo.countUsersOfRoles(ids),
      ]);
      const tenantIds = [...new Set(roles.map((r) => r.TenantRegistryId))];
      const tenants = new Map((await this.repo.findTenantsByIds(tenantIds)).map((t) => [t.Id, t.Guid]));
      return roles.map((r) =>
        toRoleDto(r, tenants.get(r.TenantRegistryId) ?? '', perms.get(r.Id) ?? [], users.get(r.Id) ?? 0),
      );
    });
  }

  async get(actor: Actor, guid: string): Promise<RoleDto> {
    const { role, tenant } = await this.visibleRole(actor, guid);
    return this.dto(role, tenant.Guid);
  }

  async create(actor: Actor, dto: CreateRoleDto): Promise<RoleDto> {
    let tenantId = actor.tenantId;
    let tenantGuid = actor.tenantGuid;
    if (dto.tenantGuid && dto.tenantGuid !== actor.tenantGuid) {
      const tenant = actor.landlord ? await this.repo.findTenantByGuid(dto.tenantGuid) : null;
      if (!tenant)
        throw Problems.unprocessable('tenantGuid', 'tenantGuid names no tenant you can create a role in.');
      tenantId = tenant.Id;
      tenantGuid = tenant.Guid;
    }
    const permissions = [...new Set<Permission>(dto.permissions)].sort((a, b) => a - b);
    assertHoldsEvery(actor, permissions, 'You cannot create this role: it');
    const created = (role: RoleDto) => ({
      target: { guid: role.guid, name: role.name, tenantId },
      changes: fieldChanges(null, { Name: role.name, Permissions: permissionNames(permissions) }),
    });
    return this.trail.applied(actor, created, (t) =>
      this.repo.in(t).transaction(async (tx) => {
        const role = await tx.insertRole(
          Object.assign(new RoleRegistry(), {
            Guid: randomUUID(),
            TenantRegistryId: tenantId,
            Name: dto.name.trim(),
            CreatedDate: new Date(this.clock.now()),
            CreatedUser: actor.userName,
            UpdatedDate: null,
            UpdatedUser: null,
            DeletedDate: null,
            DeletedUser: null,
          }),
        );
        await tx.replacePermissions(role.Id, permissions);
        return toRoleDto(role, tenantGuid, permissions, 0);
      }),
    );
  }

  /**
   * The permissions of a role the actor may edit or delete: one that holds no permission the actor lacks
   * (nobody hands out a permission they do not hold), else the 403.
   */
  private async editablePermissions(actor: Actor, role: RoleRegistry): Promise<number[]> {
    const held = (await this.repo.permissionsOf([role.Id])).get(role.Id) ?? [];
    assertHoldsEvery(actor, held, 'You cannot change this role: it');
    return held;
  }

  /**
   * Only the columns the request changes, so a concurrent change is never written back; with If-Match only to the version named (412
   * otherwise: versionedWrite). The cached API keys of its users follow before the answer. Neither the role as
   * it is nor as it would be may hold a permission the actor lacks.
   */
  async update(actor: Actor, guid: string, dto: UpdateRoleDto, ifMatch?: IfMatch): Promise<RoleDto> {
    if (dto.permissions !== undefined)
      assertHoldsEvery(actor, dto.permissions, 'You cannot give this role these permissions: the change');
    const answer = await versionedWrite(
      ifMatch,
      () => this.visibleRole(actor, guid),
      async ({ role, tenant }, version) => {
        const held = await this.editablePermissions(actor, role);
        const change = {
          target: { guid: role.Guid, name: role.Name, tenantId: role.TenantRegistryId },
          changes: fieldChanges(
            { Name: role.Name, Permissions: permissionNames(held) },
            {
              ...(dto.name !== undefined ? { Name: dto.name.trim() } : {}),
              ...(dto.permissions !== undefined ? { Permissions: permissionNames(dto.permissions) } : {}),
            },
          ),
        };
        return this.trail.applied(actor, change, (t) =>
          this.repo.in(t).transaction(async (tx) => {
            const changes = {
              ...(dto.name !== undefined ? { Name: dto.name.trim() } : {}),
              UpdatedDate: new Date(this.clock.now()),
              UpdatedUser: actor.userName,
            };
            if (!(await tx.updateRole(role.Id, changes, version))) return undefined;
            if (dto.permissions !== undefined)
              await tx.replacePermissions(
                role.Id,
                [...new Set<Permission>(dto.permissions)].sort((a, b) => a - b),
              );
            const [written, perms] = await Promise.all([
              tx.findRoleById(role.Id),
              tx.permissionsOf([role.Id]),
            ]);
            const users = await tx.countActiveUsersOfRole(role.Id);
            return {
              dto: toRoleDto(written ?? role, tenant.Guid, perms.get(role.Id) ?? [], users),
              roleId: role.Id,
            };
          }),
        );
      },
    );
    if (dto.permissions !== undefined)
      await this.events.emitAndWait('principalsChanged', {
        userIds: await this.repo.userIdsOf({ roleId: answer.roleId }),
        ceiling: [...dto.permissions],
      });
    return answer.dto;
  }

  async delete(actor: Actor, guid: string, ifMatch?: IfMatch): Promise<void> {
    await versionedWrite(
      ifMatch,
      () => this.visibleRole(actor, guid),
      async ({ role }, version) => {
        await this.editablePermissions(actor, role);
        if ((await this.repo.countActiveUsersOfRole(role.Id)) > 0)
          throw Problems.conflict('The role still has users; move them to another role first.');
        const deleted = await this.trail.applied(
          actor,
          recordChange(role.TenantRegistryId, role, null),
          (tx) =>
            this.repo.in(tx).softDeleteRole(role.Id, new Date(this.clock.now()), actor.userName, version),
        );
        return deleted || undefined;
      },
    );
  }
}
