import { Injectable } from '@nestjs/common';
import { IdentityAuthService, SessionUser } from '@app/identity';

interface InFlight {
  /** Value of the arrival sequence when the read started. */
  startedAt: number;
  read: Promise<SessionUser | null>;
}

/**
 * Reads the session user (state, TokensValidFrom, permissions) from the database for EVERY authenticated
 * JWT request. Concurrent requests of one user may share one in-flight read, but only a read that STARTED
 * AFTER the request arrived: a read that began earlier could predate a revocation the request must see, so
 * it is never reused for that request. The same on every database.
 */
@Injectable()
export class SessionUserReader {
  private sequence = 0;
  private readonly inFlight = new Map<string, InFlight>();

  constructor(private readonly identity: IdentityAuthService) {}

  /** Call when the request arrives, before anything else; pass the result to read(). */
  arrival(): number {
    return ++this.sequence;
  }

  read(userGuid: string, arrivedAt: number): Promise<SessionUser | null> {
    const current = this.inFlight.get(userGuid);
    if (current && current.startedAt > arrivedAt) return current.read;
    const startedAt = ++this.sequence;
    const entry: InFlight = { startedAt, read: this.identity.sessionUser(userGuid) };
    this.inFlight.set(userGuid, entry);
    const done = () => {
      if (this.inFlight.get(userGuid) === entry) this.inFlight.delete(userGuid);
    };
    entry.read.then(done, done);
    return entry.read;
  }
}
