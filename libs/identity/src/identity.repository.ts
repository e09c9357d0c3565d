import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, IsNull, Repository, type WhereExpressionBuilder } from 'typeorm';
import { findInChunks } from '@app/database';
import { RoleRegistry, RoleRegistryPermission, TenantRegistry, UserRegistry } from './entities';

const SESSION_USER_SQL = `SELECT u."Id" AS "id", u."Guid" AS "guid", u."Name" AS "name",
  u."TenantRegistryId" AS "tenantId", t."Guid" AS "tenantGuid", t."Landlord" AS "landlord",
  u."Active" AS "active", u."PasswordLocked" AS "passwordLocked", u."TokensValidFrom" AS "tokensValidFrom",
  p."PermissionId" AS "permissionId"
FROM "UserRegistry" u
INNER JOIN "TenantRegistry" t ON t."Id" = u."TenantRegistryId" AND t."DeletedDate" IS NULL
LEFT JOIN "RoleRegistryPermission" p ON p."RoleRegistryId" = u."RoleRegistryId"
WHERE u."Guid" = :userGuid AND u."DeletedDate" IS NULL`;

interface RawSessionRow {
  id: number | string;
  guid: string;
  name: string;
  tenantId: number | string;
  tenantGuid: string;
  landlord: unknown;
  active: unknown;
  passwordLocked: unknown;
  tokensValidFrom: unknown;
  permissionId: number | string | null;
}

export interface SessionUserRow {
  id: number;
  guid: string;
  name: string;
  tenantId: number;
  tenantGuid: string;
  landlord: boolean;
  active: boolean;
  passwordLocked: boolean;
  /** ms since epoch */
  tokensValidFrom: number | null;
  permissionIds: number[];
}

/**
 * A completing UPDATE's single-use condition: when `expected` is given, LastLoginDate must still be it (null:
 * never signed in), so of two completions of one pending sign-in only the first changes a row.
 */
function whereLastLogin<Q extends WhereExpressionBuilder>(query: Q, expected: Date | null | undefined): Q {
  if (expected === null) query.andWhere('"LastLoginDate" IS NULL');
  else if (expected !== undefined)
    query.andWhere('"LastLoginDate" = :expectedLastLogin', { expectedLastLogin: expected });
  return query;
}

/** Booleans come back as true/false (PostgreSQL, SQL Server) or 1/0 (SQLite). */
function rawBoolean(value: unknown): boolean {
  return value === true || value === 1 || value === '1';
}

