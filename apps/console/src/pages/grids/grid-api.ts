import { ApiError } from '../../api/problem';
import type { SeriesAnswer } from './charts/series-data';
import type { GridDeclaration } from './declarations';
import type { GridResponse } from './grid-types';
import { PAGING_PARAMS, requestParams } from './toolbar-state';

export type Row = Record<string, unknown>;

/**
 * GET a grid's JSON — a plain same-origin fetch: the page's grid is chosen at run time by name and its view
 * is already a query string; the answers' types are the document's (grid-types.ts, series-data.ts).
 */
async function getJson<T>(path: string, query: URLSearchParams, signal: AbortSignal): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${path}?${query.toString()}`, {
      credentials: 'same-origin',
      cache: 'no-store',
      headers: { Accept: 'application/json' },
      signal,
    });
  } catch (err) {
    if (signal.aborted) throw err;
    throw new ApiError(0, null);
  }
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) throw ApiError.fromResponse(response, body);
  return body as T;
}

/** GET /api/<Grid>: the rows of the view (a preset window as from = now − its span). */
export function fetchGrid(grid: GridDeclaration, view: URLSearchParams, signal: AbortSignal) {
  return getJson<GridResponse<Row>>(`/api/${grid.name}`, requestParams(view, Date.now()), signal);
}

/** What the series of a view does not take: it is the whole window, whatever the rows shown. */
const NOT_SERIES = ['take', 'sortField', 'sortDirection', 'failed', 'refused', ...PAGING_PARAMS];

/** The part of a view its chart depends on (its query key: a new page of rows does not refetch it). */
export function seriesView(view: string): string {
  const q = new URLSearchParams(view);
  for (const name of NOT_SERIES) q.delete(name);
  return q.toString();
}

/** GET /api/<Grid>/Series: the window's measure in about `buckets` time buckets. */
export function fetchSeries(
  grid: GridDeclaration,
  view: URLSearchParams,
  buckets: number,
  signal: AbortSignal,
) {
  const query = requestParams(view, Date.now(), NOT_SERIES);
  query.set('buckets', String(buckets));
  return getJson<SeriesAnswer>(`/api/${grid.name}/Series`, query, signal);
}

/**
 * The CSV download of the same window (the service's format=csv): every row of it (the newest 100 000 at
 * most), not only the page the table shows (Rows is a page's size), nor its order (newest first).
 */
export function csvHref(grid: GridDeclaration, view: URLSearchParams): string {
  const q = requestParams(view, Date.now(), ['take', 'sortField', 'sortDirection', ...PAGING_PARAMS]);
  q.set('format', 'csv');
  return `/api/${grid.name}?${q.toString()}`;
}
