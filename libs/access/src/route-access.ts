import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiCookieAuth, ApiBearerAuth, ApiSecurity, DECORATORS } from '@nestjs/swagger';
import { Permission, PERMISSION_NAMES } from './permissions';
import { ApiProblemResponses } from '@app/problems';

export const ROUTE_ACCESS = 'route-access';

export type RouteAccess =
  | { kind: 'public' }
  | { kind: 'optional' }
  | ({ kind: 'authenticated'; permission?: Permission; landlordOnly?: boolean } & AuthenticatedOptions);

/** What an authenticated route asks of its caller's credential besides permissions. */
export interface AuthenticatedOptions {
  /** A session (bearer or cookie JWT) only: an API-key caller gets a 403 (the password change). */
  sessionOnly?: boolean;
  /**
   * False: a cookie-authenticated call gets no refreshed cookie (spec: Credentials 5, real-time integration —
   * the Invoke controller — is not cookie maintenance).
   */
  maintainCookie?: boolean;
}

/**
 * `security: []` on the route's operation: anonymous, whatever the document's defaults. Merged into the
 * operation's metadata, so it keeps (and is kept by) the route's @ApiOperation, in any order.
 */
const AnonymousOperation = (): MethodDecorator => (_target, _key, descriptor) => {
  const previous = (Reflect.getMetadata(DECORATORS.API_OPERATION, descriptor.value as object) ??
    {}) as object;
  Reflect.defineMetadata(DECORATORS.API_OPERATION, { ...previous, security: [] }, descriptor.value as object);
  return descriptor;
};

/** Anonymous route. Every such route must also be on the written list in test/route-audit.spec.ts. */
export const Public = () =>
  applyDecorators(SetMetadata(ROUTE_ACCESS, { kind: 'public' } satisfies RouteAccess), AnonymousOperation());

/**
 * Anonymous route that tells a signed-in caller more (the readiness probe's per-dependency detail): a
 * credential is resolved when present, and one that is not accepted makes the caller anonymous, never a 401.
 * On the written list of anonymous routes too.
 */
export const CredentialOptional = () =>
  applyDecorators(
    SetMetadata(ROUTE_ACCESS, { kind: 'optional' } satisfies RouteAccess),
    ApiSecurity(API_KEY_SCHEME),
    ApiBearerAuth(BEARER_SCHEME),
    ApiCookieAuth(COOKIE_SCHEME),
    ApiSecurity({}),
  );

export const API_KEY_SCHEME = 'api-key';
export const BEARER_SCHEME = 'bearer';
export const COOKIE_SCHEME = 'authentication-jwt';

const UNAUTHENTICATED =
  'No accepted credential (urn:problem-type:authentication-required; an API key: reason Key Not Found)';

/**
 * One decorator per protected route states its permission (and landlord-only rule) AND its Swagger
 * security, so the explorer cannot drift from the guard.
 */
export function Authenticated(
  options: { permission?: Permission; landlordOnly?: boolean } & AuthenticatedOptions = {},
) {
  const access: RouteAccess = { kind: 'authenticated', ...options };
  const needs = [
    options.permission !== undefined ? `permission ${PERMISSION_NAMES[options.permission]}` : undefined,
    options.landlordOnly ? 'the landlord tenant' : undefined,
    options.sessionOnly ? 'a session (bearer or cookie), not an API key' : undefined,
  ].filter(Boolean);
  return applyDecorators(
    SetMetadata(ROUTE_ACCESS, access),
    ApiSecurity(API_KEY_SCHEME),
    ApiBearerAuth(BEARER_SCHEME),
    ApiCookieAuth(COOKIE_SCHEME),
    ApiProblemResponses(
      needs.length
        ? { 401: UNAUTHENTICATED, 403: `Needs ${needs.join(' and ')} (urn:problem-type:forbidden)` }
        : { 401: UNAUTHENTICATED },
    ),
  );
}