/** Instants come back as Date (PostgreSQL, SQL Server) or as TypeORM's UTC text (SQLite). */
function rawInstant(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'string') {
    const ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value.replace(' ', 'T')}Z`);
    return Number.isNaN(ms) ? null : ms;
  }
  return null;
}

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
    return findInChunks(ids, (chunk) => this.users.find({ where: { Id: In(chunk) } }));
  }
  findUserByNormalizedName(normalizedName: string): Promise<UserRegistry | null> {
    return this.users.findOne({ where: { NormalizedName: normalizedName, DeletedDate: IsNull() } });
  }
  saveUser(u: UserRegistry): Promise<UserRegistry> {
    return this.users.save(u);
  }

  // ---- sign-in and sessions (atomic, conditional updates: concurrent attempts never lose a count)

  /**
   * One more consecutive wrong password, in ONE statement, only while the account is not locked; the
   * increment that makes the count exceed `allowed` also sets PasswordLocked. Returns false when the
   * account was already locked (nothing counted).
   */
  async countFailedPassword(userId: number, allowed: number, now: Date): Promise<boolean> {
    const result = await this.users
      .createQueryBuilder()
      .update(UserRegistry)
      .set({
        FailedPasswordCount: () => '"FailedPasswordCount" + 1',
        PasswordLocked: () =>
          'CASE WHEN "FailedPasswordCount" + 1 > :allowed THEN :locked ELSE "PasswordLocked" END',
        PasswordLockedDate: () =>
          'CASE WHEN "FailedPasswordCount" + 1 > :allowed THEN :now ELSE "PasswordLockedDate" END',
      })
      .where('"Id" = :userId AND "PasswordLocked" = :unlocked AND "DeletedDate" IS NULL', {
        userId,
        unlocked: false,
      })
      .setParameters({ allowed, locked: true, now })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /**
   * A successful sign-in: resets the count and stamps LastLoginDate, only if the user can still sign in
   * (active, not locked, not deleted) and the password is still the one verified. False otherwise.
   */
  async completeSignIn(
    userId: number,
    verifiedHash: string,
    now: Date,
    /** When given, LastLoginDate must still be this (null: never signed in): a pending sign-in completes once. */
    expectedLastLogin?: Date | null,
  ): Promise<boolean> {
    const query = this.users
      .createQueryBuilder()
      .update(UserRegistry)
      .set({ FailedPasswordCount: 0, LastLoginDate: now })
      .where(
        '"Id" = :userId AND "PasswordHash" = :verifiedHash AND "Active" = :active AND "PasswordLocked" = :unlocked AND "DeletedDate" IS NULL',
        { userId, verifiedHash, active: true, unlocked: false },
      );
    const result = await whereLastLogin(query, expectedLastLogin).execute();
    return (result.affected ?? 0) > 0;
  }

  /**
   * Sign-in by an identity another scheme proved (OpenID Connect, Negotiate): LastLoginDate, only while the
   * user is still Active, not Password Locked and not deleted. The password and its failure count are not
   * touched: no password was proven. `expectedLastLogin` as in completeSignIn (a passcode token's single use).
   */
  async completeExternalSignIn(userId: number, now: Date, expectedLastLogin?: Date | null): Promise<boolean> {
    const query = this.users
      .createQueryBuilder()
      .update(UserRegistry)
      .set({ LastLoginDate: now })
      .where(
        '"Id" = :userId AND "Active" = :active AND "PasswordLocked" = :unlocked AND "DeletedDate" IS NULL',
        { userId, active: true, unlocked: false },
      );
    const result = await whereLastLogin(query, expectedLastLogin).execute();
    return (result.affected ?? 0) > 0;
  }

  /** Replaces the password (if it is still `oldHash`), ends every earlier session and signs in. */
  async replacePassword(
    userId: number,
    oldHash: string,
    newHash: string,
    now: Date,
    updatedUser: string,
  ): Promise<boolean> {
    const result = await this.users
      .createQueryBuilder()
      .update(UserRegistry)
      .set({
        PasswordHash: newHash,
        PasswordCreatedDate: now,
        PasswordExpiryDate: null,
        TokensValidFrom: now,
        FailedPasswordCount: 0,
        LastLoginDate: now,
        UpdatedDate: now,
        UpdatedUser: updatedUser,
      })
      .where(
        '"Id" = :userId AND "PasswordHash" = :oldHash AND "Active" = :active AND "PasswordLocked" = :unlocked AND "DeletedDate" IS NULL',
        { userId, oldHash, active: true, unlocked: false },
      )
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /**
   * Moves TokensValidFrom forward to `validFrom`, never back: ONE conditional UPDATE, so two concurrent
   * revocations cannot lower it. False when it was already at or past `validFrom` (or the user is gone).
   */
  async moveTokensValidFrom(userId: number, validFrom: Date): Promise<boolean> {
    const result = await this.users
      .createQueryBuilder()
      .update(UserRegistry)
      .set({ TokensValidFrom: validFrom })
      .where('"Id" = :userId AND ("TokensValidFrom" IS NULL OR "TokensValidFrom" < :validFrom)', {
        userId,
        validFrom,
      })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /**
   * The session check of EVERY authenticated JWT request, so it is one parameterised statement (user, tenant
   * and the role's permissions, one row per permission) instead of several ORM queries. Deleted users and
   * users of deleted tenants give no rows.
   */
  async findSessionUser(userGuid: string): Promise<SessionUserRow | null> {
    const [sql, parameters] = this.dataSource.driver.escapeQueryWithParameters(SESSION_USER_SQL, {
      userGuid,
    });
    const rows: RawSessionRow[] = await this.dataSource.query(sql, parameters);
    if (!rows.length) return null;
    const first = rows[0];
    return {
      id: Number(first.id),
      guid: first.guid,
      name: first.name,
      tenantId: Number(first.tenantId),
      tenantGuid: first.tenantGuid,
      landlord: rawBoolean(first.landlord),
      active: rawBoolean(first.active),
      passwordLocked: rawBoolean(first.passwordLocked),
      tokensValidFrom: rawInstant(first.tokensValidFrom),
      permissionIds: rows.filter((r) => r.permissionId !== null).map((r) => Number(r.permissionId)),
    };
  }
}
