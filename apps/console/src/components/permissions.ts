import type { Session } from '../api/queries';

/**
 * The service's permission codes (libs/access Permission; the same numbers as GET /api/RoleRegistry/Permissions).
 * The console only hides what a user may not open: the service decides every request.
 */
export const PERMISSION = {
  ReadWriteSecurityUser: 1,
  ReadWriteSecurityRole: 2,
  ReadWriteTenant: 3,
  ReadSecurityAudit: 4,
  ReadWriteModel: 5,
  ReadWriteCaseWorkflow: 6,
  Invoke: 7,
} as const;

/** What a route demands, as the server's @Authenticated({ permission, landlordOnly }) states it. */
export interface Access {
  permission?: number;
  landlord?: boolean;
}

/** Whether the signed-in user passes the same rule the service applies (a courtesy: the service decides). */
export function allows(session: Pick<Session, 'permissions' | 'landlord'>, access: Access): boolean {
  if (access.landlord && !session.landlord) return false;
  return access.permission === undefined || session.permissions.includes(access.permission);
}

/**
 * Whether the signed-in user holds every one of `permissions`: the service refuses to hand out, or to act on
 * someone who holds, a permission the caller lacks (a role's permissions, a user's role), so the page offers
 * only what passes this.
 */
export function holdsEvery(session: Pick<Session, 'permissions'>, permissions: readonly number[]): boolean {
  return permissions.every((p) => session.permissions.includes(p));
}
