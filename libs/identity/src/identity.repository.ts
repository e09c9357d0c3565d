import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, In, IsNull, MoreThan, Raw, Repository, type FindOptionsWhere } from 'typeorm';
import {
  boundTo,
  findInChunks,
  findPage,
  type PageRequest,
  type RowPage,
  type Transaction,
  type TransactionBound,
} from '@app/database';
import { RoleRegistry, RoleRegistryPermission, TenantRegistry, UserRegistry } from './entities';

/** What an administrator's edit may change (never TokensValidFrom, the password or the failure count). */
export type UserChanges = Partial<
  Pick<
    UserRegistry,
    | 'RoleRegistryId'
    | 'Email'
    | 'Active'
    | 'WirePasswordHash'
    | 'PasswordLocked'
    | 'PasswordLockedDate'
    | 'FailedPasswordCount'
    | 'UpdatedDate'
    | 'UpdatedUser'
  >
>;

/** Whether a conditional write changed a row. */
export function affected(result: { affected?: number | null }): boolean {
  return (result.affected ?? 0) > 0;
}

/** The condition of a write that applies only to the row version read (If-Match); none when undefined. */
function atVersion(version: number | undefined): { Version?: number } {
  return version === undefined ? {} : { Version: version };
}

/**
 * The identity feature's tenants, roles (with their permissions) and users: reads and the administrators'
 * column-wise writes. Soft-deleted rows are invisible unless asked for. The security-relevant writes of a user
 * are UserSecurityRepository's, the session check SessionUserRepository's.
 */
