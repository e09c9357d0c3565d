import { Injectable, Logger } from '@nestjs/common';

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
  private readonly logger = new Logger('SessionEvents');
  private readonly listeners = new Set<(event: SessionsRevoked) => void>();

  onRevoked(listener: (event: SessionsRevoked) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  revoked(event: SessionsRevoked): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        this.logger.error({ err }, 'A session revocation listener failed');
      }
    }
  }
}
