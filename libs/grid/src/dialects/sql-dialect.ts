import type { DatabaseProvider } from '@app/config';
import type { ColumnStatistics } from '../statistics';

/** Collects parameters and hands out the dialect's placeholders. */
export class Params {
  readonly values: unknown[] = [];
  constructor(private readonly placeholder: (index: number) => string) {}
  add(value: unknown): string {
    this.values.push(value);
    return this.placeholder(this.values.length);
  }
}

/** What readValues runs its statement with: the data source's own query. */
export type ValueQuery = (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>;

/**
 * The SQL of the compact path's statement, each rendered with its values added to the Params given (rendering
 * twice adds them twice: placeholders cannot be reused). The statistics columns are v0…vN-1 throughout.
 */
export interface ValuePieces {
  /**
   * The newest `cap` rows of the filtered window, newest first (ORDER BY time DESC, id DESC, LIMIT cap);
   * `also`, a condition of the dialect's own (never input), is added to its WHERE.
   */
  capped(p: Params, also?: string): string;
  /** Every row of the filtered window, in no particular order. */
  window(p: Params): string;
  /** The table, quoted. */
  readonly table: string;
  /** The filtered window's condition (parenthesised: it can be joined with AND). */
  where(p: Params): string;
  /** The statistics columns v0…vN-1 as quoted column names of the table. */
  readonly columns: readonly string[];
  /** `SELECT COUNT(*) AS n` over the filtered window. */
  count(p: Params): string;
  /** The extras (cache markers), with the window's total as `total` first when `withTotal`. */
  extras(p: Params, withTotal: boolean): string[];
  /** How many rows the statistics cover at most (the newest of the window). */
  readonly cap: number;
}

/**
 * The SQL that differs between databases, for the grid engine. Every identifier passed in was checked
 * against the grid definition's allow-list; every value goes through Params.
 */
/** Each statistics column's values of a window, and the extras read beside them. */
export interface WindowValues {
  columns: Float64Array[];
  extras: Record<string, unknown>;
}

export interface SqlDialect {
  readonly provider: DatabaseProvider;
  /** NULL sorts below every value (first when ascending): SQLite and SQL Server; PostgreSQL puts it above. */
  readonly nullsSortLow: boolean;
  /**
   * The statements that set and reset a per-statement time limit on one connection (PostgreSQL's
   * statement_timeout), or undefined where the limit is the connection's own (SQL Server's request timeout) or
   * none can apply (SQLite runs in the service's thread).
   */
  statementTimeout?(ms: number): { set: string; reset: string };
  quote(identifier: string): string;
  params(): Params;
  /** How an instant is bound for comparison with a timestamp column. */
  instant(d: Date): unknown;
  /** SELECT … FROM … WHERE … ORDER BY … limited to n rows. */
  selectLimited(columns: string, from: string, where: string, orderBy: string, n: number): string;
  /** Looks up what the server offers, once, before the first query (optional). */
  prepare?(query: (sql: string) => Promise<unknown[]>): Promise<void>;
  /**
   * Case-insensitive substring match of a column against an already escaped pattern, lower-cased by
   * JavaScript's toLowerCase(): the column must be folded the same way, non-ASCII letters included.
   */
  like(column: string, patternPlaceholder: string): string;
  /** The consistent-sample predicate on the id column. */
  sample(idColumn: string, seedPlaceholder: string, thresholdPlaceholder: string): string;
  /**
   * ONE statement computing the statistics of columns v0…vN-1 of the inner query (already capped), returning a
   * single row with the `extras` scalar expressions as further columns; parse it with parseStatistics.
   */
  statistics(inner: string, count: number, extras: readonly string[]): string;
  parseStatistics(row: Record<string, unknown>, count: number): ColumnStatistics[];
  /**
   * The compact path, where the dialect has one (it then replaces `statistics`): the values of v0…vN-1 of the
   * newest `cap` rows of the window read as typed arrays, and the extras row with `total`, from one
   * statement (one snapshot); the engine computes the statistics in JavaScript (typedStatistics).
   */
  readValues?(query: ValueQuery, pieces: ValuePieces, count: number): Promise<WindowValues>;
  /**
   * A scalar SQL expression that is true when no writing transaction was in progress at this statement's
   * snapshot (so no lower id can still commit after it), or null when the dialect cannot tell; then the
   * cache also compares the count of rows in the window.
   */
  readonly quietSnapshot: string | null;
  /** A raw value of a date column as an ISO 8601 string. */
  readDate(value: unknown): string | null;
  /**
   * The 0-based index of the time bucket a time column's value falls in: whole `width` milliseconds
   * counted from the instant `origin` (placeholders of an instant bound with `instant` and of a whole number).
   * Only values at or after the origin reach it (the window's condition), so truncation is the floor.
   */
  timeBucket(column: string, origin: string, width: string): string;
}

/**
 * Escapes LIKE wildcards so %, _, \ and [ match themselves (ESCAPE '\'): SQL Server also reads [ as the
 * start of a character class; PostgreSQL and SQLite take an escaped [ as itself.
 */
export function likePattern(search: string): string {
  return `%${search.toLowerCase().replace(/[\\%_[]/g, (c) => `\\${c}`)}%`;
}

/** Text of a raw database value. */
export function textOf(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

export function toNumber(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? n : null;
}
