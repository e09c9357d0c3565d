/**
 * Permission catalogue. Numbers are stored in RolePermission rows and must never be reused.
 * Permissions are always evaluated server-side from the caller's role, never from token claims.
 */
export enum Permission {
  ReadWriteSecurityUser = 1,
  ReadWriteSecurityRole = 2,
  ReadWriteTenant = 3,
  ReadSecurityAudit = 4,
  ReadWriteModel = 5,
  ReadWriteCaseWorkflow = 6,
  Invoke = 7,
}

export const PERMISSION_NAMES: Readonly<Record<Permission, string>> = {
  [Permission.ReadWriteSecurityUser]: 'Read Write Security User',
  [Permission.ReadWriteSecurityRole]: 'Read Write Security Role',
  [Permission.ReadWriteTenant]: 'Read Write Tenant',
  [Permission.ReadSecurityAudit]: 'Read Security Audit',
  [Permission.ReadWriteModel]: 'Read Write Model',
  [Permission.ReadWriteCaseWorkflow]: 'Read Write Case Workflow',
  [Permission.Invoke]: 'Invoke',
};

export const ALL_PERMISSIONS: readonly Permission[] = Object.values(Permission).filter(
  (v): v is Permission => typeof v === 'number',
);

export function isPermission(value: unknown): value is Permission {
  return typeof value === 'number' && (ALL_PERMISSIONS as readonly number[]).includes(value);
}
