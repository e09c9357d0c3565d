import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import {
  DataSource,
  In,
  IsNull,
  Raw,
  Repository,
  type FindOptionsWhere,
  type WhereExpressionBuilder,
} from 'typeorm';
import { isPermission, type Permission } from '@app/common';
import type { DatabaseProvider } from '@app/config';
import {
  findInChunks,
  findPage,
  inTransaction,
  scoped,
  preparedRead,
  providerOf,
  rawBoolean,
  rawInstant,
  type PageRequest,
  type PreparedRead,
  type RowPage,
} from '@app/database';
import { RoleRegistry, RoleRegistryPermission, TenantRegistry, UserRegistry } from './entities';

/**
 * The session check's statement: the user, the tenant, and the role's permissions aggregated into one text
 * column by a correlated subquery (one row; on SQLite about half the time of a join answering a row per
 * permission). The aggregate is the only dialect-specific part.
 */
function sessionUserSql(provider: DatabaseProvider): string {
  const list = {
    sqlite: `group_concat(p."PermissionId", ',')`,
    postgres: `string_agg(p."PermissionId"::text, ',')`,
    mssql: `STRING_AGG(CAST(p."PermissionId" AS varchar(11)), ',')`,
  }[provider];
  return `SELECT u."Id" AS "id", u."Guid" AS "guid", u."Name" AS "name",
  u."TenantRegistryId" AS "tenantId", t."Guid" AS "tenantGuid", t."Landlord" AS "landlord",
  u."Active" AS "active", u."PasswordLocked" AS "passwordLocked", u."TokensValidFrom" AS "tokensValidFrom",
  (SELECT ${list} FROM "RoleRegistryPermission" p WHERE p."RoleRegistryId" = u."RoleRegistryId") AS "permissionIds"
FROM "UserRegistry" u
INNER JOIN "TenantRegistry" t ON t."Id" = u."TenantRegistryId" AND t."DeletedDate" IS NULL
WHERE u."Guid" = :userGuid AND u."DeletedDate" IS NULL`;
}

/** The columns of sessionUserSql, in its order. */
const SESSION_USER_COLUMNS = [
  'id',
  'guid',
  'name',
  'tenantId',
  'tenantGuid',
  'landlord',
  'active',
  'passwordLocked',
  'tokensValidFrom',
  'permissionIds',
] as const;

/** The aggregated permission list ("1,2,7"; null or empty for a role without permissions). */
function permissionList(value: string): number[] {
  return value === '' ? [] : value.split(',').map(Number);
}

/**
 * The permission sets of the session check, one per aggregated list seen: roles are few, so a set is built
 * once and shared by every request of every user whose role has that list (Actor.permissions is read-only).
 * Kept up to PERMISSION_SETS_KEPT lists, then started again.
 */
const permissionSets = new Map<string, ReadonlySet<Permission>>();
const PERMISSION_SETS_KEPT = 1000;

function permissionSetOf(value: unknown): ReadonlySet<Permission> {
  const list = typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
  let set = permissionSets.get(list);
  if (!set) {
    if (permissionSets.size >= PERMISSION_SETS_KEPT) permissionSets.clear();
    set = new Set(permissionList(list).filter(isPermission));
    permissionSets.set(list, set);
  }
  return set;
}

/** The session check's row (sessionUserSql's columns, in order), or null when there is none. */
function sessionUserOf(rows: unknown[][]): SessionUser | null {
  if (!rows.length) return null;
  const [
    id,
    guid,
    name,
    tenantId,
    tenantGuid,
    landlord,
    active,
    passwordLocked,
    tokensValidFrom,
    permissionIds,
  ] = rows[0];
  return {
    id: Number(id),
    guid: String(guid),
    name: String(name),
    tenantId: Number(tenantId),
    tenantGuid: String(tenantGuid),
    landlord: rawBoolean(landlord),
    active: rawBoolean(active),
    passwordLocked: rawBoolean(passwordLocked),
    tokensValidFrom: rawInstant(tokensValidFrom),
    permissions: permissionSetOf(permissionIds),
  };
}

