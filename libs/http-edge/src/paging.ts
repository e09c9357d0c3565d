import { applyDecorators, createParamDecorator, type ExecutionContext, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiProperty, ApiQuery } from '@nestjs/swagger';
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { answerWithHashedETag, HASHED_ETAG_HEADER } from './conditional-get';
import { Problems } from '@app/problems';

/** A page asked for: at most `limit` rows whose id is above `after` (0: from the first), in id order. */
export interface PageRequest {
  limit: number;
  after: number;
}

/** A page of rows: the rows, the whole list's total, and the id after which the next page starts (or null). */
export interface RowPage<R> {
  rows: R[];
  total: number;
  nextAfter: number | null;
}

/** Items a page holds at most, and when a cursor is given without a limit. */
export const MAX_PAGE_LIMIT = 1_000;
export const DEFAULT_PAGE_LIMIT = 100;

/** The total of a paged list (every item the list holds, whatever the page). */
export const TOTAL_COUNT_HEADER = 'X-Total-Count';

/** One page of a list, its items already in the answer's shape. `nextAfter`: where the next page starts. */
export interface Page<T> {
  items: T[];
  total: number;
  nextAfter: number | null;
}

/** What a cursor looks like on the wire (base64url): also its pattern in the document. */
export const CURSOR_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
const CURSOR = new RegExp(CURSOR_PATTERN);
/** The cursor's form: a version byte, the position (7 bytes, big-endian), the first 16 bytes of its HMAC. */
const CURSOR_VERSION = 2;
const POSITION_BYTES = 7;
const MAC_BYTES = 16;
const CURSOR_BYTES = 1 + POSITION_BYTES + MAC_BYTES;
/** The express application setting holding the cursor key (set at start: useHttpMiddleware). */
export const LIST_CURSOR_KEY = 'list cursor key';

/**
 * The key that signs list cursors, derived from JwtKey by HKDF-SHA-256 under its own label, so a cursor's MAC
 * can never stand for a token's signature or anything else made with JwtKey.
 */
export function listCursorKey(jwtKey: string): Buffer {
  return Buffer.from(
    hkdfSync('sha256', Buffer.from(jwtKey, 'utf8'), Buffer.alloc(0), 'decisioning list cursor v2', 32),
  );
}

/**
 * Which list a cursor belongs to: the route's path (letter case ignored, as the router ignores it) and every
 * query parameter but `limit` and `cursor` (the user of an API-key list, the search), sorted. A cursor given for
 * one list is refused by every other.
 */
export function listIdentity(originalUrl: string): string {
  const url = new URL(originalUrl, 'http://service.invalid');
  const params = [...url.searchParams].filter(([k]) => k !== 'limit' && k !== 'cursor');
  params.sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : x > y ? 1 : 0) : a < b ? -1 : 1));
  return JSON.stringify([url.pathname.toLowerCase(), params]);
}

/** A list cursor's key and its list: what signs and checks it. */
export interface CursorBinding {
  key: Buffer;
  list: string;
}

function cursorMac(binding: CursorBinding, head: Buffer): Buffer {
  return createHmac('sha256', binding.key)
    .update(head)
    .update(binding.list, 'utf8')
    .digest()
    .subarray(0, MAC_BYTES);
}

/**
 * The cursor of the page after the item with id `after`, for one list. Opaque to clients: base64url of a version,
 * the position and an HMAC over both and the list (listIdentity) under the service's cursor key, so a cursor
 * the service did not give, or gave for another list, is refused.
 */
export function encodeCursor(after: number, binding: CursorBinding): string {
  const head = Buffer.alloc(1 + POSITION_BYTES);
  head.writeUInt8(CURSOR_VERSION, 0);
  head.writeUIntBE(Math.floor(after / 2 ** 24), 1, POSITION_BYTES - 3);
  head.writeUIntBE(after % 2 ** 24, POSITION_BYTES - 2, 3);
  return Buffer.concat([head, cursorMac(binding, head)]).toString('base64url');
}

