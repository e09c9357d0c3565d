import { PERMISSION_NAMES, Permission } from '@app/access';
import type { RoleDto, TenantDto, UserDto } from './dto/identity.dto';
import type { RoleRegistry, TenantRegistry, UserRegistry } from './entities';
import { passwordLockAt } from './password-lock';

const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

export function toTenantDto(t: TenantRegistry): TenantDto {
  return {
    guid: t.Guid,
    name: t.Name,
    landlord: t.Landlord,
    createdDate: t.CreatedDate.toISOString(),
    createdUser: t.CreatedUser,
    updatedDate: iso(t.UpdatedDate),
    version: t.Version,
  };
}

export function toRoleDto(
  r: RoleRegistry,
  tenantGuid: string,
  permissions: number[],
  users: number,
): RoleDto {
  return {
    guid: r.Guid,
    tenantGuid,
    name: r.Name,
    permissions,
    permissionNames: permissions.map((p) => PERMISSION_NAMES[p as Permission] ?? `Unknown ${p}`),
    createdDate: r.CreatedDate.toISOString(),
    users,
    version: r.Version,
  };
}

/** A user as answered at `now` (ms): the password lock as it stands then (one that has lifted is shown lifted). */
export function toUserDto(u: UserRegistry, tenantGuid: string, roleGuid: string, now: number): UserDto {
  const lock = passwordLockAt(u, now);
  return {
    guid: u.Guid,
    tenantGuid,
    roleGuid,
    name: u.Name,
    email: u.Email,
    active: u.Active,
    passwordLocked: lock.locked,
    passwordLockedDate: iso(lock.lockedDate),
    passwordLockedUntil: iso(lock.lockedUntil),
    failedPasswordCount: lock.failedPasswordCount,
    passwordExpiryDate: iso(u.PasswordExpiryDate),
    lastLoginDate: iso(u.LastLoginDate),
    wirePasswordHash: u.WirePasswordHash,
    hasPassword: u.PasswordHash !== null,
    createdDate: u.CreatedDate.toISOString(),
    version: u.Version,
  };
}
