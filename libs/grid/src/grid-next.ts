import type { GridDefinition } from './grid-definition';
import type { GridQuery } from './grid-query';

/** The parameters of a grid's next page of rows: the last row's time and id (beforeTime, beforeId). */
export interface GridNext {
  beforeTime: string;
  beforeId: number;
}

/** Whether the query's order is the one beforeTime/beforeId page through: newest first (no sort, or the time column descending). */
export function pagesByTime(def: GridDefinition, q: Pick<GridQuery, 'sort'>): boolean {
  return q.sort === null || (q.sort.column === def.timeColumn && q.sort.direction === 'DESC');
}

/**
 * The next page of a grid's rows, or null: only newest first (another order has no keyset to page by), and
 * only when the page is full (fewer rows than take: the window has no more). Without a bound yet, a window
 * whose total is within take has no more either; with one, the next page of a full page may be empty.
 */
export function gridNext(
  def: GridDefinition,
  q: Pick<GridQuery, 'sort' | 'take' | 'before'>,
  page: { last: Record<string, unknown> | undefined; count: number; total: number },
): GridNext | null {
  const { last, count, total } = page;
  if (!pagesByTime(def, q) || last === undefined || count < q.take) return null;
  if (q.before === null && total <= q.take) return null;
  const timeName = def.columns.find((c) => c.column === def.timeColumn)?.name;
  const idName = def.columns.find((c) => c.column === def.idColumn)?.name;
  const time = timeName === undefined ? undefined : last[timeName];
  const id = idName === undefined ? undefined : last[idName];
  if (typeof id !== 'number' || (typeof time !== 'string' && !(time instanceof Date))) return null;
  return { beforeTime: time instanceof Date ? time.toISOString() : time, beforeId: id };
}
