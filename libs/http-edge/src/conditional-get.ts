import { createHash } from 'node:crypto';

/**
 * Conditional GETs (RFC 9110 §13.1.2, RFC 9111 §5.2.1.4): whether a GET's If-None-Match names the answer's
 * current ETag. Not Express's `fresh`: it treats a request's `Cache-Control: no-cache` as "never fresh", and
 * `fetch()`, undici and browsers send exactly that when they revalidate, so no JavaScript client would ever get
 * its 304. A request's no-cache asks the caches on the way not to answer from storage; the origin's 304 is the
 * revalidation it asks for. Everything `fresh` finds fresh is found here too (the parity test), so Express's
 * own step after this one never changes the answer.
 */

/** One entity-tag of a list (RFC 9110 §8.8.3): optionally weak, then an opaque quoted tag. */
const ENTITY_TAG = /(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"/y;

/** The opaque tags an If-None-Match list names (weakness dropped: §13.1.2 compares weakly); malformed: none. */
function opaqueTags(list: string): string[] | undefined {
  const tags: string[] = [];
  let at = 0;
  for (;;) {
    while (at < list.length && (list[at] === ' ' || list[at] === '\t' || list[at] === ',')) at++;
    if (at >= list.length) return tags;
    ENTITY_TAG.lastIndex = at;
    const m = ENTITY_TAG.exec(list);
    if (!m) return undefined;
    tags.push(m[2]);
    at = ENTITY_TAG.lastIndex;
  }
}

/** The opaque tag of an ETag the service sent (`"3"`, `W/"…"`), weakness dropped. */
function opaqueTagOf(etag: string): string | undefined {
  const tags = opaqueTags(etag);
  return tags?.length === 1 ? tags[0] : undefined;
}

/**
 * Whether If-None-Match makes this GET a 304 (RFC 9110 §13.1.2): `*` when there is a current answer, or an
 * entity-tag whose opaque tag equals the ETag's (weak comparison), whatever the request's Cache-Control. A
 * malformed list names nothing: the full answer.
 */
export function ifNoneMatchHolds(
  ifNoneMatch: string | string[] | undefined,
  etag: string | number | string[] | undefined,
): boolean {
  if (ifNoneMatch === undefined) return false;
  const list = Array.isArray(ifNoneMatch) ? ifNoneMatch.join(',') : ifNoneMatch;
  if (list.trim() === '*') return true;
  if (typeof etag !== 'string') return false;
  const current = opaqueTagOf(etag);
  if (current === undefined) return false;
  return (opaqueTags(list) ?? []).includes(current);
}

/** The weak ETag of an answer's JSON text: its SHA-256, first 16 bytes, base64url (`W/"…"`). */
export function hashedETagOf(text: string): string {
  return `W/"${createHash('sha256').update(text).digest('base64url').slice(0, 22)}"`;
}

const HASHED = new WeakSet<object>();

/**
 * Asks for the answer's JSON text to carry a hashed ETag (hashedETagOf) when it is written whole: grids' JSON
 * answers. A JSON array (a list) gets one without asking.
 */
export function answerWithHashedETag(res: object): void {
  HASHED.add(res);
}

/** Whether a GET's JSON answer gets a hashed ETag: a list (an array), or asked for (answerWithHashedETag). */
export function takesHashedETag(res: object, body: unknown): body is object {
  if (typeof body !== 'object' || body === null) return false;
  return Array.isArray(body) || HASHED.has(res);
}

/** The ETag header of an answer whose ETag is a hash of its JSON text, as the document states it. */
export const HASHED_ETAG_HEADER = {
  description:
    'A weak entity-tag of the JSON answer (a hash of its text): send it back in If-None-Match to be answered 304 while the answer is the same',
  schema: { type: 'string' },
};

export const IF_NONE_MATCH_DESCRIPTION =
  'The ETag of the answer as last read (or `*`): while it is still the current one, the answer is 304 Not Modified with no body, whatever Cache-Control the request carries (RFC 9111 §5.2.1.4). Entity-tags compare weakly.';
