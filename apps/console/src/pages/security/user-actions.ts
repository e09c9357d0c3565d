import type { Session } from '../../api/queries';
import type { User } from './queries';

export type Action = 'deactivate' | 'activate' | 'unlock' | 'revoke' | 'delete';

/**
 * What the service would do for this signed-in administrator on this user, so the page offers only that
 * (the service still decides every request):
 * - Revoke Sessions reaches only users of the caller's own tenant (spec: Revoke Sessions); the landlord cuts
 *   another tenant's user by deactivating them.
 * - Nobody deactivates or deletes their own account (409: the last way in is never locked by mistake).
 * - API keys are listed, made and revoked only for users of the caller's own tenant.
 */
export function allowedActions(user: User, session: Session) {
  const self = user.guid === session.userGuid;
  const ownTenant = user.tenantGuid === session.tenantGuid;
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
  return { actions, notes, apiKeys: ownTenant };
}
