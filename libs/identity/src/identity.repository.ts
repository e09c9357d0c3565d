import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, IsNull, Repository } from 'typeorm';
import { RoleRegistry, RoleRegistryPermission, TenantRegistry, UserRegistry } from './entities';

/** Every query of the identity feature. Soft-deleted rows are invisible unless asked for. */
@Injectable()
export class IdentityRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectRepository(TenantRegistry) private readonly tenants: Repository<TenantRegistry>,
    @InjectRepository(RoleRegistry) private readonly roles: Repository<RoleRegistry>,
    @InjectRepository(RoleRegistryPermission)
    private readonly rolePermissions: Repository<RoleRegistryPermission>,
    @InjectRepository(UserRegistry) private readonly users: Repository<UserRegistry>,
  ) {}

  transaction<T>(work: (repo: IdentityRepository) => Promise<T>): Promise<T> {
    return this.dataSource.transaction((manager: EntityManager) =>
      work(
        new IdentityRepository(
          this.dataSource,
          manager.getRepository(TenantRegistry),
          manager.getRepository(RoleRegistry),
          manager.getRepository(RoleRegistryPermission),
          manager.getRepository(UserRegistry),
        ),
      ),
    );
  }

  // ---- tenants
  countTenants(): Promise<number> {
    return this.tenants.count();
  }
  listTenants(): Promise<TenantRegistry[]> {
    return this.tenants.find({ where: { DeletedDate: IsNull() }, order: { Id: 'ASC' } });
  }
  findTenantByGuid(guid: string): Promise<TenantRegistry | null> {
    return this.tenants.findOne({ where: { Guid: guid, DeletedDate: IsNull() } });
  }
  findTenantById(id: number): Promise<TenantRegistry | null> {
    return this.tenants.findOne({ where: { Id: id, DeletedDate: IsNull() } });
  }
  saveTenant(t: TenantRegistry): Promise<TenantRegistry> {
    return this.tenants.save(t);
  }

  // ---- roles
  listRoles(tenantId?: number): Promise<RoleRegistry[]> {
    return this.roles.find({
      where: { DeletedDate: IsNull(), ...(tenantId !== undefined ? { TenantRegistryId: tenantId } : {}) },
      order: { Id: 'ASC' },
    });
  }
  findRoleByGuid(guid: string): Promise<RoleRegistry | null> {
    return this.roles.findOne({ where: { Guid: guid, DeletedDate: IsNull() } });
  }
  findRoleById(id: number): Promise<RoleRegistry | null> {
    return this.roles.findOne({ where: { Id: id } });
  }
  saveRole(r: RoleRegistry): Promise<RoleRegistry> {
    return this.roles.save(r);
  }
  async permissionsOf(roleIds: number[]): Promise<Map<number, number[]>> {
    const out = new Map<number, number[]>(roleIds.map((id) => [id, []]));
    if (!roleIds.length) return out;
    const rows = await this.rolePermissions.find({
      where: { RoleRegistryId: In(roleIds) },
      order: { PermissionId: 'ASC' },
    });
    for (const r of rows) out.get(r.RoleRegistryId)?.push(r.PermissionId);
    return out;
  }
  async replacePermissions(roleId: number, permissionIds: number[]): Promise<void> {
    await this.rolePermissions.delete({ RoleRegistryId: roleId });
    if (permissionIds.length)
      await this.rolePermissions.insert(
        permissionIds.map((PermissionId) => ({ RoleRegistryId: roleId, PermissionId })),
      );
  }
  countActiveUsersOfRole(roleId: number): Promise<number> {
    return this.users.count({ where: { RoleRegistryId: roleId, DeletedDate: IsNull() } });
  }

  // ---- users
  listUsers(tenantId?: number): Promise<UserRegistry[]> {
    return this.users.find({
      where: { DeletedDate: IsNull(), ...(tenantId !== undefined ? { TenantRegistryId: tenantId } : {}) },
      order: { Id: 'ASC' },
    });
  }
  findUserByGuid(guid: string): Promise<UserRegistry | null> {
    return this.users.findOne({ where: { Guid: guid, DeletedDate: IsNull() } });
  }
  findUserById(id: number): Promise<UserRegistry | null> {
    return this.users.findOne({ where: { Id: id, DeletedDate: IsNull() } });
  }
  findUsersByIds(ids: number[]): Promise<UserRegistry[]> {
    return ids.length ? this.users.find({ where: { Id: In(ids) } }) : Promise.resolve([]);
  }
  findUserByNormalizedName(normalizedName: string): Promise<UserRegistry | null> {
    return this.users.findOne({ where: { NormalizedName: normalizedName, DeletedDate: IsNull() } });
  }
  saveUser(u: UserRegistry): Promise<UserRegistry> {
    return this.users.save(u);
  }
}
