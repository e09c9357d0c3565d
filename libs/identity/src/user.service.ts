import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import {
  Actor,
  ClientContext,
  Clock,
  type IfMatch,
  isUniqueViolation,
  Problems,
  versionedWrite,
} from '@app/common';
import type { CreateUserDto, ResetPasswordDto, UpdateUserDto, UserDto } from './dto/identity.dto';
import { UserRegistry } from './entities';
import { IdentityEvents, PasswordReset } from './identity-events';
import { IdentityRepository, SignInRaceError, UserChanges } from './identity.repository';
import { toUserDto } from './mappers';
import { normalizeUserName } from './names';
import { canonicalWireHash } from './wire-password-hash';
import { PasswordHasher, PasswordPolicy } from './password-hasher';

/**
 * User administration. A tenant administrator sees and changes only their own tenant's users (another
 * tenant's user is a 404, the same answer as a user that does not exist). The landlord reaches every
 * tenant, so it can create a new tenant's first administrator.
 */
@Injectable()
export class UserService {
  constructor(
    private readonly repo: IdentityRepository,
    private readonly hasher: PasswordHasher,
    private readonly policy: PasswordPolicy,
    private readonly clock: Clock,
    private readonly events: IdentityEvents,
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
    return toUserDto(user, tenant?.Guid ?? '', role);
  }

  private async roleGuid(roleId: number): Promise<string> {
    return (await this.repo.findRoleById(roleId))?.Guid ?? '';
  }

  /** A role the actor may assign: visible to them; the user's tenant is the role's tenant. */
  private async assignableRole(actor: Actor, roleGuid: string) {
    const role = await this.repo.findRoleByGuid(roleGuid);
    if (!role || (!actor.landlord && role.TenantRegistryId !== actor.tenantId)) {
      throw Problems.unprocessable('roleGuid', 'roleGuid does not name a role you can assign.');
    }
    return role;
  }

  async list(actor: Actor): Promise<UserDto[]> {
    const users = await this.repo.listUsers(actor.landlord ? undefined : actor.tenantId);
    const tenants = new Map((await this.repo.listTenants()).map((t) => [t.Id, t.Guid]));
    const roles = new Map((await this.repo.listRoles()).map((r) => [r.Id, r.Guid]));
    return users.map((u) =>
      toUserDto(u, tenants.get(u.TenantRegistryId) ?? '', roles.get(u.RoleRegistryId) ?? ''),
    );
  }

  async get(actor: Actor, guid: string): Promise<UserDto> {
    return this.dto(await this.visibleUser(actor, guid));
  }

