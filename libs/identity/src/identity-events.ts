import { Injectable, Logger } from '@nestjs/common';
import { ClientContext } from '@app/http-edge';
import { EventBus } from '@app/runtime';

/** What an administrator did that ended a user's sessions; the UserLogout row's reason follows from it. */
export type SessionCutCause = 'password-reset' | 'deactivated';

/** An administrator's action ended a user's sessions: TokensValidFrom moved to `at` (ms) in its statement. */
export interface SessionsCut {
  cause: SessionCutCause;
  userGuid: string;
  userName: string;
  tenantId: number;
  at: number;
  /** The administrator (spec: UserLogout, "for an administrator revocation, who cut it"). */
  by: string;
  /** The administrator's request, for the logout audit row's addresses. */
  client: ClientContext | null;
}

/**
 * The most these users may do now, when the change only ever takes rights away: nothing at all (`none`:
 * deactivated, deleted, their tenant deleted), or at most these permissions (moved to a role, their role's
 * permissions changed). A cache may apply it before it re-reads them; it never grants anything.
 */
export type PrincipalsCeiling = 'none' | number[];

/**
 * Who may act has changed for these users (deactivated, deleted, moved to another role; the users of a role
 * whose permissions changed; of a tenant deleted), or possibly anybody (`all`, when too many to name). Features
 * that cache Actors (the API-key cache) apply it before the change is answered.
 */
export type PrincipalsChanged = { userIds: number[]; ceiling?: PrincipalsCeiling } | { all: true };

/** Every session of `userGuid` that started before `validFrom` (ms) has just been ended in the database. */
export interface SessionsRevoked {
  userGuid: string;
  validFrom: number;
}

/** The identity and session events, by name. */
export interface IdentityEventMap {
  /** An administrator's action ended a user's sessions (the logout audit row follows from it). */
  sessionsCut: SessionsCut;
  /** Who may act has changed (the API-key cache applies it). */
  principalsChanged: PrincipalsChanged;
  /**
   * A user's sessions were revoked (a password change, a logout, Revoke Sessions), so the feature that holds
   * streaming connections closes them at once and tells the other nodes, without auth depending on it.
   */
  sessionsRevoked: SessionsRevoked;
}

/**
 * In-process notices of identity and session changes, so other features react without identity or auth
 * depending on them. An administrator's action waits for the listeners (emitAndWait) before it answers: what
 * follows from a change (the audit row, the API keys of the user) is in place when the administrator sees the
 * answer.
 */
@Injectable()
export class IdentityEvents extends EventBus<IdentityEventMap> {
  constructor() {
    super(new Logger('IdentityEvents'));
  }
}
