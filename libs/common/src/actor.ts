import type { Permission } from './permissions';

/** How the caller proved who they are. */
export type CredentialKind = 'api-key' | 'bearer' | 'cookie';

/**
 * The request an Actor acts through, when it is a write request (AdminEvents reads its route and client): set
 * by the admin-request middleware on the request and carried by the Actor that CurrentActor gives a handler.
 */
export const ACTING_REQUEST: unique symbol = Symbol('acting request');

/**
 * The authenticated caller, resolved by the global guard from the database on every request.
 * Services take an Actor and decide tenant scope and permissions from it.
 */
export interface Actor {
  userId: number;
  userGuid: string;
  userName: string;
  tenantId: number;
  tenantGuid: string;
  landlord: boolean;
  permissions: ReadonlySet<Permission>;
  credential: CredentialKind;
  /** Session start (ms since epoch) for JWT credentials. */
  sessionStartedAt?: number;
  /** Expiry (ms since epoch) of the token this request is answered with, for JWT credentials. */
  tokenExpiresAt?: number;
  /** The write request this Actor acts through (ACTING_REQUEST); absent outside one. */
  readonly [ACTING_REQUEST]?: object;
}