/** The session check's user (read on every authenticated JWT request): one type, from the repository up. */
export interface SessionUser {
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
  /** The role's permissions (unknown ids left out). */
  permissions: ReadonlySet<Permission>;
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

/** What an administrator's password reset writes besides the lockout and TokensValidFrom. */
export interface PasswordResetWrite {
  passwordHash: string;
  /** Expired at once (the user must choose their own at next sign-in), or no expiry. */
  expired: boolean;
  /** Unchanged when undefined. */
  wirePasswordHash: boolean | undefined;
  updatedUser: string;
}

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

/** TokensValidFrom moved to :at, never back: dialect-neutral (no GREATEST: SQLite lacks it, SQL Server 2019 too). */
const FORWARD_TOKENS_VALID_FROM =
  'CASE WHEN "TokensValidFrom" IS NULL OR "TokensValidFrom" < :at THEN :at ELSE "TokensValidFrom" END';

/** Every session's start instant is the LastLoginDate its completion wrote: none started at or after :at. */
const NO_SESSION_SINCE = '("LastLoginDate" IS NULL OR "LastLoginDate" < :at)';

/** Sign-ins kept completing in the instants a password write chose (practically never): try again. */
export class SignInRaceError extends Error {
  constructor() {
    super('Sessions kept starting while the password was being replaced; try again.');
  }
}

function affected(result: { affected?: number | null }): boolean {
  return (result.affected ?? 0) > 0;
}

/** The condition of a write that applies only to the row version read (If-Match); none when undefined. */
function atVersion(version: number | undefined): { Version?: number } {
  return version === undefined ? {} : { Version: version };
}

/** Every query of the identity feature. Soft-deleted rows are invisible unless asked for. */
@Injectable()
export class IdentityRepository {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectRepository(TenantRegistry) private readonly tenantTable: Repository<TenantRegistry>,
    @InjectRepository(RoleRegistry) private readonly roleTable: Repository<RoleRegistry>,
    @InjectRepository(RoleRegistryPermission)
    private readonly rolePermissionTable: Repository<RoleRegistryPermission>,
    @InjectRepository(UserRegistry) private readonly userTable: Repository<UserRegistry>,
  ) {}

  // Each table as the running transaction sees it (inTransaction: a change with its audit row), else as is.
  private get tenants() {
    return scoped(this.tenantTable);
  }
  private get roles() {
    return scoped(this.roleTable);
  }
  private get rolePermissions() {
    return scoped(this.rolePermissionTable);
  }
  private get users() {
    return scoped(this.userTable);
  }

  /** The statement of findSessionUser, prepared once (the read of every authenticated JWT request). */
  private sessionUserRead?: PreparedRead;

