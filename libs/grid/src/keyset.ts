import type { Params, SqlDialect } from './dialects';
import type { ColumnKind, GridDefinition } from './grid-definition';
import type { GridQuery } from './grid-query';

/**
 * The order of a grid's rows as a keyset: a column (the sort's, or the time column: newest first) and the id
 * after it in the same direction, so that "the rows after this one" is a condition and each batch of a large
 * read is a short statement starting where the previous one ended (no OFFSET, no re-reading).
 */
export interface SortKey {
  /** Database column (from the declaration). */
  column: string;
  direction: 'ASC' | 'DESC';
  /** The column may hold NULL (where NULLs come in the order then differs by database). */
  nullable: boolean;
  kind: ColumnKind;
}

/** Aliases under which a batch reads its keyset values beside the row's own (never a grid column name). */
export const KEY_VALUE = 'grid_key_value';
export const KEY_ID = 'grid_key_id';

export function sortKeyOf(def: GridDefinition, q: Pick<GridQuery, 'sort'>): SortKey {
  const column = q.sort?.column ?? def.timeColumn;
  const declared = def.columns.find((c) => c.column === column);
  return {
    column,
    direction: q.sort?.direction ?? 'DESC',
    // a derived member's stored column (a stage id) is not declared: taken as nullable, which is always right
    nullable: column !== def.timeColumn && (declared ? declared.nullable === true : true),
    kind: declared?.kind ?? (column === def.timeColumn ? 'date' : 'number'),
  };
}

/**
 * Whether the order is served by an index, so that any window may be sorted so: newest first, or the time
 * column either way (every grid's time column is indexed; the id, the tie-break, is in SQLite's index and
 * follows an incremental sort on PostgreSQL). Any other column sorts only a bounded window.
 */
export function indexedSort(def: GridDefinition, q: Pick<GridQuery, 'sort'>): boolean {
  return q.sort === null || q.sort.column === def.timeColumn;
}

export function keysetOrder(d: SqlDialect, key: SortKey, idColumn: string): string {
  return `${d.quote(key.column)} ${key.direction}, ${d.quote(idColumn)} ${key.direction}`;
}

/** A keyset value read back as the driver gave it, bound again for comparison with its column. */
function bound(d: SqlDialect, key: SortKey, raw: unknown): unknown {
  if (key.kind !== 'date') return raw;
  return d.instant(new Date(d.readDate(raw) ?? 0));
}

/**
 * The rows after `last` (its keyset value and id, as read) in the key's order, values added to `p` in
 * textual order. A column that cannot be NULL: `c >= v AND (c > v OR id > i)` (descending: `<`), whose first
 * part bounds an index scan. A nullable one follows where the database puts NULLs (`nullsSortLow`: first when
 * ascending, as SQLite and SQL Server do; PostgreSQL puts them last), so the batches read exactly what one
 * statement with the same ORDER BY would.
 */
export function keysetAfter(
  d: SqlDialect,
  p: Params,
  key: SortKey,
  idColumn: string,
  last: { value: unknown; id: unknown },
): string {
  const c = d.quote(key.column);
  const id = d.quote(idColumn);
  const cmp = key.direction === 'ASC' ? '>' : '<';
  if (!key.nullable) {
    const v = bound(d, key, last.value);
    return `${c} ${cmp}= ${p.add(v)} AND (${c} ${cmp} ${p.add(v)} OR ${id} ${cmp} ${p.add(last.id)})`;
  }
  const nullsFirst = (key.direction === 'ASC') === d.nullsSortLow;
  if (last.value === null || last.value === undefined) {
    const among = `(${c} IS NULL AND ${id} ${cmp} ${p.add(last.id)})`;
    return nullsFirst ? `(${among} OR ${c} IS NOT NULL)` : among;
  }
  const v = bound(d, key, last.value);
  const after = `${c} ${cmp} ${p.add(v)} OR (${c} = ${p.add(v)} AND ${id} ${cmp} ${p.add(last.id)})`;
  return nullsFirst ? `(${after})` : `(${after} OR ${c} IS NULL)`;
}

/**
 * The query with its window narrowed to what is left to read: `to` down to `beforeTime`, and, when the key is
 * the time column, the window's far end moved to the last row read. The keyset condition alone is not
 * enough: SQLite bounds an index scan by one of two upper bounds only, and took the window's, so every batch
 * stepped again over every row already sent (a 100 000-row read cost the square of its batches).
 */
export function remainingWindow(
  d: SqlDialect,
  def: GridDefinition,
  q: GridQuery,
  key: SortKey,
  after: { value: unknown } | null,
): GridQuery {
  let { from, to } = q;
  if (q.before && q.before.time.getTime() < to.getTime()) to = q.before.time;
  if (after && key.column === def.timeColumn) {
    const t = new Date(d.readDate(after.value) ?? 0);
    if (key.direction === 'DESC' && t.getTime() < to.getTime()) to = t;
    if (key.direction === 'ASC' && t.getTime() > from.getTime()) from = t;
  }
  return from === q.from && to === q.to ? q : { ...q, from, to };
}
