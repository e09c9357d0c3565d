/**
 * The first answer as it is replayed: its status (absent: 200, the most common, so most records do without it),
 * the headers that name the result, the body.
 */
export interface StoredAnswer {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** What a claim found: the key is now this request's, or another request holds it (running or answered). */
export type Claim =
  | { kind: 'claimed' }
  | { kind: 'running'; fingerprint: string }
  | { kind: 'answered'; fingerprint: string; answer: StoredAnswer };

/**
 * Where idempotency records live: Redis when RedisConnectionString is set, otherwise the database. Both take a
 * key with ONE atomic conditional write (Redis SET NX PX; an INSERT whose primary key refuses a second), so two
 * nodes can never both run one key.
 */
export interface IdempotencyStore {
  /** Takes `id` for `leaseMs` (a running request), unless a live record holds it. */
  claim(id: string, fingerprint: string, leaseMs: number): Promise<Claim>;
  /** Keeps the first answer for `retentionMs`. */
  complete(id: string, fingerprint: string, answer: StoredAnswer, retentionMs: number): Promise<void>;
  /** Gives the key up (the request ended without an answer worth keeping), so a retry runs again. */
  release(id: string): Promise<void>;
}

export const IDEMPOTENCY_STORE = Symbol('IdempotencyStore');

/** The stored form of a record in either store: short member names, the record stays small. */
export interface RecordText {
  /** request fingerprint */
  f: string;
  /** the answer, absent while running */
  a?: StoredAnswer;
}

export function claimOf(text: string): Claim {
  const r = JSON.parse(text) as RecordText;
  return r.a ? { kind: 'answered', fingerprint: r.f, answer: r.a } : { kind: 'running', fingerprint: r.f };
}
