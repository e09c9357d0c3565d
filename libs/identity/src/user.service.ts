import { Injectable, Logger } from '@nestjs/common';
import type { Request } from 'express';
import { randomUUID } from 'node:crypto';
import { Actor, Clock, isUniqueViolation, Problems } from '@app/common';
import type { CreateUserDto, ResetPasswordDto, UpdateUserDto, UserDto } from './dto/identity.dto';
import { UserRegistry } from './entities';
import { IdentityRepository } from './identity.repository';
import { toUserDto } from './mappers';
import { normalizeUserName } from './names';
import { PasswordHasher, PasswordPolicy } from './password-hasher';

/**
 * User administration. A tenant administrator sees and changes only their own tenant's users (another
 * tenant's user is a 404, the same answer as a user that does not exist). The landlord reaches every
 * tenant, so it can create a new tenant's first administrator.
 */
/** An administrator replaced a user's password: the user's earlier sessions ended at `at` (ms). */
export interface PasswordReset {
  userGuid: string;
  userName: string;
  tenantId: number;
  at: number;
  resetBy: string;
  /** The administrator's request, for the logout audit row's addresses. */
  request: Request | null;
}

@Injectable()
export class UserService {
  private readonly logger = new Logger('UserService');
  private readonly resetListeners = new Set<(reset: PasswordReset) => void>();

  constructor(
    private readonly repo: IdentityRepository,
    private readonly hasher: PasswordHasher,
    private readonly policy: PasswordPolicy,
    private readonly clock: Clock,
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
      throw Problems.badParameter('roleGuid', 'roleGuid does not name a role you can assign.');
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
    if (!name) throw Problems.badParameter('name', 'name must not be empty.');
    const normalized = normalizeUserName(name);
    if (await this.repo.findUserByNormalizedName(normalized))
      throw Problems.conflict('A user with this name already exists.');
    if (dto.password !== undefined) this.policy.check('password', dto.password);
    const now = new Date(this.clock.now());
    const expired = dto.passwordExpired ?? true;
    const user = Object.assign(new UserRegistry(), {
      Guid: randomUUID(),
      TenantRegistryId: role.TenantRegistryId,
      RoleRegistryId: role.Id,
      Name: name,
      NormalizedName: normalized,
      Email: dto.email ?? null,
      PasswordHash: dto.password !== undefined ? await this.hasher.hash(dto.password) : null,
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
      return await this.dto(await this.repo.saveUser(user));
    } catch (err) {
      if (isUniqueViolation(err)) throw Problems.conflict('A user with this name already exists.');
      throw err;
    }
  }

  async update(actor: Actor, guid: string, dto: UpdateUserDto): Promise<UserDto> {
    const user = await this.visibleUser(actor, guid);
    if (dto.roleGuid !== undefined) {
      const role = await this.assignableRole(actor, dto.roleGuid);
      if (role.TenantRegistryId !== user.TenantRegistryId) {
        throw Problems.badParameter('roleGuid', "roleGuid must name a role of the user's tenant.");
      }
      user.RoleRegistryId = role.Id;
    }
    if (dto.email !== undefined) user.Email = dto.email;
    if (dto.active !== undefined) {
      if (!dto.active && user.Id === actor.userId) throw Problems.conflict('You cannot deactivate yourself.');
      user.Active = dto.active;
    }
    if (dto.wirePasswordHash !== undefined) user.WirePasswordHash = dto.wirePasswordHash;
    return this.dto(await this.touch(actor, user));
  }

  async deactivate(actor: Actor, guid: string): Promise<UserDto> {
    return this.update(actor, guid, { active: false });
  }

  async delete(actor: Actor, guid: string): Promise<void> {
    const user = await this.visibleUser(actor, guid);
    if (user.Id === actor.userId) throw Problems.conflict('You cannot delete yourself.');
    user.DeletedDate = new Date(this.clock.now());
    user.DeletedUser = actor.userName;
    await this.repo.saveUser(user);
  }

  /** Called after every administrator password reset (the sessions feature closes streams and audits it). */
  onPasswordReset(listener: (reset: PasswordReset) => void): () => void {
    this.resetListeners.add(listener);
    return () => this.resetListeners.delete(listener);
  }

  /**
   * Administrator reset: new hash, expired by default so the user must choose their own at next sign-in.
   * A password change ends the user's earlier sessions (spec: Session, "User's password changed"): the same
   * save moves TokensValidFrom forward, so no session outlives the old password even if a listener fails.
   */
  async resetPassword(
    actor: Actor,
    guid: string,
    dto: ResetPasswordDto,
    request: Request | null = null,
  ): Promise<UserDto> {
    const user = await this.visibleUser(actor, guid);
    this.policy.check('password', dto.password);
    const now = new Date(this.clock.now());
    if (!user.TokensValidFrom || user.TokensValidFrom.getTime() < now.getTime()) user.TokensValidFrom = now;
    user.PasswordHash = await this.hasher.hash(dto.password);
    user.PasswordCreatedDate = now;
    user.PasswordExpiryDate = dto.passwordExpired === false ? null : now;
    user.FailedPasswordCount = 0;
    user.PasswordLocked = false;
    user.PasswordLockedDate = null;
    if (dto.wirePasswordHash !== undefined) user.WirePasswordHash = dto.wirePasswordHash;
    const saved = await this.touch(actor, user);
    const reset: PasswordReset = {
      userGuid: saved.Guid,
      userName: saved.Name,
      tenantId: saved.TenantRegistryId,
      at: now.getTime(),
      resetBy: actor.userName,
      request,
    };
    for (const listener of this.resetListeners) {
      try {
        listener(reset);
      } catch (err) {
        this.logger.error({ err }, 'A password reset listener failed');
      }
    }
    return this.dto(saved);
  }

  async unlock(actor: Actor, guid: string): Promise<UserDto> {
    const user = await this.visibleUser(actor, guid);
    user.PasswordLocked = false;
    user.PasswordLockedDate = null;
    user.FailedPasswordCount = 0;
    return this.dto(await this.touch(actor, user));
  }

  private touch(actor: Actor, user: UserRegistry): Promise<UserRegistry> {
    user.UpdatedDate = new Date(this.clock.now());
    user.UpdatedUser = actor.userName;
    return this.repo.saveUser(user);
  }
}
