import { Injectable, Logger } from '@nestjs/common';
import { ClientContext, Listener, Listeners } from '@app/common';

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

/**
 * In-process notices of identity changes, so other features react without identity depending on them. The
 * action waits for the listeners (emitAndWait) before it answers: what follows from a change (the audit row,
 * the API keys of the user) is in place when the administrator sees the answer.
 */
@Injectable()
export class IdentityEvents {
  private readonly cuts = new Listeners<SessionsCut>(new Logger('IdentityEvents'), 'sessions cut');
  private readonly principals = new Listeners<PrincipalsChanged>(new Logger('IdentityEvents'), 'principals');

  onSessionsCut(listener: Listener<SessionsCut>): () => void {
    return this.cuts.add(listener);
  }

  sessionsCut(cut: SessionsCut): Promise<void> {
    return this.cuts.emitAndWait(cut);
  }

  onPrincipalsChanged(listener: Listener<PrincipalsChanged>): () => void {
    return this.principals.add(listener);
  }

  principalsChanged(change: PrincipalsChanged): Promise<void> {
    return this.principals.emitAndWait(change);
  }
}
