import { Actor, PERMISSION_NAMES, RouteAccess } from '@app/access';
import { Problems } from '@app/problems';

/**
 * Decides whether a resolved caller may use a route. Permissions come from the caller's role in the
 * database (resolved into the Actor), never from token claims.
 */
export function authorize(actor: Actor, access: Extract<RouteAccess, { kind: 'authenticated' }>): void {
  if (access.landlordOnly && !actor.landlord) {
    throw Problems.forbidden('Only callers of the landlord tenant may use this endpoint.');
  }
  if (access.sessionOnly && actor.credential === 'api-key') {
    throw Problems.forbidden('This endpoint takes a session (bearer or cookie), not an API key.');
  }
  if (access.permission !== undefined && !actor.permissions.has(access.permission)) {
    throw Problems.forbidden(`This endpoint needs the permission ${PERMISSION_NAMES[access.permission]}.`);
  }
}
