import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Actor, ALL_PERMISSIONS } from '@app/access';
import { ClientContext, type IfMatch, type Page, pageOf, versionedWrite } from '@app/http-edge';
import { Clock } from '@app/runtime';
import { isUniqueViolation, Problems } from '@app/problems';
import { nameSkeletonKey } from '@app/input-rules';
import { AdminEvents, recordChange } from '@app/audit';
import type { PageRequest } from '@app/database';
import type {
  CreateUserDto,
  ResetPasswordDto,
  RoleChoiceDto,
  UpdateUserDto,
  UserDto,
} from './dto/identity.dto';
import { UserRegistry } from './entities';
import { IdentityEvents, PrincipalsCeiling, SessionCutCause } from './identity-events';
import { IdentityRepository, UserChanges } from './identity.repository';
import { toUserDto } from './mappers';
import { SignInRaceError, UserSecurityRepository } from './user-security.repository';
import { normalizeUserName } from './names';
import { PasswordHasher, PasswordPolicy } from './password-hasher';
import { withRoleNames } from './role-names';
import { assertHoldsEvery } from './permission-rule';

/** A name already in use, or one that looks like it (the same skeleton). */
const SAME_NAME = 'A user with this name, or a name that looks the same, already exists.';

/**
 * User administration. A tenant administrator sees and changes only their own tenant's users (another
 * tenant's user is a 404, the same answer as a user that does not exist). The landlord reaches every
 * tenant, so it can create a new tenant's first administrator.
 */
@Injectable()
export class UserService {
  constructor(
    private readonly repo: IdentityRepository,
    private readonly security: UserSecurityRepository,
    private readonly hasher: PasswordHasher,
    private readonly policy: PasswordPolicy,
    private readonly clock: Clock,
    private readonly events: IdentityEvents,
    private readonly trail: AdminEvents,
  ) {}

  private async visibleUser(actor: Actor, guid: string): Promise<UserRegistry> {
    const user = await this.repo.findUserByGuid(guid);
    if (!user || (!actor.landlord && user.TenantRegistryId !== actor.tenantId))
      throw Problems.notFound('user');
    return user;
  }

  private async dto(user: UserRegistry): Promise<UserDto> {
    const [tenant, role] = await Promise.all([
      this.repo.findTenantById(user.TenantRegistryId),
      this.roleGuid(user.RoleRegistryId),
    ]);
    return toUserDto(user, tenant?.Guid ?? '', role, this.clock.now());
  }

  private async roleGuid(roleId: number): Promise<string> {
    return (await this.repo.findRoleById(roleId))?.Guid ?? '';
  }

  private async permissionsOfRole(roleId: number): Promise<number[]> {
    return (await this.repo.permissionsOf([roleId])).get(roleId) ?? [];
  }

  /**
   * A role the actor may assign: visible to them (the user's tenant is the role's tenant), and holding no
   * permission the actor lacks (nobody hands out a permission they do not hold).
   */
  private async assignableRole(actor: Actor, roleGuid: string) {
    const role = await this.repo.findRoleByGuid(roleGuid);
    if (!role || (!actor.landlord && role.TenantRegistryId !== actor.tenantId)) {
      throw Problems.unprocessable('roleGuid', 'roleGuid does not name a role you can assign.');
    }
    assertHoldsEvery(actor, await this.permissionsOfRole(role.Id), 'You cannot assign this role: it');
    return role;
  }

  /** A visible user the actor may change or act for: one who holds no permission the actor lacks. */
  private async manageableUser(actor: Actor, guid: string): Promise<UserRegistry> {
    const user = await this.visibleUser(actor, guid);
    assertHoldsEvery(
      actor,
      await this.permissionsOfRole(user.RoleRegistryId),
      'You cannot change this user: their role',
    );
    return user;
  }

  /**
   * The users the actor may administer, those whose name holds `search` (case-insensitive; null: all), a page
   * of them when asked (null: the whole list, as it always was).
   */
  async list(
    actor: Actor,
    page: PageRequest | null = null,
    search: string | null = null,
  ): Promise<Page<UserDto>> {
    const rows = await this.repo.pageUsers(
      actor.landlord ? undefined : actor.tenantId,
      search === null ? null : normalizeUserName(search),
      page,
    );
    return pageOf(rows, async (users) => {
      const ids = (pick: (u: UserRegistry) => number) => [...new Set(users.map(pick))];
      const [tenants, roles] = await Promise.all([
        this.repo.findTenantsByIds(ids((u) => u.TenantRegistryId)),
        this.repo.findRolesByIds(ids((u) => u.RoleRegistryId)),
      ]);
      const tenantGuid = new Map(tenants.map((t) => [t.Id, t.Guid]));
      const roleGuid = new Map(roles.map((r) => [r.Id, r.Guid]));
      const now = this.clock.now();
      return users.map((u) =>
        toUserDto(u, tenantGuid.get(u.TenantRegistryId) ?? '', roleGuid.get(u.RoleRegistryId) ?? '', now),
      );
    });
  }

