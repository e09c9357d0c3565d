import { Injectable, Logger } from '@nestjs/common';
import { ClientContext, Listeners } from '@app/common';

/** An administrator replaced a user's password: the user's earlier sessions ended at `at` (ms). */
export interface PasswordReset {
  userGuid: string;
  userName: string;
  tenantId: number;
  at: number;
  resetBy: string;
  /** The administrator's request, for the logout audit row's addresses. */
  client: ClientContext | null;
}

/**
 * Who may act has changed: these users (deactivated, deleted, moved to another role), or possibly anybody
 * (`all`: a role's permissions changed, a role or a tenant deleted). Features that cache Actors (the API-key
 * cache) apply it at once instead of at their next reload.
 */
export type PrincipalsChanged = { userIds: number[] } | { all: true };

/** In-process notices of identity changes, so other features react without identity depending on them. */
@Injectable()
export class IdentityEvents {
  private readonly resets = new Listeners<PasswordReset>(new Logger('IdentityEvents'), 'password reset');
  private readonly principals = new Listeners<PrincipalsChanged>(new Logger('IdentityEvents'), 'principals');

  onPasswordReset(listener: (reset: PasswordReset) => void): () => void {
    return this.resets.add(listener);
  }

  passwordReset(reset: PasswordReset): void {
    this.resets.emit(reset);
  }

  onPrincipalsChanged(listener: (change: PrincipalsChanged) => void): () => void {
    return this.principals.add(listener);
  }

  principalsChanged(change: PrincipalsChanged): void {
    this.principals.emit(change);
  }
}
