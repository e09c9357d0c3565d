import { hash } from 'node:crypto';

/** The request header (IETF httpapi "The Idempotency-Key HTTP Header Field"). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** Set to `true` on an answer that is the stored first answer, not a new run. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

// 1 to 255 printable ASCII characters (space to tilde): what a client's generator (a UUID, a payment id) writes.
const KEY = /^[\x20-\x7e]{1,255}$/;

/** True when `key` is 1 to 255 printable ASCII characters. */
export function isValidIdempotencyKey(key: string): boolean {
  return KEY.test(key);
}

// crypto.hash: the one-shot digest (half the time of createHash's object for a short text)
const digest = (text: string): string => hash('sha256', text, 'base64url');

/**
 * The store's id of one (user, route, key): a SHA-256, so a record's id has one size (43 characters) whatever
 * the key's length, and no key is kept as sent.
 */
export function idempotencyRecordId(userId: number, route: string, key: string): string {
  return digest(`${userId}\n${route}\n${key}`);
}

/**
 * What "the same request" means for a retry: the SHA-256 of the path and query as sent (the model's guid, `trace`)
 * and the parsed body written back as JSON (members in the order sent; whitespace between tokens ignored).
 */
export function requestFingerprint(pathAndQuery: string, body: unknown): string {
  return digest(`${pathAndQuery}\n${body === undefined ? '' : JSON.stringify(body)}`);
}
