import { randomInt } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { dialectFor, likePattern, Params, SqlDialect, textOf, ValueQuery, ValuePieces } from './dialects';
import type { GridDefinition } from './grid-definition';
import type { GridQuery, QueryFilter } from './grid-query';
import type { GridNext } from './grid-next';
import { sampleOffset, sampleThreshold, SAMPLE_SEED_MAX } from './sampling';
import { ColumnStatistics, typedStatistics } from './statistics';
import { seriesAnswer, seriesOrigin, seriesStatement, seriesWidth, type SeriesResponse } from './grid-series';
import { providerOf } from '@app/database';
import { Problems } from '@app/problems';
import { cacheKey, CacheEntry as CachedAnswer, changeCheck } from './grid-cache';
import {
  indexedSort,
  KEY_ID,
  KEY_VALUE,
  keysetAfter,
  keysetOrder,
  remainingWindow,
  sortKeyOf,
} from './keyset';

/** Statistics are computed over the filtered set capped at its newest rows (spec: Limits). */
export const STATISTICS_CAP = 100_000;
const CACHE_ENTRIES = 256;
/**
 * Rows a large read (a streamed answer, a CSV export) reads per statement: each is a short indexed query, and
 * the loop is given back between two (BACKGROUND_SLICE: a few milliseconds of work a turn).
 */
export const READ_BATCH = 256;

/** Where a keyset read of rows has reached: the last row's sort value and id, rows sent, and whether more may follow. */
interface KeysetWalk {
  after: { value: unknown; id: unknown } | null;
  sent: number;
  more: boolean;
}
/** GridUnindexedSortMaxRows' default: the rows a window may hold to be sorted by a column without an index. */
export const UNINDEXED_SORT_ROWS = 10_000;

export interface GridResponse {
  rows: Record<string, unknown>[];
  total: number;
  statistics: Record<string, ColumnStatistics>;
  /** Present when the request sampled: the percentage and the seed used, to repeat the same sample. */
  sample?: { percentage: number; seed: number };
  /** Routes' answers (GridService.read): the next page's beforeTime and beforeId, or null (gridNext). */
  next?: GridNext | null;
}

/** Extra equality conditions a caller's visibility adds (audit grids: the caller's tenant). */
export type GridScope = { column: string; value: number | string; orNull?: false }[];

type CacheEntry = CachedAnswer<GridResponse>;

/** What a streamed answer sends after its rows: the window's total, statistics and sample. */
export type GridHead = Omit<GridResponse, 'rows'>;

/**
 * The statements of one read on one connection: on PostgreSQL with its statement_timeout set (and reset
 * when released); elsewhere the data source's own.
 */
export interface GridSession {
  query: ValueQuery;
  release(): Promise<void>;
}

/**
 * One filter's condition, its values added to `p` in the order they appear. A flag without codes: the flag set
 * and the code none of `except` (a NULL code counts as none of them), or, for `false`, exactly the other rows.
 */
function filterCondition(d: SqlDialect, p: Params, f: QueryFilter): string {
  if (!('except' in f)) return `${d.quote(f.column)} = ${p.add(f.value)}`;
  const code = d.quote(f.codeColumn);
  const flagged = `${d.quote(f.column)} = ${p.add(true)}`;
  const matched = `${flagged} AND (${code} IS NULL OR ${code} NOT IN (${f.except.map((c) => p.add(c)).join(', ')}))`;
  return f.value ? `(${matched})` : `NOT (${matched})`;
}

/**
 * The one grid engine: every grid declares itself (GridDefinition) and this does the filtering, sorting,
 * sampling, statistics (in the database, one round trip) and caching.
 */
export class GridEngine {
  private readonly dialect: SqlDialect;
  private readonly cache = new Map<string, CacheEntry>();
  private prepared: Promise<void> | null = null;

  /**
   * `statisticsCap`: the newest rows of a window the statistics cover (STATISTICS_CAP; smaller in tests).
   * `unindexedSortRows`: the rows a window may hold to be sorted by a column without an index (a setting).
   */
  constructor(
    private readonly dataSource: DataSource,
    private readonly statisticsCap = STATISTICS_CAP,
    private readonly unindexedSortRows = UNINDEXED_SORT_ROWS,
  ) {
    this.dialect = dialectFor(providerOf(dataSource.options.type));
  }