  /**
   * A page of the roles the actor may give a user, by name with their tenant's (its own tenant's; the
   * landlord's: every tenant's): what a user administrator chooses from without the right to manage roles.
   */
  async assignableRoles(actor: Actor, page: PageRequest): Promise<Page<RoleChoiceDto>> {
    // Only the roles this actor may hand out (none of a permission they lack): the console offers nothing the
    // service refuses.
    const refused = ALL_PERMISSIONS.filter((p) => !actor.permissions.has(p));
    const rows = await this.repo.pageAssignableRoles(
      actor.landlord ? undefined : actor.tenantId,
      refused,
      page,
    );
    return pageOf(rows, async (roles) => {
      const tenants = new Map(
        (await this.repo.findTenantsByIds([...new Set(roles.map((r) => r.TenantRegistryId))])).map((t) => [
          t.Id,
          t,
        ]),
      );
      return roles.map((r) => {
        const tenant = tenants.get(r.TenantRegistryId);
        return { guid: r.Guid, name: r.Name, tenantGuid: tenant?.Guid ?? '', tenantName: tenant?.Name ?? '' };
      });
    });
  }

  async get(actor: Actor, guid: string): Promise<UserDto> {
    return this.dto(await this.visibleUser(actor, guid));
  }

  async create(actor: Actor, dto: CreateUserDto): Promise<UserDto> {
    const role = await this.assignableRole(actor, dto.roleGuid);
    const name = dto.name.trim();
    const normalized = normalizeUserName(name);
    const skeleton = nameSkeletonKey(name);
    // One look-up of each key; the unique indexes decide a race between two creates (the catch below).
    if (
      (await this.repo.findUserByNormalizedName(normalized)) ||
      (await this.repo.findUserByNameSkeleton(skeleton))
    )
      throw Problems.conflict(SAME_NAME);
    const password =
      dto.password === undefined
        ? undefined
        : this.policy.storable(dto.password, dto.wirePasswordHash ?? false);
    const now = new Date(this.clock.now());
    const expired = dto.passwordExpired ?? true;
    const user = Object.assign(new UserRegistry(), {
      Guid: randomUUID(),
      TenantRegistryId: role.TenantRegistryId,
      RoleRegistryId: role.Id,
      Name: name,
      NormalizedName: normalized,
      NameSkeleton: skeleton,
      Email: dto.email ?? null,
      PasswordHash: password !== undefined ? await this.hasher.hash(password) : null,
      PasswordExpiryDate:
        dto.password === undefined
          ? null
          : expired
            ? now
            : dto.passwordExpiryDate
              ? new Date(dto.passwordExpiryDate)
              : null,
      PasswordCreatedDate: dto.password !== undefined ? now : null,
      FailedPasswordCount: 0,
      PasswordLocked: false,
      PasswordLockedDate: null,
      PasswordLockedUntil: null,
      PasswordLockCount: 0,
      Active: true,
      LastLoginDate: null,
      WirePasswordHash: dto.wirePasswordHash ?? false,
      TokensValidFrom: null,
      CreatedDate: now,
      CreatedUser: actor.userName,
      UpdatedDate: null,
      UpdatedUser: null,
      DeletedDate: null,
      DeletedUser: null,
    });
    try {
      const created = await this.trail.applied(
        actor,
        (u: UserRegistry) => recordChange(u.TenantRegistryId, null, u),
        (tx) => this.repo.in(tx).insertUser(user),
      );
      return await this.dto(created);
    } catch (err) {
      if (isUniqueViolation(err)) throw Problems.conflict(SAME_NAME);
      throw err;
    }
  }

