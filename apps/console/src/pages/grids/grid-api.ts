import { ApiError } from '../../api/problem';
import type { GridDeclaration } from './declarations';
import type { GridResponse } from './grid-types';

export type Row = Record<string, unknown>;

/**
 * GET /api/<Grid>?<toolbar> — a plain same-origin fetch: the page's grid is chosen at run time by name and
 * its toolbar is already a query string; the answer's types are the document's (grid-types.ts).
 */
export async function fetchGrid(
  grid: GridDeclaration,
  query: URLSearchParams,
  signal: AbortSignal,
): Promise<GridResponse<Row>> {
  let response: Response;
  try {
    response = await fetch(`/api/${grid.name}?${query.toString()}`, {
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
  return body as GridResponse<Row>;
}

/** The CSV download of the same window (the service's format=csv): every row unless take was set. */
export function csvHref(grid: GridDeclaration, query: URLSearchParams): string {
  const q = new URLSearchParams(query);
  q.delete('sortField');
  q.delete('sortDirection');
  q.set('format', 'csv');
  return `/api/${grid.name}?${q.toString()}`;
}