  get provider() {
    return this.dialect.provider;
  }

  /** The dialect's one-time look at the server; retried on the next query if the database was away. */
  private prepare(): Promise<void> {
    if (!this.dialect.prepare) return Promise.resolve();
    this.prepared ??= this.dialect
      .prepare((sql) => this.dataSource.query<unknown[]>(sql))
      .catch((err: unknown) => {
        this.prepared = null;
        throw err;
      });
    return this.prepared;
  }

  async query(def: GridDefinition, q: GridQuery, scope: GridScope = []): Promise<GridResponse> {
    await this.prepare();
    const seed = q.samplePercentage === null ? null : (q.sampleSeed ?? randomInt(0, SAMPLE_SEED_MAX));
    const key = q.samplePercentage !== null && q.sampleSeed === null ? null : cacheKey(def, q, scope);
    const cached = key ? this.cache.get(key) : undefined;
    if (cached && key) {
      const check = await changeCheck(this.dataSource, this.dialect, def, q, cached);
      if (check.unchanged) {
        // refresh LRU position and the window it now stands for
        this.cache.delete(key);
        this.cache.set(key, { ...cached, from: q.from, to: q.to });
        return cached.response;
      }
    }
    const { response, markers, cacheable } = await this.compute(def, q, scope, seed);
    if (key && cacheable) {
      this.cache.set(key, { from: q.from, to: q.to, ...markers, response });
      while (this.cache.size > CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
    }
    return response;
  }

  /**
   * The statements of one grid answer, each with its own parameters (positional placeholders cannot be
   * reused, so a WHERE clause that appears twice is rendered twice, in textual order).
   */
  build(def: GridDefinition, q: GridQuery, scope: GridScope = [], seed: number | null = q.sampleSeed) {
    const d = this.dialect;
    const t = d.quote(def.table);
    const time = d.quote(def.timeColumn);
    const id = d.quote(def.idColumn);
    const windowOnly = !q.filters.length && !scope.length && q.search === null && q.samplePercentage === null;
    const window = (p: Params) =>
      `${time} >= ${p.add(d.instant(q.from))} AND ${time} <= ${p.add(d.instant(q.to))}`;
    const where = (p: Params): string => {
      const parts = [window(p)];
      for (const f of q.filters) parts.push(filterCondition(d, p, f));
      for (const s of scope) parts.push(`${d.quote(s.column)} = ${p.add(s.value)}`);
      if (q.search !== null) {
        const pattern = likePattern(q.search);
        parts.push(`(${def.searchColumns.map((c) => d.like(d.quote(c), p.add(pattern))).join(' OR ')})`);
      }
      if (q.samplePercentage !== null && seed !== null) {
        parts.push(d.sample(id, p.add(sampleOffset(seed)), p.add(sampleThreshold(q.samplePercentage))));
      }
      return parts.join(' AND ');
    };
    const columns = def.columns.map((c) => `${d.quote(c.column)} AS ${d.quote(c.name)}`).join(', ');
    const order = q.sort
      ? `${d.quote(q.sort.column)} ${q.sort.direction}, ${id} ${q.sort.direction}`
      : `${time} DESC, ${id} DESC`;
    const statNames = def.statistics.map((name) => d.quote(def.columns.find((c) => c.name === name)!.column));
    const statColumns = statNames.map((column, i) => `${column} AS v${i}`);
    const capped = (p: Params, also?: string) =>
      d.selectLimited(
        statColumns.join(', '),
        t,
        also ? `${where(p)} AND ${also}` : where(p),
        `${time} DESC, ${id} DESC`,
        this.statisticsCap,
      );

    const rowsParams = d.params();
    const rowsWhere = q.before
      ? `${where(rowsParams)} AND ${this.olderThan(def, rowsParams, q.before)}`
      : where(rowsParams);
    const rows = d.selectLimited(columns, t, rowsWhere, order, q.take);

    // total and the cache markers ride in the statistics statement: one statement, one snapshot.
    const extrasOf = (p: Params, withTotal = true) => [
      ...(withTotal ? [`(SELECT COUNT(*) FROM ${t} WHERE ${where(p)}) AS total`] : []),
      `(SELECT MAX(${id}) FROM ${t}) AS mx`,
      `(SELECT MIN(${id}) FROM ${t}) AS mn`,
      ...(d.quietSnapshot ? [`CASE WHEN ${d.quietSnapshot} THEN 1 ELSE 0 END AS quiet`] : []),
      ...(windowOnly || d.quietSnapshot ? [] : [`(SELECT COUNT(*) FROM ${t} WHERE ${window(p)}) AS wc`]),
    ];
    const summaryParams = d.params();
    const inner = statColumns.length ? capped(summaryParams) : '';
    const extras = extrasOf(summaryParams);
    const summary = statColumns.length
      ? d.statistics(inner, statColumns.length, extras)
      : `SELECT ${extras.join(', ')}`;
    return {
      rows: { sql: rows, params: rowsParams.values },
      /** What the engine runs: statistics (when the grid has any), total and cache markers in one statement. */
      summary: { sql: summary, params: summaryParams.values },
      windowOnly,
      /** The WHERE clause of the filtered window, with its parameters added to `p`. */
      where,
      /** The pieces of the dialect's compact path (readValues). */
      pieces: {
        capped,
        window: (p: Params) => `SELECT ${statColumns.join(', ')} FROM ${t} WHERE ${where(p)}`,
        table: t,
        where: (p: Params) => `(${where(p)})`,
        columns: statNames,
        count: (p: Params) => `SELECT COUNT(*) AS n FROM ${t} WHERE ${where(p)}`,
        extras: extrasOf,
        cap: this.statisticsCap,
      } satisfies ValuePieces,
      statisticsCount: statColumns.length,
    };
  }

  private async compute(
    def: GridDefinition,
    q: GridQuery,
    scope: GridScope,
    seed: number | null,
  ): Promise<{
    response: GridResponse;
    markers: Pick<CacheEntry, 'maxId' | 'minId' | 'windowCount'>;
    cacheable: boolean;
  }> {
    const sql = this.build(def, q, scope, seed);
    const query: ValueQuery = (text, params) => this.dataSource.query(text, params);
    const summarize = () => this.summarize(def, sql, query);
    const readRows = () => query(sql.rows.sql, sql.rows.params);
    // A sort without an index is refused on a large window before its rows are read (the summary counts it).
    const [rows, { summary, statistics }] = indexedSort(def, q)
      ? await Promise.all([readRows(), summarize()])
      : await summarize().then(async (s) => {
          this.assertSortable(def, q, Number(s.summary.total ?? 0));
          return [await readRows(), s] as const;
        });
    const total = Number(summary.total ?? 0);
    const parsed = statistics;
    return {
      response: {
        rows: rows.map((r) => this.readRow(def, r)),
        total,
        statistics: Object.fromEntries(def.statistics.map((name, i) => [name, parsed[i]])),
        ...(q.samplePercentage !== null && seed !== null
          ? { sample: { percentage: q.samplePercentage, seed } }
          : {}),
      },
      markers: {
        maxId: summary.mx === null || summary.mx === undefined ? null : Number(summary.mx),
        minId: summary.mn === null || summary.mn === undefined ? null : Number(summary.mn),
        windowCount: this.dialect.quietSnapshot ? 0 : sql.windowOnly ? total : Number(summary.wc ?? 0),
      },
      // A writer in flight at this snapshot could still commit rows with lower ids: do not cache then.
      cacheable: !this.dialect.quietSnapshot || Number(summary.quiet) === 1,
    };
  }

  /** The summary statement of `sql` (statistics, total, cache markers), by the compact path where there is one. */
  private summarize(
    def: GridDefinition,
    sql: ReturnType<GridEngine['build']>,
    query: ValueQuery,
  ): Promise<{ summary: Record<string, unknown>; statistics: ColumnStatistics[] }> {
    return sql.statisticsCount > 0 && this.dialect.readValues !== undefined
      ? this.compactSummary(sql.pieces, sql.statisticsCount, query)
      : this.sqlSummary(sql.summary, def, query);
  }

  /**
   * A 400 naming sortField when the sort has no index and the window holds more rows than may be sorted so
   * (GridUnindexedSortMaxRows): such a sort reads and orders the whole window, in every statement.
   */
  assertSortable(def: GridDefinition, q: GridQuery, total: number): void {
    if (indexedSort(def, q) || total <= this.unindexedSortRows) return;
    const name = def.columns.find((c) => c.column === q.sort?.column)?.name ?? 'this column';
    throw Problems.badParameter(
      'sortField',
      `sortField ${name} has no index: it sorts a window of at most ${this.unindexedSortRows} rows, and this one holds ${total}. Narrow from and to or filter, or sort by ${def.columns.find((c) => c.column === def.timeColumn)?.name ?? 'time'}.`,
    );
  }

  /** Statistics computed by the database, with total and the cache markers: one statement. */
  private async sqlSummary(
    statement: { sql: string; params: unknown[] },
    def: GridDefinition,
    query: ValueQuery,
  ): Promise<{ summary: Record<string, unknown>; statistics: ColumnStatistics[] }> {
    const [summary = {}] = await query(statement.sql, statement.params);
    const statistics = def.statistics.length
      ? this.dialect.parseStatistics(summary, def.statistics.length)
      : [];
    return { summary, statistics };
  }

  /** The window's values fetched compactly from one snapshot, the statistics computed here over typed arrays. */
  private async compactSummary(
    pieces: ValuePieces,
    count: number,
    query: ValueQuery,
  ): Promise<{ summary: Record<string, unknown>; statistics: ColumnStatistics[] }> {
    const { columns, extras } = await this.dialect.readValues!(query, pieces, count);
    return { summary: extras, statistics: columns.map(typedStatistics) };
  }

  /**
   * A session for the statements of one large read: one connection, with the statement timeout set where
   * the database takes one per statement (PostgreSQL); elsewhere the data source itself.
   */
  async session(timeoutMs: number): Promise<GridSession> {
    const timeout = this.dialect.statementTimeout?.(timeoutMs);
    if (!timeout)
      return { query: (sql, params) => this.dataSource.query(sql, params), release: () => Promise.resolve() };
    const runner = this.dataSource.createQueryRunner('slave');
    try {
      await runner.connect();
      await runner.query(timeout.set);
    } catch (err) {
      await runner.release();
      throw err;
    }
    return {
      query: (sql, params) => runner.query(sql, params) as Promise<Record<string, unknown>[]>,
      release: async () => {
        try {
          await runner.query(timeout.reset);
        } finally {
          await runner.release();
        }
      },
    };
  }

  /**
   * What a streamed answer sends after its rows (total, statistics, sample), through `query`; a sort without
   * an index on a window too large for it is refused here, before any row is read.
   */
  async head(
    def: GridDefinition,
    q: GridQuery,
    scope: GridScope,
    seed: number | null,
    query: ValueQuery,
  ): Promise<GridHead> {
    await this.prepare();
    const { summary, statistics } = await this.summarize(def, this.build(def, q, scope, seed), query);
    const total = Number(summary.total ?? 0);
    this.assertSortable(def, q, total);
    return {
      total,
      statistics: Object.fromEntries(def.statistics.map((name, i) => [name, statistics[i]])),
      ...(q.samplePercentage !== null && seed !== null
        ? { sample: { percentage: q.samplePercentage, seed } }
        : {}),
    };
  }

  /**
   * The rows of the filtered window in the query's order (its sort, else newest first; `before` applies), at
   * most `limit`, in batches of READ_BATCH read one after another by keyset (the sort's value, then the id,
   * after the last row of the previous batch): each batch is a short statement, memory stays one batch
   * whatever the window holds, and the rows are those one statement with the same ORDER BY and LIMIT reads.
   * No total, no statistics. For streamed answers and CSV exports.
   */
  async *rowBatches(
    def: GridDefinition,
    q: GridQuery,
    scope: GridScope,
    seed: number | null,
    limit: number,
    query: ValueQuery,
    batch = READ_BATCH,
  ): AsyncGenerator<Record<string, unknown>[]> {
    await this.prepare();
    const d = this.dialect;
    const key = sortKeyOf(def, q);
    const columns = [
      ...def.columns.map((c) => `${d.quote(c.column)} AS ${d.quote(c.name)}`),
      `${d.quote(key.column)} AS ${d.quote(KEY_VALUE)}`,
      `${d.quote(def.idColumn)} AS ${d.quote(KEY_ID)}`,
    ].join(', ');
    const order = keysetOrder(d, key, def.idColumn);
    const walk: KeysetWalk = { after: null, sent: 0, more: true };
    const read = async (n: number) => {
      const p = d.params();
      const where = [this.build(def, remainingWindow(d, def, q, key, walk.after), scope, seed).where(p)];
      if (q.before) where.push(this.olderThan(def, p, q.before));
      if (walk.after) where.push(keysetAfter(d, p, key, def.idColumn, walk.after));
      const raw = await query(
        d.selectLimited(columns, d.quote(def.table), where.join(' AND '), order, n),
        p.values,
      );
      walk.more = raw.length === n;
      walk.sent += raw.length;
      if (raw.length) walk.after = { value: raw[raw.length - 1][KEY_VALUE], id: raw[raw.length - 1][KEY_ID] };
      return raw.map((r) => this.readRow(def, r));
    };
    // Each batch is yielded straight from the read, never held in a variable of this generator: a suspended
    // generator keeps its variables alive, so the rows lived while the answer was written and paced, and were
    // promoted to the old generation (the heap grew by about 140 MB under 20 heavy readers). The last batch
    // may be empty.
    while (walk.more && walk.sent < limit) yield await read(Math.min(batch, limit - walk.sent));
  }

  /**
   * The keyset bound "before this row in the newest-first order": earlier than `time`, or at `time` with a
   * lower id (without an id: earlier than `time`); joined with AND, it needs no parentheses of its own. Times are written at millisecond precision by the
   * service, so the row's time as answered (milliseconds) is its stored time.
   */
  private olderThan(def: GridDefinition, p: Params, before: { time: Date; id: number | null }): string {
    const d = this.dialect;
    const time = d.quote(def.timeColumn);
    if (before.id === null) return `${time} < ${p.add(d.instant(before.time))}`;
    const id = d.quote(def.idColumn);
    // `time <= t` first: it bounds an index scan on every database (an OR alone does not on PostgreSQL)
    return `${time} <= ${p.add(d.instant(before.time))} AND (${time} < ${p.add(d.instant(before.time))} OR ${id} < ${p.add(before.id)})`;
  }

  /**
   * The grid's time series over the whole filtered window (GET /api/<Grid>/Series): the measure's count, min,
   * max and sum per bucket and series column, in one statement. Sampling, take, sort and paging do not apply.
   */
  async series(
    def: GridDefinition,
    q: GridQuery,
    buckets: number,
    measure: string = def.series?.measure ?? '',
  ): Promise<SeriesResponse> {
    if (!def.series) throw new Error(`Grid ${def.name} declares no series`);
    // the measure was checked against the declaration's list (parseMeasure): a column name, never the caller's text
    const series = { ...def.series, measure };
    await this.prepare();
    const width = seriesWidth(q.to.getTime() - q.from.getTime(), buckets);
    const origin = seriesOrigin(q.from, width);
    const { where } = this.build(def, { ...q, samplePercentage: null }, [], null);
    const statement = seriesStatement(this.dialect, def, series, where, origin, width);
    const rows = await this.dataSource.query<Record<string, unknown>[]>(statement.sql, statement.params);
    return seriesAnswer(def, series, q, origin, width, rows);
  }

  /** How many rows the filtered window holds (the CSV export's file name says when it holds more). */
  async count(
    def: GridDefinition,
    q: GridQuery,
    scope: GridScope,
    query: ValueQuery = (sql, params) => this.dataSource.query(sql, params),
  ): Promise<number> {
    await this.prepare();
    const p = this.dialect.params();
    const where = this.build(def, q, scope, q.sampleSeed).where(p);
    const sql = `SELECT COUNT(*) AS n FROM ${this.dialect.quote(def.table)} WHERE ${where}`;
    const [row] = await query(sql, p.values);
    return Number(row?.n ?? 0);
  }

  private readRow(def: GridDefinition, raw: Record<string, unknown>): Record<string, unknown> {
    const row: Record<string, unknown> = {};
    for (const c of def.columns) {
      const v = raw[c.name];
      row[c.name] =
        v === null || v === undefined
          ? null
          : c.kind === 'number'
            ? Number(v)
            : c.kind === 'date'
              ? this.dialect.readDate(v)
              : c.kind === 'boolean'
                ? Boolean(Number(v)) || v === true
                : textOf(v);
    }
    // the derived members after the row's own, added in place (no copy of each row)
    return def.decorate ? Object.assign(row, def.decorate(row)) : row;
  }

  /** Drops every cached answer (tests; and callers that know they changed rows in place). */
  clearCache(): void {
    this.cache.clear();
  }
}