  /**
   * Writes only the columns the request changes: an edit racing a revocation, a logout or
   * a lockout never writes back a stale TokensValidFrom or lockout. With If-Match only to the version named
   * (412 otherwise: versionedWrite).
   */
  async update(
    actor: Actor,
    guid: string,
    dto: UpdateUserDto,
    client: ClientContext | null = null,
    ifMatch?: IfMatch,
  ): Promise<UserDto> {
    return versionedWrite(
      ifMatch,
      () => this.manageableUser(actor, guid),
      async (user, version) => {
        const changes: UserChanges = {};
        if (dto.roleGuid !== undefined) {
          const role = await this.repo.findRoleByGuid(dto.roleGuid);
          if (user.Id === actor.userId && role?.Id !== user.RoleRegistryId)
            throw Problems.forbidden('You cannot change your own role.');
          const assignable = await this.assignableRole(actor, dto.roleGuid);
          if (assignable.TenantRegistryId !== user.TenantRegistryId) {
            throw Problems.unprocessable('roleGuid', "roleGuid must name a role of the user's tenant.");
          }
          changes.RoleRegistryId = assignable.Id;
        }
        if (dto.email !== undefined) changes.Email = dto.email;
        if (dto.active !== undefined) {
          if (!dto.active && user.Id === actor.userId)
            throw Problems.conflict('You cannot deactivate yourself.');
          changes.Active = dto.active;
        }
        return this.write(actor, user, changes, client, version);
      },
    );
  }

  /** PUT with `active: false`, If-Match included (RFC 9110 §13.1.1: every write honours it). */
  async deactivate(
    actor: Actor,
    guid: string,
    client: ClientContext | null = null,
    ifMatch?: IfMatch,
  ): Promise<UserDto> {
    return this.update(actor, guid, { active: false }, client, ifMatch);
  }

  async delete(actor: Actor, guid: string, ifMatch?: IfMatch): Promise<void> {
    const user = await versionedWrite(
      ifMatch,
      () => this.manageableUser(actor, guid),
      async (u, version) => {
        if (u.Id === actor.userId) throw Problems.conflict('You cannot delete yourself.');
        const deleted = await this.trail.applied(actor, recordChange(u.TenantRegistryId, u, null), (tx) =>
          this.repo.in(tx).softDeleteUser(u.Id, new Date(this.clock.now()), actor.userName, version),
        );
        return deleted ? u : undefined;
      },
    );
    await this.events.emitAndWait('principalsChanged', { userIds: [user.Id], ceiling: 'none' });
  }

  /**
   * Administrator reset: new hash, expired by default so the user must choose their own at next sign-in.
   * A password change ends the user's earlier sessions (spec: Session, "User's password changed"): the same
   * statement moves TokensValidFrom forward, so no session outlives the old password even if a listener
   * fails. The instant is taken after the (slow) hash, and the statement applies only while no session started
   * at or after it (UserSecurityRepository.resetPassword), so a sign-in with the old password that completes
   * meanwhile is ended too. It is taken before the transaction begins: on SQLite a
   * transaction holds the one connection (SqliteGate), so the sign-ins of that window complete while the reset
   * waits for its turn, not inside it.
   */
  async resetPassword(
    actor: Actor,
    guid: string,
    dto: ResetPasswordDto,
    client: ClientContext | null = null,
    ifMatch?: IfMatch,
  ): Promise<UserDto> {
    const { user, at } = await versionedWrite(
      ifMatch,
      () => this.manageableUser(actor, guid),
      async (user, version) => {
        // A session (perhaps a stolen one) must not replace its own user's password without the current
        // one: ChangePassword asks for it.
        if (user.Id === actor.userId)
          throw Problems.forbidden(
            'You cannot reset your own password: change it with ChangePassword, which asks for the current one.',
          );
        const at = await this.replacedPassword(actor, user, dto, version);
        return at ? { user, at } : undefined;
      },
    );
    await this.sessionsCut('password-reset', actor, user, at, client);
    return this.dto(await this.current(user.Guid));
  }

  /**
   * The reset's statement and its AdminEvent row (given `version`, only at that version): the instant written,
   * or null when nothing was (the user is gone or moved on).
   */
  private async replacedPassword(
    actor: Actor,
    user: UserRegistry,
    dto: ResetPasswordDto,
    version: number | undefined,
  ): Promise<Date | null> {
    const wire = dto.wirePasswordHash ?? user.WirePasswordHash;
    const passwordHash = await this.hasher.hash(this.policy.storable(dto.password, wire));
    // The trail says the password changed, never what it is (recordChange: PasswordHash only "changed").
    const reset = recordChange(user.TenantRegistryId, user, {
      ...user,
      PasswordHash: passwordHash,
      WirePasswordHash: wire,
      PasswordLocked: false,
      FailedPasswordCount: 0,
    });
    const instant = new Date(this.clock.now());
    return this.racing(() =>
      this.trail.applied(actor, reset, (tx) =>
        this.security.in(tx).resetPassword(
          user.Id,
          {
            passwordHash,
            expired: dto.passwordExpired !== false,
            wirePasswordHash: dto.wirePasswordHash,
            updatedUser: actor.userName,
          },
          instant,
          version,
        ),
      ),
    );
  }

