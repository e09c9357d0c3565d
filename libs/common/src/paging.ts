import { applyDecorators, createParamDecorator, type ExecutionContext, type Type } from '@nestjs/common';
import { ApiOkResponse, ApiQuery } from '@nestjs/swagger';
import { Problems } from './problem';

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

/** One page of a list, its items already in the answer's shape. `next`: the cursor of the next page. */
export interface Page<T> {
  items: T[];
  total: number;
  next: string | null;
}

const CURSOR_VERSION = 'p1.';
/** What a cursor looks like on the wire (base64url): also its pattern in the document. */
export const CURSOR_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
const CURSOR = new RegExp(CURSOR_PATTERN);

/**
 * The cursor of the page after the item with id `after`. Opaque to clients (base64url of a versioned
 * position), so its form can change without breaking them; it carries nothing a client could not see.
 */
export function encodeCursor(after: number): string {
  return Buffer.from(`${CURSOR_VERSION}${after}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): number {
  const text = CURSOR.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const match = /^p1\.(\d{1,15})$/.exec(text);
  if (!match) throw Problems.badParameter('cursor', 'cursor must be one this service answered (in Link).');
  return Number(match[1]);
}

/**
 * The paging a list request asked for, or null: neither `limit` nor `cursor` given, the list is answered
 * whole, exactly as without paging. `limit` is a whole number from 1 to MAX_PAGE_LIMIT; a cursor without a
 * limit pages by DEFAULT_PAGE_LIMIT. Anything else is a 400 naming the parameter.
 */
export function pageRequest(limit: unknown, cursor: unknown): PageRequest | null {
  const hasLimit = limit !== undefined && limit !== '';
  const hasCursor = cursor !== undefined && cursor !== '';
  if (!hasLimit && !hasCursor) return null;
  let n = DEFAULT_PAGE_LIMIT;
  if (hasLimit) {
    if (typeof limit !== 'string' || !/^\s*\d{1,7}\s*$/.test(limit))
      throw Problems.badParameter('limit', 'limit must be a whole number.');
    n = Number(limit);
    if (n < 1 || n > MAX_PAGE_LIMIT)
      throw Problems.badParameter('limit', `limit must be from 1 to ${MAX_PAGE_LIMIT}.`);
  }
  if (hasCursor && typeof cursor !== 'string') throw Problems.badParameter('cursor', 'cursor must be text.');
  return { limit: n, after: hasCursor ? decodeCursor(cursor) : 0 };
}

/** The longest `search` a list takes. */
export const MAX_LIST_SEARCH_LENGTH = 256;

/** A list's optional `search` text (null: absent or empty); longer than MAX_LIST_SEARCH_LENGTH: a 400. */
export function searchTerm(raw: unknown): string | null {
  if (raw === undefined || raw === '') return null;
  if (typeof raw !== 'string') throw Problems.badParameter('search', 'search must be text, given once.');
  if (raw.length > MAX_LIST_SEARCH_LENGTH)
    throw Problems.badParameter('search', `search must be at most ${MAX_LIST_SEARCH_LENGTH} characters.`);
  return raw.trim() === '' ? null : raw;
}

/** A page of rows mapped to the answer's items, with its cursor. */
export function pageOf<R, T>(page: RowPage<R>, map: (rows: R[]) => T[] | Promise<T[]>): Promise<Page<T>> {
  return Promise.resolve(map(page.rows)).then((items) => ({
    items,
    total: page.total,
    next: page.nextAfter === null ? null : encodeCursor(page.nextAfter),
  }));
}

/** What a controller needs of the request and the response to state a page (Express's own, structurally). */
interface RequestUrl {
  originalUrl: string;
}
interface HeaderSink {
  setHeader(name: string, value: string): unknown;
}

/**
 * States a page in the answer's headers, its body staying the plain array of items: the list's total in
 * X-Total-Count, and, when there is more, the next page in `Link: <…>; rel="next"` (RFC 8288), the
 * request's own path and parameters with the next cursor.
 */
function answerPage<T>(page: Page<T>, paging: PageRequest | null, req: RequestUrl, res: HeaderSink): T[] {
  // Not paged: the whole list, exactly the answer it always was.
  if (paging === null) return page.items;
  res.setHeader(TOTAL_COUNT_HEADER, String(page.total));
  if (page.next !== null) {
    const url = new URL(req.originalUrl, 'http://service.invalid');
    url.searchParams.set('limit', String(paging.limit));
    url.searchParams.set('cursor', page.next);
    res.setHeader('Link', `<${url.pathname}${url.search}>; rel="next"`);
  }
  return page.items;
}

/** A list route's paging: what was asked for (null: the whole list), and the answer that states it. */
export interface PagedList {
  readonly request: PageRequest | null;
  /** The page's items as the body, its total and next page in the headers when the request paged. */
  answer<T>(page: Promise<Page<T>>): Promise<T[]>;
}

/**
 * The paging of a list route (`limit`, `cursor`), checked before the handler runs (a bad one is a 400 naming
 * it): the handler lists `request` and returns `answer(…)`. The route then needs no access to the response.
 */
export const Paged = createParamDecorator((_data: unknown, ctx: ExecutionContext): PagedList => {
  const http = ctx.switchToHttp();
  const req = http.getRequest<RequestUrl & { query: Record<string, unknown> }>();
  const res = http.getResponse<HeaderSink>();
  const request = pageRequest(req.query.limit, req.query.cursor);
  return { request, answer: async (page) => answerPage(await page, request, req, res) };
});

/**
 * Documents a list that pages on request: its answer (the array of `item`), the optional `limit` and
 * `cursor`, and the headers a paged answer carries. Without the parameters the list is answered whole.
 */
export function ApiPaged(item: Type<unknown>, description?: string) {
  return applyDecorators(
    ApiQuery({
      name: 'limit',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_LIMIT },
      description: `Pages the list: at most this many items, in the order of creation. Absent (and no cursor): the whole list, with no paging headers. With a cursor but no limit: ${DEFAULT_PAGE_LIMIT}`,
    }),
    ApiQuery({
      name: 'cursor',
      required: false,
      schema: { type: 'string', pattern: CURSOR_PATTERN },
      description: 'Opaque: the next page, as given in the previous page’s Link header (rel="next")',
    }),
    ApiOkResponse({
      type: [item],
      ...(description ? { description } : {}),
      headers: {
        [TOTAL_COUNT_HEADER]: {
          description: 'Paged answers only: how many items the whole list holds',
          schema: { type: 'integer', minimum: 0 },
        },
        Link: {
          description: 'Paged answers with more to come: <the next page>; rel="next" (RFC 8288)',
          schema: { type: 'string' },
        },
      },
    }),
  );
}