@Injectable()
export class IdentityRepository implements TransactionBound {
  /** The transaction this repository's statements run in (boundTo); none: each statement on its own. */
  readonly tx?: Transaction;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectRepository(TenantRegistry) private readonly tenants: Repository<TenantRegistry>,
    @InjectRepository(RoleRegistry) private readonly roles: Repository<RoleRegistry>,
    @InjectRepository(RoleRegistryPermission)
    private readonly rolePermissions: Repository<RoleRegistryPermission>,
    @InjectRepository(UserRegistry) private readonly users: Repository<UserRegistry>,
  ) {}

  /** This repository reading and writing in `tx` (a change with its audit row); none: itself. */
  in(tx: Transaction | undefined): IdentityRepository {
    return boundTo(this, tx);
  }

  /** Runs `work` in one transaction: this repository's own when it is bound to one (in), else a new one. */
  transaction<T>(work: (repo: IdentityRepository) => Promise<T>): Promise<T> {
    return this.tx ? work(this) : this.dataSource.transaction((tx) => work(this.in(tx)));
  }

  // ---- tenants
  countTenants(): Promise<number> {
    return this.tenants.count();
  }
  listTenants(): Promise<TenantRegistry[]> {
    return this.tenants.find({ where: { DeletedDate: IsNull() }, order: { Id: 'ASC' } });
  }
  /** The live tenants, a page of them when asked (null: all of them). */
  pageTenants(page: PageRequest | null): Promise<RowPage<TenantRegistry>> {
    return findPage(this.tenants, { DeletedDate: IsNull() }, page);
  }
  findTenantsByIds(ids: number[]): Promise<TenantRegistry[]> {
    return findInChunks(ids, (chunk) => this.tenants.find({ where: { Id: In(chunk) } }));
  }
  findTenantByGuid(guid: string): Promise<TenantRegistry | null> {
    return this.tenants.findOne({ where: { Guid: guid, DeletedDate: IsNull() } });
  }
  findTenantById(id: number): Promise<TenantRegistry | null> {
    return this.tenants.findOne({ where: { Id: id, DeletedDate: IsNull() } });
  }
  /** A new tenant. Existing tenants change only through the column-wise updates below. */
  insertTenant(t: TenantRegistry): Promise<TenantRegistry> {
    return this.tenants.save(t);
  }
  /**
   * Renames a live tenant (only these columns; its Version moves on, as in every update); false when it is gone
   * (deleted meanwhile) or, given `version`, no longer at that version.
   */
  async updateTenant(
    id: number,
    changes: Partial<Pick<TenantRegistry, 'Name'>> & Pick<TenantRegistry, 'UpdatedDate' | 'UpdatedUser'>,
    version?: number,
  ): Promise<boolean> {
    return affected(
      await this.tenants.update({ Id: id, DeletedDate: IsNull(), ...atVersion(version) }, changes),
    );
  }
  /** Soft-deletes a live tenant (only DeletedDate and DeletedUser); false when it was already gone. */
  async softDeleteTenant(id: number, when: Date, by: string, version?: number): Promise<boolean> {
    return affected(
      await this.tenants.update(
        { Id: id, DeletedDate: IsNull(), ...atVersion(version) },
        { DeletedDate: when, DeletedUser: by },
      ),
    );
  }

  // ---- roles
  listRoles(tenantId?: number): Promise<RoleRegistry[]> {
    return this.roles.find({
      where: { DeletedDate: IsNull(), ...(tenantId !== undefined ? { TenantRegistryId: tenantId } : {}) },
      order: { Id: 'ASC' },
    });
  }
  /** The live roles of a tenant (undefined: of every tenant), a page of them when asked. */
  pageRoles(tenantId: number | undefined, page: PageRequest | null): Promise<RowPage<RoleRegistry>> {
    return findPage(
      this.roles,
      { DeletedDate: IsNull(), ...(tenantId !== undefined ? { TenantRegistryId: tenantId } : {}) },
      page,
    );
  }
  /**
   * A page of the live roles of live tenants (one tenant's: tenantId) that hold none of the `refused`
   * permissions: the roles a user administrator may give. The permissions and the tenants' liveness are
   * sub-selects, so the keyset and the total count only what is offered.
   */
  pageAssignableRoles(
    tenantId: number | undefined,
    refused: readonly number[],
    page: PageRequest,
  ): Promise<RowPage<RoleRegistry>> {
    const tenant = tenantId !== undefined ? ' AND "Id" = :assignableTenantId' : '';
    const where: FindOptionsWhere<RoleRegistry> = {
      TenantRegistryId: Raw(
        (column) => `${column} IN (SELECT "Id" FROM "TenantRegistry" WHERE "DeletedDate" IS NULL${tenant})`,
        { assignableTenantId: tenantId },
      ),
      // a role without any refused permission (none refused: every role)
      DeletedDate: refused.length
        ? Raw(
            (column) =>
              `${column} IS NULL AND "Id" NOT IN (SELECT "RoleRegistryId" FROM "RoleRegistryPermission" WHERE "PermissionId" IN (:...refusedPermissions))`,
            { refusedPermissions: [...refused] },
          )
        : IsNull(),
    };
    return findPage(this.roles, where, page);
  }
  findRolesByIds(ids: number[]): Promise<RoleRegistry[]> {
    return findInChunks(ids, (chunk) => this.roles.find({ where: { Id: In(chunk) } }));
  }
  findRoleByGuid(guid: string): Promise<RoleRegistry | null> {
    return this.roles.findOne({ where: { Guid: guid, DeletedDate: IsNull() } });
  }
  findRoleById(id: number): Promise<RoleRegistry | null> {
    return this.roles.findOne({ where: { Id: id } });
  }
  /** A new role. Existing roles change only through the column-wise updates below. */
  insertRole(r: RoleRegistry): Promise<RoleRegistry> {
    return this.roles.save(r);
  }
  /** Changes a live role's name and stamp (only the columns given); false when it is gone. */
  async updateRole(
    id: number,
    changes: Partial<Pick<RoleRegistry, 'Name'>> & Pick<RoleRegistry, 'UpdatedDate' | 'UpdatedUser'>,
    version?: number,
  ): Promise<boolean> {
    return affected(
      await this.roles.update({ Id: id, DeletedDate: IsNull(), ...atVersion(version) }, changes),
    );
  }
  async softDeleteRole(id: number, when: Date, by: string, version?: number): Promise<boolean> {
    return affected(
      await this.roles.update(
        { Id: id, DeletedDate: IsNull(), ...atVersion(version) },
        { DeletedDate: when, DeletedUser: by },
      ),
    );
  }
  async permissionsOf(roleIds: number[]): Promise<Map<number, number[]>> {
    const out = new Map<number, number[]>(roleIds.map((id) => [id, []]));
    if (!roleIds.length) return out;
    // In chunks (SQL Server binds at most 2098 parameters); a role's rows all come in its own chunk.
    const rows = await findInChunks(roleIds, (chunk) =>
      this.rolePermissions.find({ where: { RoleRegistryId: In(chunk) }, order: { PermissionId: 'ASC' } }),
    );
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
  /** Ids of the live users of a role, or of every role of a tenant: who may act changes with them. */
  async userIdsOf(where: { roleId: number } | { tenantId: number }): Promise<number[]> {
    const rows = await this.users.find({
      select: { Id: true },
      where: {
        DeletedDate: IsNull(),
        ...('roleId' in where ? { RoleRegistryId: where.roleId } : { TenantRegistryId: where.tenantId }),
      },
    });
    return rows.map((u) => u.Id);
  }
  /** How many live users hold each of the roles (0 for none): whether Delete would be accepted. */
  async countUsersOfRoles(roleIds: number[]): Promise<Map<number, number>> {
    const out = new Map<number, number>(roleIds.map((id) => [id, 0]));
    const rows = await findInChunks(roleIds, (chunk) =>
      this.users
        .createQueryBuilder('u')
        .select('u.RoleRegistryId', 'roleId')
        .addSelect('COUNT(*)', 'users')
        .where({ RoleRegistryId: In(chunk), DeletedDate: IsNull() })
        .groupBy('u.RoleRegistryId')
        .getRawMany<{ roleId: number | string; users: number | string }>(),
    );
    for (const r of rows) out.set(Number(r.roleId), Number(r.users));
    return out;
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
  /**
   * The live users of a tenant (undefined: of every tenant) whose normalised name holds `search` (already
   * normalised; null: all), a page of them when asked. The normalised name is lower case on every database,
   * so the match is case-insensitive without a dialect's own folding; `%`, `_`, `\` and `[` match themselves.
   */
  pageUsers(
    tenantId: number | undefined,
    search: string | null,
    page: PageRequest | null,
  ): Promise<RowPage<UserRegistry>> {
    const where: FindOptionsWhere<UserRegistry> = {
      DeletedDate: IsNull(),
      ...(tenantId !== undefined ? { TenantRegistryId: tenantId } : {}),
      ...(search
        ? {
            NormalizedName: Raw((column) => `${column} LIKE :userSearch ESCAPE '\\'`, {
              userSearch: `%${search.replace(/[\\%_[]/g, (c) => `\\${c}`)}%`,
            }),
          }
        : {}),
    };
    return findPage(this.users, where, page);
  }
  /**
   * Users whose latest session may still be live: active, signed in after `since` (its absolute lifetime has
   * not passed; every completed sign-in writes LastLoginDate as its session's start) and not cut since by
   * TokensValidFrom (a logout, Revoke Sessions, a password change), which refuses sessions started before it.
   */
  countLiveSessions(tenantId: number | undefined, since: Date): Promise<number> {
    return this.users.count({
      where: {
        DeletedDate: IsNull(),
        Active: true,
        ...(tenantId !== undefined ? { TenantRegistryId: tenantId } : {}),
        LastLoginDate: MoreThan(since),
        TokensValidFrom: Raw((column) => `(${column} IS NULL OR ${column} <= "LastLoginDate")`),
      },
    });
  }
  findUserByGuid(guid: string): Promise<UserRegistry | null> {
    return this.users.findOne({ where: { Guid: guid, DeletedDate: IsNull() } });
  }
  findUserById(id: number): Promise<UserRegistry | null> {
    return this.users.findOne({ where: { Id: id, DeletedDate: IsNull() } });
  }
  findUsersByIds(ids: number[]): Promise<UserRegistry[]> {
    return findInChunks(ids, (chunk) => this.users.find({ where: { Id: In(chunk) } }));
  }
  findUserByNormalizedName(normalizedName: string): Promise<UserRegistry | null> {
    return this.users.findOne({ where: { NormalizedName: normalizedName, DeletedDate: IsNull() } });
  }
  /** The live user whose name looks like one with this skeleton key (nameSkeletonKey), if any. */
  findUserByNameSkeleton(nameSkeleton: string): Promise<UserRegistry | null> {
    return this.users.findOne({ where: { NameSkeleton: nameSkeleton, DeletedDate: IsNull() } });
  }
  /** Live users with WirePasswordHash (few: the flag is the exception). */
  listWirePasswordHashUsers(): Promise<Pick<UserRegistry, 'Name' | 'NormalizedName'>[]> {
    return this.users.find({
      select: { Name: true, NormalizedName: true },
      where: { DeletedDate: IsNull(), WirePasswordHash: true },
    });
  }
  /** Live users, and how many of them have WirePasswordHash. */
  async countUsers(): Promise<{ all: number; wirePasswordHash: number }> {
    const [all, wirePasswordHash] = await Promise.all([
      this.users.count({ where: { DeletedDate: IsNull() } }),
      this.users.count({ where: { DeletedDate: IsNull(), WirePasswordHash: true } }),
    ]);
    return { all, wirePasswordHash };
  }
  /**
   * A new user. Existing users change only through the column-wise, conditional updates below and
   * UserSecurityRepository's.
   */
  insertUser(u: UserRegistry): Promise<UserRegistry> {
    return this.users.save(u);
  }
  /**
   * An administrator's edit of a live user: writes only the columns given, never TokensValidFrom, the
   * password or the lockout, so a concurrent revocation, logout or lockout is never undone by a stale copy
   * of the row (two concurrent writes cannot both win). False when the user is gone (deleted meanwhile) or, given `version`, no
   * longer at that version.
   */
  async updateUser(userId: number, changes: UserChanges, version?: number): Promise<boolean> {
    return affected(
      await this.users.update({ Id: userId, DeletedDate: IsNull(), ...atVersion(version) }, changes),
    );
  }
  async softDeleteUser(userId: number, when: Date, by: string, version?: number): Promise<boolean> {
    return affected(
      await this.users.update(
        { Id: userId, DeletedDate: IsNull(), ...atVersion(version) },
        { DeletedDate: when, DeletedUser: by },
      ),
    );
  }
}
