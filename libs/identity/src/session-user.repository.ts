import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { isPermission, type Permission } from '@app/access';
import type { DatabaseProvider } from '@app/config';
import { preparedRead, providerOf, rawBoolean, rawInstant, type PreparedRead } from '@app/database';

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
  u."Active" AS "active", u."TokensValidFrom" AS "tokensValidFrom",
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
  const [id, guid, name, tenantId, tenantGuid, landlord, active, tokensValidFrom, permissionIds] = rows[0];
  return {
    id: Number(id),
    guid: String(guid),
    name: String(name),
    tenantId: Number(tenantId),
    tenantGuid: String(tenantGuid),
    landlord: rawBoolean(landlord),
    active: rawBoolean(active),
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
  /** ms since epoch */
  tokensValidFrom: number | null;
  /** The role's permissions (unknown ids left out). */
  permissions: ReadonlySet<Permission>;
}

/** The session check's read (IdentityRepository has the identity feature's other queries). */
@Injectable()
export class SessionUserRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The statement of findSessionUser, prepared once (the read of every authenticated JWT request). */
  private sessionUserRead?: PreparedRead;

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