  /**
   * Lifts a password lock at once (in force or lifted, with its failure count and count of consecutive
   * locks). Sessions are not touched: the automatic lock never ended or hid one. If-Match as for every write;
   * the row's version does not move (the lock is sign-in state, not what an administrator edits).
   */
  async unlock(actor: Actor, guid: string, ifMatch?: IfMatch): Promise<UserDto> {
    const user = await versionedWrite(
      ifMatch,
      () => this.manageableUser(actor, guid),
      async (user, version) => {
        const unlocked = {
          ...user,
          PasswordLocked: false,
          PasswordLockedDate: null,
          PasswordLockedUntil: null,
          PasswordLockCount: 0,
          FailedPasswordCount: 0,
        };
        const written = await this.trail.applied(
          actor,
          recordChange(user.TenantRegistryId, user, unlocked),
          (tx) =>
            this.security.in(tx).unlockUser(user.Id, new Date(this.clock.now()), actor.userName, version),
        );
        return written ? user : undefined;
      },
    );
    return this.dto(await this.current(user.Guid));
  }

  /**
   * Writes the changed columns with the stamp (given `version`, only at that version: If-Match; undefined when
   * nothing was written). A deactivation also ends every session in the same statement
   * (UserSecurityRepository.deactivateUser), so reactivating never revives one. The features that follow
   * (the UserLogout row, the API-key cache) have applied it before this returns.
   */
  private async write(
    actor: Actor,
    user: UserRegistry,
    changes: UserChanges,
    client: ClientContext | null,
    version?: number,
  ): Promise<UserDto | undefined> {
    const stamped = { ...changes, UpdatedDate: new Date(this.clock.now()), UpdatedUser: actor.userName };
    const change = recordChange(user.TenantRegistryId, user, { ...user, ...changes });
    // A save that changes nothing writes nothing: no stamp, no version, no "Update" row with no fields.
    if (change.changes.length === 0) return this.dto(user);
    change.changes = await withRoleNames(change.changes, (ids) => this.repo.findRolesByIds(ids));
    if (changes.Active === false) {
      const at = await this.racing(() =>
        this.trail.applied(actor, change, (tx) =>
          this.security.in(tx).deactivateUser(user.Id, stamped, stamped.UpdatedDate, version),
        ),
      );
      if (!at) return undefined;
      await this.sessionsCut('deactivated', actor, user, at, client);
    } else if (
      !(await this.trail.applied(actor, change, (tx) =>
        this.repo.in(tx).updateUser(user.Id, stamped, version),
      ))
    )
      return undefined;
    if (changes.Active !== undefined || changes.RoleRegistryId !== undefined)
      await this.events.emitAndWait('principalsChanged', {
        userIds: [user.Id],
        ceiling: await this.ceilingOf(changes),
      });
    return this.dto(await this.current(user.Guid));
  }

  /** The most a user may do after these changes, as far as they take rights away (PrincipalsCeiling). */
  private async ceilingOf(changes: UserChanges): Promise<PrincipalsCeiling | undefined> {
    if (changes.Active === false) return 'none';
    if (changes.RoleRegistryId !== undefined) return this.permissionsOfRole(changes.RoleRegistryId);
    return undefined;
  }

  /** Tells the sessions feature (streams, the UserLogout row) and waits for it. */
  private sessionsCut(
    cause: SessionCutCause,
    actor: Actor,
    user: UserRegistry,
    at: Date,
    client: ClientContext | null,
  ): Promise<void> {
    return this.events.emitAndWait('sessionsCut', {
      cause,
      userGuid: user.Guid,
      userName: user.Name,
      tenantId: user.TenantRegistryId,
      at: at.getTime(),
      by: actor.userName,
      client,
    });
  }

  /** The row as it is now (after a write), or the 404 when it was deleted meanwhile. */
  private async current(guid: string): Promise<UserRegistry> {
    const user = await this.repo.findUserByGuid(guid);
    if (!user) throw Problems.notFound('user');
    return user;
  }

  /** A password write that kept meeting new sessions (UserSecurityRepository.sessionsEndAt): a 409, try again. */
  private async racing<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (err instanceof SignInRaceError) throw Problems.conflict(err.message);
      throw err;
    }
  }
}
