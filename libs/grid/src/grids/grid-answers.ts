import type { Request, Response } from 'express';
import { answerWithHashedETag } from '@app/http-edge';
import type { GridDefinition } from '../grid-definition';
import type { GridResponse, GridScope } from '../grid-engine';
import type { GridAnswer } from '../grid-reads';
import type { GridNext } from '../grid-next';
import { GridService, wantsCsv } from '../grid.service';
import { sendChunked } from './chunked-answer';

/** A grid's query string as Express parses it; the grid service validates it. */
export type RawQuery = Record<string, unknown>;

/**
 * The next page of a whole answer as a link too (`Link: <…>; rel="next"`, RFC 8288): the request's own path and
 * parameters with beforeTime and beforeId. A streamed answer knows its next page only after its last row, so
 * it says it in the body (`next`) alone.
 */
function linkNext(req: Request, res: Response, next: GridNext): void {
  const url = new URL(req.originalUrl, 'http://service.invalid');
  url.searchParams.set('beforeTime', next.beforeTime);
  url.searchParams.set('beforeId', String(next.beforeId));
  res.setHeader('Link', `<${url.pathname}${url.search}>; rel="next"`);
}

/** A grid answer: returned whole (Nest writes it), or streamed here (a large read). */
export async function answer(
  req: Request,
  res: Response,
  pending: Promise<GridAnswer>,
): Promise<GridResponse | undefined> {
  const a = await pending;
  // whole: the hash of its text is its ETag (If-None-Match, 304); streamed, it has none (it is not held whole)
  if ('response' in a) {
    answerWithHashedETag(res);
    if (a.response.next) linkNext(req, res, a.response.next);
    return a.response;
  }
  await sendChunked(res, a.stream, () => res.status(200).type('application/json; charset=utf-8'));
  return undefined;
}

/**
 * A grid's answer, or its CSV export when asked (`format=csv`, or an Accept that prefers text/csv): the
 * page's columns, streamed in chunks, named by the grid and its window.
 */
export async function serve(
  grids: GridService,
  def: GridDefinition,
  q: RawQuery,
  req: Request,
  res: Response,
  scope: GridScope = [],
): Promise<GridResponse | undefined> {
  const { format: _format, ...query } = q;
  if (wantsCsv(q, req.headers.accept)) {
    const csv = await grids.csv(def, query, scope);
    await sendChunked(res, csv, () => {
      res.status(200).type('text/csv; charset=utf-8');
      res.setHeader('Content-Disposition', `attachment; filename="${csv.filename}"`);
    });
    return undefined;
  }
  return answer(req, res, grids.read(def, query, scope));
}