function decodeCursor(cursor: string, binding: CursorBinding | null): number {
  const bytes = CURSOR.test(cursor) ? Buffer.from(cursor, 'base64url') : Buffer.alloc(0);
  const head = bytes.subarray(0, 1 + POSITION_BYTES);
  const mac = bytes.subarray(1 + POSITION_BYTES);
  // Base64url of exactly CURSOR_BYTES, its own encoding (no other spelling of the same bytes is taken).
  const wellFormed =
    binding !== null &&
    bytes.length === CURSOR_BYTES &&
    bytes.toString('base64url') === cursor &&
    head[0] === CURSOR_VERSION;
  if (!wellFormed || !timingSafeEqual(mac, cursorMac(binding, head)))
    throw Problems.badParameter(
      'cursor',
      'cursor must be one this service answered for this list (in Link).',
    );
  return head.readUIntBE(1, POSITION_BYTES - 3) * 2 ** 24 + head.readUIntBE(POSITION_BYTES - 2, 3);
}

/**
 * The page a list request asks for: `limit` a whole number from 1 to MAX_PAGE_LIMIT (absent: DEFAULT_PAGE_LIMIT),
 * from the `cursor` encodeCursor made for this list (`binding`; none: every cursor is refused), or from the
 * first item. Every list is bounded: there is no "whole list" answer. Anything else is a 400 naming the
 * parameter (the strict parameters refused an empty one before).
 */
export function pageRequest(
  limit: unknown,
  cursor: unknown,
  binding: CursorBinding | null = null,
): PageRequest {
  const hasLimit = limit !== undefined && limit !== '';
  const hasCursor = cursor !== undefined && cursor !== '';
  let n = DEFAULT_PAGE_LIMIT;
  if (hasLimit) {
    if (typeof limit !== 'string' || !/^\s*\d{1,7}\s*$/.test(limit))
      throw Problems.badParameter('limit', 'limit must be a whole number.');
    n = Number(limit);
    if (n < 1 || n > MAX_PAGE_LIMIT)
      throw Problems.badParameter('limit', `limit must be from 1 to ${MAX_PAGE_LIMIT}.`, 'out_of_range');
  }
  if (hasCursor && typeof cursor !== 'string') throw Problems.badParameter('cursor', 'cursor must be text.');
  return { limit: n, after: hasCursor ? decodeCursor(cursor, binding) : 0 };
}

/** The longest `search` a list takes. */
export const MAX_LIST_SEARCH_LENGTH = 256;

/** A list's optional `search` text (null: absent or empty); longer than MAX_LIST_SEARCH_LENGTH: a 400. */
export function searchTerm(raw: unknown): string | null {
  if (raw === undefined || raw === '') return null;
  if (typeof raw !== 'string') throw Problems.badParameter('search', 'search must be text, given once.');
  // In code points, as the document's maxLength counts.
  if ([...raw].length > MAX_LIST_SEARCH_LENGTH)
    throw Problems.badParameter('search', `search must be at most ${MAX_LIST_SEARCH_LENGTH} characters.`);
  return raw.trim() === '' ? null : raw;
}

/** A page of rows mapped to the answer's items, with where the next page starts. */
export function pageOf<R, T>(page: RowPage<R>, map: (rows: R[]) => T[] | Promise<T[]>): Promise<Page<T>> {
  return Promise.resolve(map(page.rows)).then((items) => ({
    items,
    total: page.total,
    nextAfter: page.nextAfter,
  }));
}

/** What a controller needs of the request and the response to state a page (Express's own, structurally). */
interface RequestUrl {
  originalUrl: string;
  app?: { get(setting: string): unknown };
}
interface HeaderSink {
  setHeader(name: string, value: string): unknown;
}

/** A list's answer: one page of its items, the whole list's total, and the cursor of the next page. */
export interface ListPage<T> {
  items: T[];
  total: number;
  /** The `cursor` of the next page of the same list; null on the last page. */
  next: string | null;
}

/**
 * A page as the list's answer: `{ items, total, next }` (the next page's cursor, null on the last), with the
 * same in headers for clients that follow links: X-Total-Count, and `Link` (RFC 8288) holding the first page
 * (rel="first") and, when there is more, the next (rel="next"): the request's own path and parameters with
 * the limit and the cursor.
 */
