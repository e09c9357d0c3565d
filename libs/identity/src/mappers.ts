import { PERMISSION_NAMES, Permission } from '@app/common';
import type { RoleDto, TenantDto, UserDto } from './dto/identity.dto';
import type { RoleRegistry, TenantRegistry, UserRegistry } from './entities';

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

export function toRoleDto(r: RoleRegistry, tenantGuid: string, permissions: number[]): RoleDto {
  return {
    guid: r.Guid,
    tenantGuid,
    name: r.Name,
    permissions,
    permissionNames: permissions.map((p) => PERMISSION_NAMES[p as Permission] ?? `Unknown ${p}`),
    createdDate: r.CreatedDate.toISOString(),
    version: r.Version,
  };
}

export function toUserDto(u: UserRegistry, tenantGuid: string, roleGuid: string): UserDto {
  return {
    guid: u.Guid,
    tenantGuid,
    roleGuid,
    name: u.Name,
    email: u.Email,
    active: u.Active,
    passwordLocked: u.PasswordLocked,
    passwordLockedDate: iso(u.PasswordLockedDate),
    failedPasswordCount: u.FailedPasswordCount,
    passwordExpiryDate: iso(u.PasswordExpiryDate),
    lastLoginDate: iso(u.LastLoginDate),
    wirePasswordHash: u.WirePasswordHash,
    hasPassword: u.PasswordHash !== null,
    createdDate: u.CreatedDate.toISOString(),
    version: u.Version,
  };
}
