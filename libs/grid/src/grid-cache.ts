import type { DataSource } from 'typeorm';
import type { Params, SqlDialect } from './dialects';
import type { GridDefinition } from './grid-definition';
import type { GridQuery } from './grid-query';

/** A cached answer and what it stood for: its window and the markers the change check compares. */
export interface CacheEntry<R> {
  from: Date;
  to: Date;
  maxId: number | null;
  minId: number | null;
  windowCount: number;
  response: R;
}

/** The key of an answer: the grid, every parameter that shapes it (a defaulted window as such) and the scope. */
export function cacheKey(def: GridDefinition, q: GridQuery, scope: unknown): string {
  return JSON.stringify([
    def.name,
    q.fromDefaulted ? 'default' : q.from.getTime(),
    q.toDefaulted ? 'default' : q.to.getTime(),
    q.filters,
    q.search,
    q.take,
    q.samplePercentage,
    q.sampleSeed,
    q.sort,
    q.before && [q.before.time.getTime(), q.before.id],
    scope,
  ]);
}

/**
 * Whether the rows a cached answer stands for are still exactly the rows of the window. Rows are never
 * updated, and an answer is only cached when no writer was in flight at its snapshot (so no lower id can
 * commit later; where the dialect cannot tell, the count of rows in the window is compared too). Then the
 * same newest and oldest id and, when the default window moved with the clock, nothing in the slices it
 * left or entered, mean the same set. One round trip, answered from indexes.
 */
export async function changeCheck<R>(
  dataSource: DataSource,
  d: SqlDialect,
  def: GridDefinition,
  q: GridQuery,
  previous: CacheEntry<R>,
): Promise<{ unchanged: boolean }> {
  const p: Params = d.params();
  const t = d.quote(def.table);
  const time = d.quote(def.timeColumn);
  const id = d.quote(def.idColumn);
  const parts = [
    `(SELECT MAX(${id}) FROM ${t}) AS mx`,
    `(SELECT MIN(${id}) FROM ${t}) AS mn`,
    ...(d.quietSnapshot
      ? []
      : [
          `(SELECT COUNT(*) FROM ${t} WHERE ${time} >= ${p.add(d.instant(q.from))} AND ${time} <= ${p.add(d.instant(q.to))}) AS wc`,
        ]),
  ];
  const moved = previous.from.getTime() !== q.from.getTime() || previous.to.getTime() !== q.to.getTime();
  if (moved) {
    parts.push(
      `(SELECT COUNT(*) FROM ${t} WHERE (${time} >= ${p.add(d.instant(previous.from))} AND ${time} < ${p.add(d.instant(q.from))}) OR (${time} > ${p.add(d.instant(previous.to))} AND ${time} <= ${p.add(d.instant(q.to))})) AS shifted`,
    );
  }
  const sql = `SELECT ${parts.join(', ')}`;
  const [row] = await dataSource.query<Record<string, unknown>[]>(sql, p.values);
  const maxId = row.mx === null ? null : Number(row.mx);
  const minId = row.mn === null ? null : Number(row.mn);
  const windowCount = d.quietSnapshot ? 0 : Number(row.wc);
  const unchanged =
    previous.maxId === maxId &&
    previous.minId === minId &&
    previous.windowCount === windowCount &&
    (!moved || Number(row.shifted) === 0);
  return { unchanged };
}
