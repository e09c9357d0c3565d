import { HttpStatus, Inject, Injectable, Logger } from '@nestjs/common';
import { IDEMPOTENCY_SETTINGS, type IdempotencySettings } from '@app/config';
import { ProblemException, Problems, ProblemType, shortReason } from '@app/problems';
import { IDEMPOTENCY_KEY_HEADER, idempotencyRecordId, isValidIdempotencyKey } from './idempotency-key';
import { IDEMPOTENCY_STORE, type IdempotencyStore, type StoredAnswer } from './idempotency-store';

/**
 * How long a running request holds its key. A node that dies mid-request leaves a running record: after this,
 * a retry takes the key over and runs (every request of the service answers well within it).
 */
export const IDEMPOTENCY_LEASE_MS = 60_000;
/** The Retry-After of the 409 while the first request runs: an invocation takes milliseconds. */
export const RUNNING_RETRY_AFTER_SECONDS = 1;

/** A request that carries a key: its record's id and fingerprint, and what to do with it. */
export type IdempotentStart =
  { kind: 'run'; id: string; fingerprint: string } | { kind: 'replay'; answer: StoredAnswer };

/** The 409 of a retry while the first request with its key still runs. */
export function stillRunning(): ProblemException {
  return new ProblemException(
    HttpStatus.CONFLICT,
    'Conflict',
    `A request with this ${IDEMPOTENCY_KEY_HEADER} is still being processed; retry after it has answered.`,
    ProblemType.conflict,
    {},
    { 'Retry-After': String(RUNNING_RETRY_AFTER_SECONDS) },
  );
}

/**
 * Idempotency-Key (IETF httpapi draft, Stripe's semantics), from plain values: the first request with a key runs
 * and its answer is kept for IdempotencyRetentionHours per (user, route, key); a retry with the same request gets
 * that answer back, another request with the key is refused (422), a retry while the first runs is a 409.
 */
@Injectable()
export class IdempotencyService {
  private readonly retentionMs: number;
  private readonly logger = new Logger('Idempotency');

  constructor(
    @Inject(IDEMPOTENCY_STORE) private readonly store: IdempotencyStore,
    @Inject(IDEMPOTENCY_SETTINGS.token) settings: IdempotencySettings,
  ) {
    this.retentionMs = settings.IdempotencyRetentionHours * 3_600_000;
  }

  /** Claims `key` for this request, or says why it cannot run (problems: 400, 409, 422). */
  async begin(userId: number, route: string, key: string, fingerprint: string): Promise<IdempotentStart> {
    if (!isValidIdempotencyKey(key))
      throw Problems.badParameter(
        IDEMPOTENCY_KEY_HEADER,
        `${IDEMPOTENCY_KEY_HEADER} must be 1 to 255 printable ASCII characters.`,
      );
    const id = idempotencyRecordId(userId, route, key);
    const claim = await this.store.claim(id, fingerprint, IDEMPOTENCY_LEASE_MS).catch((error: unknown) => {
      this.logger.warn(`Idempotency store refused a claim: ${shortReason(error)}`);
      throw Problems.unavailable(`The ${IDEMPOTENCY_KEY_HEADER} store is not answering.`);
    });
    if (claim.kind === 'claimed') return { kind: 'run', id, fingerprint };
    if (claim.fingerprint !== fingerprint)
      throw Problems.unprocessable(
        IDEMPOTENCY_KEY_HEADER,
        `This ${IDEMPOTENCY_KEY_HEADER} was used with another request (path, query or body); use a new key for a new request.`,
      );
    if (claim.kind === 'running') throw stillRunning();
    return { kind: 'replay', answer: claim.answer };
  }

  /**
   * Keeps the first answer for the retention. The work is done whatever the store says: a store that fails here
   * is logged, the answer still goes out, and the running record's lease ends in IDEMPOTENCY_LEASE_MS.
   */
  async finish(id: string, fingerprint: string, answer: StoredAnswer): Promise<void> {
    await this.store.complete(id, fingerprint, answer, this.retentionMs).catch((error: unknown) => {
      this.logger.warn(`Idempotency store refused an answer: ${shortReason(error)}`);
    });
  }

  /** Gives the key up: the request ended in a way a retry should not see again (overload, a fault). */
  async abandon(id: string): Promise<void> {
    await this.store.release(id).catch((error: unknown) => {
      this.logger.warn(`Idempotency store refused a release: ${shortReason(error)}`);
    });
  }
}
