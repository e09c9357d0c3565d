import type { Session } from '../../api/queries';
import type { RoleChoice, User } from './queries';

export type Action = 'deactivate' | 'activate' | 'unlock' | 'revoke' | 'delete';

/**
 * Whether the signed-in administrator may act on this user at all: the service refuses every action on a
 * user whose role holds a permission the caller lacks (edit, deactivate, delete, unlock, reset, Revoke
 * Sessions, generate or revoke a key). The roles the caller may give (AssignableRoles) are exactly the
 * visible roles holding no such permission, so the user's role is among them when the caller may act.
 */
export function mayActOn(user: User, choices: readonly RoleChoice[]): boolean {
  return choices.some((r) => r.guid === user.roleGuid);
}

const HOLDS_MORE =
  'Their role holds a permission you do not hold: the service refuses every change and action on this user.';

/**
 * What the service would do for this signed-in administrator on this user, so the page offers only that
 * (the service still decides every request):
 * - Nothing on a user whose role holds a permission the caller lacks (mayActOn).
 * - Revoke Sessions reaches only users of the caller's own tenant (spec: Revoke Sessions); the landlord cuts
 *   another tenant's user by deactivating them.
 * - Nobody deactivates or deletes their own account (409: the last way in is never locked by mistake).
 * - API keys are listed only for users of the caller's own tenant, made and revoked only when the caller
 *   may act on the user.
 */
export function allowedActions(user: User, session: Session, mayAct: boolean) {
  const self = user.guid === session.userGuid;
  const ownTenant = user.tenantGuid === session.tenantGuid;
  if (!mayAct) return { actions: [] as Action[], notes: [HOLDS_MORE], apiKeys: ownTenant, mayAct };
  const actions: Action[] = [
    ...(user.active ? (self ? [] : (['deactivate'] as const)) : (['activate'] as const)),
    ...(user.passwordLocked ? (['unlock'] as const) : []),
    ...(ownTenant ? (['revoke'] as const) : []),
    ...(self ? [] : (['delete'] as const)),
  ];
  const notes = [
    ...(self ? ['This is your own account: you cannot deactivate or delete it.'] : []),
    ...(ownTenant
      ? []
      : [
          'Revoke Sessions reaches users of your own tenant only; to cut this user’s sessions, deactivate the user.',
        ]),
  ];
  return { actions, notes, apiKeys: ownTenant, mayAct };
}