  async create(actor: Actor, dto: CreateUserDto): Promise<UserDto> {
    const role = await this.assignableRole(actor, dto.roleGuid);
    const name = dto.name.trim();
    const normalized = normalizeUserName(name);
    if (await this.repo.findUserByNormalizedName(normalized))
      throw Problems.conflict('A user with this name already exists.');
    const password =
      dto.password === undefined
        ? undefined
        : this.acceptablePassword(dto.password, dto.wirePasswordHash ?? false);
    const now = new Date(this.clock.now());
    const expired = dto.passwordExpired ?? true;
    const user = Object.assign(new UserRegistry(), {
      Guid: randomUUID(),
      TenantRegistryId: role.TenantRegistryId,
      RoleRegistryId: role.Id,
      Name: name,
      NormalizedName: normalized,
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
      return await this.dto(await this.repo.insertUser(user));
    } catch (err) {
      if (isUniqueViolation(err)) throw Problems.conflict('A user with this name already exists.');
      throw err;
    }
  }

  /**
   * Writes only the columns the request changes (security issue 13): an edit racing a revocation, a logout or
   * a lockout never writes back a stale TokensValidFrom or lockout. With If-Match only to the version named
   * (412 otherwise: versionedWrite).
   */
  async update(actor: Actor, guid: string, dto: UpdateUserDto, ifMatch?: IfMatch): Promise<UserDto> {
    return versionedWrite(
      ifMatch,
      () => this.visibleUser(actor, guid),
      async (user, version) => {
        const changes: UserChanges = {};
        if (dto.roleGuid !== undefined) {
          const role = await this.assignableRole(actor, dto.roleGuid);
          if (role.TenantRegistryId !== user.TenantRegistryId) {
            throw Problems.unprocessable('roleGuid', "roleGuid must name a role of the user's tenant.");
          }
          changes.RoleRegistryId = role.Id;
        }
        if (dto.email !== undefined) changes.Email = dto.email;
        if (dto.active !== undefined) {
          if (!dto.active && user.Id === actor.userId)
            throw Problems.conflict('You cannot deactivate yourself.');
          changes.Active = dto.active;
        }
        return this.write(actor, user, changes, version);
      },
    );
  }

  async deactivate(actor: Actor, guid: string): Promise<UserDto> {
    return this.update(actor, guid, { active: false });
  }

  async delete(actor: Actor, guid: string, ifMatch?: IfMatch): Promise<void> {
    const user = await versionedWrite(
      ifMatch,
      () => this.visibleUser(actor, guid),
      async (u, version) => {
        if (u.Id === actor.userId) throw Problems.conflict('You cannot delete yourself.');
        const deleted = await this.repo.softDeleteUser(
          u.Id,
          new Date(this.clock.now()),
          actor.userName,
          version,
        );
        return deleted ? u : undefined;
      },
    );
    this.events.principalsChanged({ userIds: [user.Id] });
  }

  /**
   * Administrator reset: new hash, expired by default so the user must choose their own at next sign-in.
   * A password change ends the user's earlier sessions (spec: Session, "User's password changed"): the same
   * statement moves TokensValidFrom forward, so no session outlives the old password even if a listener
   * fails. The instant is taken after the (slow) hash, and the statement applies only while no session started
   * at or after it (IdentityRepository.resetPassword), so a sign-in with the old password that completes
   * meanwhile is ended too (security issue 13).
   */
  async resetPassword(
    actor: Actor,
    guid: string,
    dto: ResetPasswordDto,
    client: ClientContext | null = null,
  ): Promise<UserDto> {
    const user = await this.visibleUser(actor, guid);
    const wire = dto.wirePasswordHash ?? user.WirePasswordHash;
    const passwordHash = await this.hasher.hash(this.acceptablePassword(dto.password, wire));
    const at = await this.racing(() =>
      this.repo.resetPassword(
        user.Id,
        {
          passwordHash,
          expired: dto.passwordExpired !== false,
          wirePasswordHash: dto.wirePasswordHash,
          updatedUser: actor.userName,
        },
        new Date(this.clock.now()),
      ),
    );
    if (!at) throw Problems.notFound('user');
    const reset: PasswordReset = {
      userGuid: user.Guid,
      userName: user.Name,
      tenantId: user.TenantRegistryId,
      at: at.getTime(),
      resetBy: actor.userName,
      client,
    };
    this.events.passwordReset(reset);
    return this.dto(await this.current(user.Guid));
  }

  async unlock(actor: Actor, guid: string): Promise<UserDto> {
    const user = await this.visibleUser(actor, guid);
    if (!(await this.repo.unlockUser(user.Id, new Date(this.clock.now()), actor.userName)))
      throw Problems.notFound('user');
    return this.dto(await this.current(user.Guid));
  }

  /**
   * Writes the changed columns with the stamp (given `version`, only at that version; undefined when nothing was
   * written), and tells the features that cache users (API keys).
   */
  private async write(
    actor: Actor,
    user: UserRegistry,
    changes: UserChanges,
    version?: number,
  ): Promise<UserDto | undefined> {
    const updated = await this.repo.updateUser(
      user.Id,
      { ...changes, UpdatedDate: new Date(this.clock.now()), UpdatedUser: actor.userName },
      version,
    );
    if (!updated) return undefined;
    if (changes.Active !== undefined || changes.RoleRegistryId !== undefined)
      this.events.principalsChanged({ userIds: [user.Id] });
    return this.dto(await this.current(user.Guid));
  }

  /**
   * The password to store: for a WirePasswordHash user the hex SHA-256 the browser computed (wirePasswordHashOf;
   * its strength could only be checked there), else the password itself under the password rules. The flag
   * only ever changes together with a password, so the stored hash always has the form sign-in will send.
   */
  private acceptablePassword(password: string, wire: boolean): string {
    if (!wire) {
      this.policy.check('password', password);
      return password;
    }
    const hash = canonicalWireHash(password);
    if (hash === null)
      throw Problems.unprocessable(
        'password',
        'With WirePasswordHash, password must be the hex SHA-256 of the password and the normalised user name.',
      );
    return hash;
  }

  /** The row as it is now (after a write), or the 404 when it was deleted meanwhile. */
  private async current(guid: string): Promise<UserRegistry> {
    const user = await this.repo.findUserByGuid(guid);
    if (!user) throw Problems.notFound('user');
    return user;
  }

  /** A password write that kept meeting new sessions (IdentityRepository.sessionsEndAt): a 409, try again. */
  private async racing<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (err instanceof SignInRaceError) throw Problems.conflict(err.message);
      throw err;
    }
  }
}