function answerPage<T>(
  page: Page<T>,
  paging: PageRequest,
  req: RequestUrl,
  res: HeaderSink,
  binding: CursorBinding | null,
): ListPage<T> {
  res.setHeader(TOTAL_COUNT_HEADER, String(page.total));
  // the page's JSON text, hashed, is its ETag (If-None-Match, 304)
  answerWithHashedETag(res);
  const url = new URL(req.originalUrl, 'http://service.invalid');
  url.searchParams.set('limit', String(paging.limit));
  url.searchParams.delete('cursor');
  const links = [`<${url.pathname}${url.search}>; rel="first"`];
  let next: string | null = null;
  if (page.nextAfter !== null) {
    if (binding === null) throw new Error('No list cursor key: useHttpMiddleware sets it');
    next = encodeCursor(page.nextAfter, binding);
    url.searchParams.set('cursor', next);
    links.push(`<${url.pathname}${url.search}>; rel="next"`);
  }
  res.setHeader('Link', links.join(', '));
  return { items: page.items, total: page.total, next };
}

/** A list route's paging: the page asked for, and the answer that states it. */
export interface PagedList {
  readonly request: PageRequest;
  /** The page as the list's answer ({ items, total, next }), its total and links in the headers too. */
  answer<T>(page: Promise<Page<T>>): Promise<ListPage<T>>;
}

/**
 * The paging of a list route (`limit`, `cursor`), checked before the handler runs (a bad one is a 400 naming
 * it): the handler lists `request` and returns `answer(…)`. The route then needs no access to the response.
 */
export const Paged = createParamDecorator((_data: unknown, ctx: ExecutionContext): PagedList => {
  const http = ctx.switchToHttp();
  const req = http.getRequest<RequestUrl & { query: Record<string, unknown> }>();
  const res = http.getResponse<HeaderSink>();
  const key = req.app?.get(LIST_CURSOR_KEY);
  const binding = Buffer.isBuffer(key) ? { key, list: listIdentity(req.originalUrl) } : null;
  const request = pageRequest(req.query.limit, req.query.cursor, binding);
  return { request, answer: async (page) => answerPage(await page, request, req, res, binding) };
});

/** `<Item>Page`: the schema of a list's answer, one per item class (named after it, without "Dto"). */
const pageModels = new Map<Type<unknown>, Type<unknown>>();
function pageModel(item: Type<unknown>): Type<unknown> {
  const known = pageModels.get(item);
  if (known) return known;
  const model = class {};
  Object.defineProperty(model, 'name', { value: `${item.name.replace(/Dto$/, '')}Page` });
  ApiProperty({ type: [item], description: 'This page’s items, in the order of creation' })(
    model.prototype,
    'items',
  );
  ApiProperty({ type: 'integer', minimum: 0, description: 'How many items the whole list holds' })(
    model.prototype,
    'total',
  );
  ApiProperty({
    type: String,
    nullable: true,
    pattern: CURSOR_PATTERN,
    description: 'The next page: pass it as `cursor` with the same other parameters; null on the last page',
  })(model.prototype, 'next');
  pageModels.set(item, model);
  return model;
}

/**
 * Documents a list: its answer (`{ items, total, next }` of `item`), `limit` and `cursor`, and the headers
 * that state the page again for clients that follow links.
 */
export function ApiPaged(item: Type<unknown>, description?: string) {
  const page = pageModel(item);
  return applyDecorators(
    ApiExtraModels(page),
    ApiQuery({
      name: 'limit',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_LIMIT, default: DEFAULT_PAGE_LIMIT },
      description: `At most this many items, in the order of creation (default ${DEFAULT_PAGE_LIMIT}); every list is paged`,
    }),
    ApiQuery({
      name: 'cursor',
      required: false,
      schema: { type: 'string', pattern: CURSOR_PATTERN },
      description:
        'Opaque and signed: the next page, exactly as the previous page’s `next` gave it, for the same list (the same path and other parameters); any other value is a 400. Absent: the first page',
    }),
    ApiOkResponse({
      type: page,
      ...(description ? { description } : {}),
      headers: {
        [TOTAL_COUNT_HEADER]: {
          description: 'How many items the whole list holds (as `total`)',
          schema: { type: 'integer', minimum: 0 },
        },
        Link: {
          description:
            '<the first page>; rel="first", and with more to come <the next page>; rel="next" (RFC 8288)',
          schema: { type: 'string' },
        },
        ETag: HASHED_ETAG_HEADER,
      },
    }),
  );
}
