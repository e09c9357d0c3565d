import type { AdminWriteContext } from './admin-action';
import type { Permission } from './permissions';

/** How the caller proved who they are. */
export type CredentialKind = 'api-key' | 'bearer' | 'cookie';

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
  /** On an administrative write route (@AdminAction): what its AdminEvent row needs, stamped by the guard. */
  readonly adminWrite?: AdminWriteContext;
}
