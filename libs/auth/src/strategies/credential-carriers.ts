import type { Type } from '@nestjs/common';
import type { Strategy } from 'passport-strategy';
import type { HttpRequestLike } from '@app/http-edge';
import type { ProblemException } from '@app/problems';
import { AuthProblems } from '../auth-problems';
import { JWT_COOKIE } from '../session-cookies';

/** Passport names of the credential strategies (PassportStrategy(…, name)). */
export const API_KEY_STRATEGY = 'api-key';
export const BEARER_JWT_STRATEGY = 'jwt';
export const COOKIE_JWT_STRATEGY = 'authentication-jwt';

/**
 * One credential carrier: how to see that a request carries it, and the ONE Passport strategy that
 * evaluates it. The precedence guard runs the strategy of the first carrier present and no other; a
 * strategy that fails (or throws) is the carrier's `refusal`, never a reason to look at the next carrier.
 */
export interface CredentialCarrier {
  /** For logs and docs: the Passport name of the strategy. */
  readonly name: string;
  /** The strategy provider (a PassportStrategy class registered in some module of the app). */
  readonly strategy: Type<Strategy>;
  /** Present, even malformed, means evaluated (and a 401 when bad). */
  present(request: HttpRequestLike): boolean;
  /** The answer when the strategy refuses the credential without a problem of its own. */
  refusal(): ProblemException;
}

/**
 * Injection token of THE ordered carrier list (AuthModule provides the spec's three). A new scheme (a
 * client certificate, LDAP through a header…) is added here, at its place in the order, with its strategy.
 */
export const CREDENTIAL_CARRIERS = Symbol('CredentialCarriers');

const BEARER_TOKEN = /^[ ]+([A-Za-z0-9_.~+/=-]+)[ ]*$/;
const BEARER_SCHEME = /^bearer(?=[ ]|$)/i;
/** Longer tokens are refused before any parsing. */
const MAX_TOKEN_LENGTH = 4096;

/** The x-api-key header's value ('' when repeated in a form Node keeps as a list), or undefined. */
export function apiKeyOf(request: HttpRequestLike): string | undefined {
  const apiKey = request.headers['x-api-key']; // Node lower-cases header names
  if (apiKey === undefined) return undefined;
  return Array.isArray(apiKey) ? '' : apiKey;
}

/**
 * An Authorization header is the bearer carrier only when its scheme is Bearer (any letter case), even with
 * a malformed token (then null: a 401); any other scheme (Basic from a reverse proxy, Negotiate) is not a
 * credential of this API and does not hide the cookie. undefined: not the bearer carrier.
 */
export function bearerTokenOf(request: HttpRequestLike): string | null | undefined {
  const authorization = request.headers.authorization;
  if (authorization === undefined || !BEARER_SCHEME.test(authorization)) return undefined;
  const token = BEARER_TOKEN.exec(authorization.slice(6))?.[1] ?? null;
  return token !== null && token.length > MAX_TOKEN_LENGTH ? null : token;
}

/** The authentication-jwt cookie ('' when it is not a string), or undefined. */
export function cookieTokenOf(request: HttpRequestLike): string | undefined {
  const cookie = request.cookies?.[JWT_COOKIE];
  if (cookie === undefined) return undefined;
  return typeof cookie === 'string' && cookie.length <= MAX_TOKEN_LENGTH ? cookie : '';
}

/** The spec's carriers as one value (logout reads the session it must end; spec: Logout behaviour). */
export type PresentedCredential =
  | { kind: 'api-key'; value: string }
  | { kind: 'bearer'; value: string | null }
  | { kind: 'cookie'; value: string }
  | { kind: 'none' };

/**
 * The spec's three carriers in their one order (spec: Credentials and precedence 1): the first present is
 * the only one evaluated. Built on the same readers as the carrier list below.
 */
export function presentedCredential(request: HttpRequestLike): PresentedCredential {
  const apiKey = apiKeyOf(request);
  if (apiKey !== undefined) return { kind: 'api-key', value: apiKey };
  const bearer = bearerTokenOf(request);
  if (bearer !== undefined) return { kind: 'bearer', value: bearer };
  const cookie = cookieTokenOf(request);
  if (cookie !== undefined) return { kind: 'cookie', value: cookie };
  return { kind: 'none' };
}

/**
 * Carriers refer to their strategies lazily (the strategies import this file for the readers), so the list
 * is built by a function the module calls.
 */
export function specCredentialCarriers(strategies: {
  apiKey: Type<Strategy>;
  bearer: Type<Strategy>;
  cookie: Type<Strategy>;
}): CredentialCarrier[] {
  return [
    {
      name: API_KEY_STRATEGY,
      strategy: strategies.apiKey,
      present: (r) => apiKeyOf(r) !== undefined,
      // spec: API keys 4 — one outward reason for every failure.
      refusal: AuthProblems.keyNotFound,
    },
    {
      name: BEARER_JWT_STRATEGY,
      strategy: strategies.bearer,
      present: (r) => bearerTokenOf(r) !== undefined,
      refusal: AuthProblems.invalidSession,
    },
    {
      name: COOKIE_JWT_STRATEGY,
      strategy: strategies.cookie,
      present: (r) => cookieTokenOf(r) !== undefined,
      refusal: AuthProblems.invalidSession,
    },
  ];
}
