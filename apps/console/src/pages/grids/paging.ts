import type { GridDeclaration } from './declarations';
import type { Row } from './grid-api';
import { textOf } from './format';

/** Rows a page holds when Rows is empty (the service's default take). */
export const DEFAULT_TAKE = 100;
/**
 * The most rows a page holds, asks for and lists: the console never asks for rows it does not show. A plain
 * table of 100 000 rows takes a browser seconds and hundreds of megabytes to lay out (and 27 MB of JSON to
 * fetch); a larger window is read page by page (Older rows), its statistics and chart come from the service.
 */
export const MAX_PAGE_ROWS = 1_000;

/** The Rows of a view as a page size: a whole number from 1 to MAX_PAGE_ROWS, else the default. */
export function pageRows(take: string | null): number {
  const requested = Number(take);
  return Number.isInteger(requested) && requested > 0 ? Math.min(requested, MAX_PAGE_ROWS) : DEFAULT_TAKE;
}

/**
 * "Older rows" through a window larger than a page: the URL holds the last row's time and id (beforeTime,
 * beforeId: the service answers the rows after it in the newest-first order) and the page's number. Only in
 * the default order: a page of another order is not "older".
 */
export interface Paging {
  enabled: boolean;
  /** 1 for the newest rows. */
  page: number;
  take: number;
  /** Rows before this page (for "rows 101–200"). */
  offset: number;
  newest: () => void;
  older: (last: Row) => void;
}

export function pagingOf(
  grid: GridDeclaration,
  view: URLSearchParams,
  go: (changes: Record<string, string>) => void,
): Paging {
  const take = pageRows(view.get('take'));
  const page = Math.max(1, Math.trunc(Number(view.get('page'))) || 1);
  const enabled = !view.has('sortField');
  const current = enabled && view.has('beforeTime') ? page : 1;
  return {
    enabled,
    page: current,
    take,
    offset: (current - 1) * take,
    newest: () => go({ beforeTime: '', beforeId: '', page: '' }),
    older: (last) =>
      go({
        beforeTime: textOf(last[grid.time ?? 'createdDate']),
        beforeId: textOf(last.id),
        page: String(current + 1),
      }),
  };
}
