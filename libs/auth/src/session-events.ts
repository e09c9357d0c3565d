import { Injectable, Logger } from '@nestjs/common';
import { Listeners } from '@app/common';

/** Every session of `userGuid` that started before `validFrom` (ms) has just been ended in the database. */
export interface SessionsRevoked {
  userGuid: string;
  validFrom: number;
}

/**
 * In-process notice that a user's sessions were revoked (password change here; logout and Revoke Sessions
 * in the sessions feature), so the feature that holds streaming connections can close them at once and tell
 * the other nodes, without auth depending on it.
 */
@Injectable()
export class SessionEvents {
  private readonly listeners = new Listeners<SessionsRevoked>(
    new Logger('SessionEvents'),
    'session revocation',
  );

  onRevoked(listener: (event: SessionsRevoked) => void): () => void {
    return this.listeners.add(listener);
  }

  revoked(event: SessionsRevoked): void {
    this.listeners.emit(event);
  }
}
