import { Actor, isPermission, Permission, PERMISSION_NAMES } from '@app/access';
import { Problems } from '@app/problems';

/**
 * Nobody hands out a permission they do not hold. A caller may assign a role, create
 * or edit a role, or act on a user (edit, deactivate, delete, unlock, reset the password of, create an API key
 * for) only when every permission involved is one of their own; and nobody changes their own role. Checked on
 * the server from the caller's role (the Actor), like every permission.
 */
export function permissionsNotHeld(actor: Actor, permissions: Iterable<number>): Permission[] {
  const missing = new Set<Permission>();
  for (const p of permissions) if (isPermission(p) && !actor.permissions.has(p)) missing.add(p);
  return [...missing].sort((a, b) => a - b);
}

/** The 403 problem when `permissions` hold one the caller lacks; `what` says what was refused. */
export function assertHoldsEvery(actor: Actor, permissions: Iterable<number>, what: string): void {
  const missing = permissionsNotHeld(actor, permissions);
  if (missing.length)
    throw Problems.forbidden(
      `${what} holds ${missing.map((p) => PERMISSION_NAMES[p]).join(', ')}, which you do not hold.`,
    );
}