  /** Runs `work` in one transaction (joining the running one, if any: inTransaction). */
  transaction<T>(work: (repo: IdentityRepository) => Promise<T>): Promise<T> {
    return inTransaction(this.dataSource, () => work(this));
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
  /** A new user. Existing users change only through the column-wise, conditional updates below. */
  insertUser(u: UserRegistry): Promise<UserRegistry> {
    return this.users.save(u);
  }
  /**
   * An administrator's edit of a live user: writes only the columns given, never TokensValidFrom, the
   * password or the lockout, so a concurrent revocation, logout or lockout is never undone by a stale copy
   * of the row (security issue 13). False when the user is gone (deleted meanwhile) or, given `version`, no
   * longer at that version.
   */
  async updateUser(userId: number, changes: UserChanges, version?: number): Promise<boolean> {
    return affected(
      await this.users.update({ Id: userId, DeletedDate: IsNull(), ...atVersion(version) }, changes),
    );
  }
  /**
   * A deactivation (security issue 37): the edit's columns with Active false AND TokensValidFrom moved forward,
   * in ONE statement per attempt, so a later reactivation (a stale edit carrying `active: true` included) never
   * brings an earlier session back. Like a password write it applies only while no session started at or after
   * its instant (sessionsEndAt). Returns that instant, or null when the user is gone.
   */
  deactivateUser(userId: number, changes: UserChanges, at: Date, version?: number): Promise<Date | null> {
    const atVersionSql = version === undefined ? '' : ' AND "Version" = :version';
    return this.sessionsEndAt(
      userId,
      at,
      async (instant) =>
        affected(
          await this.users
            .createQueryBuilder()
            .update(UserRegistry)
            .set({ ...changes, Active: false, TokensValidFrom: () => FORWARD_TOKENS_VALID_FROM })
            .where(`"Id" = :userId AND "DeletedDate" IS NULL AND ${NO_SESSION_SINCE}${atVersionSql}`, {
              userId,
              at: instant,
              version,
            })
            .execute(),
        ),
      // given `version` (If-Match), a row that moved on is not written again at a later instant
      (user) => version === undefined || user.Version === version,
    );
  }

  /**
   * An administrator's Unlock. A locked user's lock, failure count and sessions end in ONE statement
   * (TokensValidFrom forward to `now`: whoever held a session before the lock does not get it back; while locked
   * no session can start). A user who is not locked only has the failure count cleared. 'cut', 'cleared', or
   * null when the user is gone. (The automatic lockout itself only hides sessions: countFailedPassword.)
   */
  async unlockUser(userId: number, now: Date, by: string): Promise<'cut' | 'cleared' | null> {
    const unlocked = {
      PasswordLocked: false,
      PasswordLockedDate: null,
      FailedPasswordCount: 0,
      UpdatedDate: now,
      UpdatedUser: by,
    };
    const cut = await this.users
      .createQueryBuilder()
      .update(UserRegistry)
      .set({ ...unlocked, TokensValidFrom: () => FORWARD_TOKENS_VALID_FROM })
      .where('"Id" = :userId AND "DeletedDate" IS NULL AND "PasswordLocked" = :locked', {
        userId,
        locked: true,
        at: now,
      })
      .execute();
    if (affected(cut)) return 'cut';
    return (await this.updateUser(userId, unlocked)) ? 'cleared' : null;
  }
  async softDeleteUser(userId: number, when: Date, by: string, version?: number): Promise<boolean> {
    return affected(
      await this.users.update(
        { Id: userId, DeletedDate: IsNull(), ...atVersion(version) },
        { DeletedDate: when, DeletedUser: by },
      ),
    );
  }

  /**
   * An administrator's password reset, in ONE statement: the new hash, the lockout cleared, and
   * TokensValidFrom moved forward (never back) to the reset's instant. Returns that instant, or null when the
   * user is gone. See sessionsEndAt for why the instant may end up later than `at`.
   */
  resetPassword(userId: number, reset: PasswordResetWrite, at: Date): Promise<Date | null> {
    return this.sessionsEndAt(userId, at, async (instant) =>
      affected(
        await this.users
          .createQueryBuilder()
          .update(UserRegistry)
          .set({
            PasswordHash: reset.passwordHash,
            PasswordCreatedDate: instant,
            PasswordExpiryDate: reset.expired ? instant : null,
            ...(reset.wirePasswordHash !== undefined ? { WirePasswordHash: reset.wirePasswordHash } : {}),
            UpdatedDate: instant,
            UpdatedUser: reset.updatedUser,
            FailedPasswordCount: 0,
            PasswordLocked: false,
            PasswordLockedDate: null,
            TokensValidFrom: () => FORWARD_TOKENS_VALID_FROM,
          })
          .where(`"Id" = :userId AND "DeletedDate" IS NULL AND ${NO_SESSION_SINCE}`, { userId, at: instant })
          .execute(),
      ),
    );
  }

  /**
   * A write that ends every session started before its instant (a password replaced) must not miss one that
   * started just after the caller took the instant: a sign-in with the old password that completed in between
   * would keep a session. So each attempt is one conditional statement that applies only while no session
   * started at or after the instant (LastLoginDate, which every completion writes as its session start, is
   * before it); when one did, the next attempt takes the instant just after that session's start. Returns the
   * instant written, or null when `write` is refused for another reason (the user is gone, or `stillApplies`
   * says so: the password or state changed).
   */
  private async sessionsEndAt(
    userId: number,
    at: Date,
    write: (instant: Date) => Promise<boolean>,
    stillApplies: (user: UserRegistry) => boolean = () => true,
  ): Promise<Date | null> {
    let instant = at;
    for (let attempt = 0; attempt < 5; attempt++) {
      if (await write(instant)) return instant;
      const user = await this.findUserById(userId);
      if (!user || !stillApplies(user)) return null;
      const lastLogin = user.LastLoginDate?.getTime() ?? -Infinity;
      instant = new Date(Math.max(instant.getTime(), lastLogin + 1));
    }
    throw new SignInRaceError();
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

  /**
   * Replaces the password (if it is still `oldHash` and the user can still sign in), ends every earlier
   * session (TokensValidFrom forward, never back) and signs in, in one statement per attempt. Returns the
   * instant the new session starts (see sessionsEndAt), or null when refused.
   */
  replacePassword(
    userId: number,
    oldHash: string,
    newHash: string,
    now: Date,
    updatedUser: string,
  ): Promise<Date | null> {
    return this.sessionsEndAt(
      userId,
      now,
      async (at) =>
        affected(
          await this.users
            .createQueryBuilder()
            .update(UserRegistry)
            .set({
              PasswordHash: newHash,
              PasswordCreatedDate: at,
              PasswordExpiryDate: null,
              TokensValidFrom: () => FORWARD_TOKENS_VALID_FROM,
              FailedPasswordCount: 0,
              LastLoginDate: at,
              UpdatedDate: at,
              UpdatedUser: updatedUser,
            })
            .where(
              `"Id" = :userId AND "PasswordHash" = :oldHash AND "Active" = :active AND "PasswordLocked" = :unlocked AND "DeletedDate" IS NULL AND ${NO_SESSION_SINCE}`,
              { userId, oldHash, active: true, unlocked: false, at },
            )
            .execute(),
        ),
      (u) => u.PasswordHash === oldHash && u.Active && !u.PasswordLocked,
    );
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
    return affected(result);
  }

  /**
   * The session check of EVERY authenticated JWT request, so it is one prepared, parameterised statement (user,
   * tenant and the role's permissions in one row: sessionUserSql) instead of several ORM queries. Deleted users and
   * users of deleted tenants give no rows.
   */
  async findSessionUser(userGuid: string): Promise<SessionUser | null> {
    this.sessionUserRead ??= preparedRead(
      this.dataSource,
      'session-user',
      sessionUserSql(providerOf(this.dataSource.options.type)),
      SESSION_USER_COLUMNS,
    );
    return sessionUserOf(await this.sessionUserRead({ userGuid }));
  }
}
