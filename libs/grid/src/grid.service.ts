import { randomInt } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '@app/runtime';
import { GRID_SETTINGS, type GridSettings } from '@app/config';
import { GRID_PAGE_COLUMNS, type PageColumn } from '@app/declarations';
import { CSV_BYTE_ORDER_MARK, csvColumn, csvFileName, csvLine, csvRecord, type CsvColumn } from './csv';
import type { GridDefinition } from './grid-definition';
import { GridEngine, GridResponse, GridScope, STATISTICS_CAP } from './grid-engine';
import { GridQuery, MAX_TAKE, parseGridQuery } from './grid-query';
import { gridNext } from './grid-next';
import { batchText, GridAnswer, streamedAnswer, timeoutProblem } from './grid-reads';
import { LARGE_READ_ROWS, LargeReadLimit, type Release } from './large-reads';
import { parseBuckets, parseMeasure, type SeriesResponse } from './grid-series';
import { SAMPLE_SEED_MAX } from './sampling';

/** What gridNext needs of a whole answer. */
const pageOf = (r: GridResponse) => ({ last: r.rows.at(-1), count: r.rows.length, total: r.total });

/** The sample a request draws: its seed, or one drawn now, so that every statement of a read sees one sample. */
function seeded(q: GridQuery): GridQuery {
  return q.samplePercentage === null || q.sampleSeed !== null
    ? q
    : { ...q, sampleSeed: randomInt(0, SAMPLE_SEED_MAX) };
}

/**
 * The engine bound to the application's database and clock, and the node's turns of large reads
 * (docs/grids.md, Heavy reads).
 */
@Injectable()
export class GridService {
  readonly engine: GridEngine;
  readonly largeReads: LargeReadLimit;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    private readonly clock: Clock,
    @Inject(GRID_SETTINGS.token) private readonly settings: GridSettings,
  ) {
    this.engine = new GridEngine(dataSource, STATISTICS_CAP, settings.GridUnindexedSortMaxRows);
    this.largeReads = new LargeReadLimit(
      settings.GridLargeReadConcurrency,
      settings.GridLargeReadWaitMilliseconds,
    );
  }

  /** The whole answer in one piece, whatever its size (the unstreamed reference; the routes use `read`). */
  query(def: GridDefinition, raw: Record<string, unknown>, scope: GridScope = []): Promise<GridResponse> {
    return this.whole(def, parseGridQuery(def, raw, this.clock.now()), scope);
  }

  /** A read answered in one piece, with its next page (gridNext). */
  private async whole(def: GridDefinition, q: GridQuery, scope: GridScope): Promise<GridResponse> {
    const response = await this.engine.query(def, q, scope);
    return { ...response, next: gridNext(def, q, pageOf(response)) };
  }

  /**
   * A grid answer: up to LARGE_READ_ROWS rows whole (one statement, cached); more streamed in keyset batches
   * once the node gives the read a turn (GridLargeReadConcurrency; a 503 problem with Retry-After when none
   * comes within GridLargeReadWaitMilliseconds), its statements limited by GridStatementTimeoutMilliseconds.
   */
  async read(def: GridDefinition, raw: Record<string, unknown>, scope: GridScope = []): Promise<GridAnswer> {
    const parsed = parseGridQuery(def, raw, this.clock.now());
    if (parsed.take <= LARGE_READ_ROWS) return { response: await this.whole(def, parsed, scope) };
    const q = seeded(parsed);
    const { session, release } = await this.largeRead();
    const timeout = this.settings.GridStatementTimeoutMilliseconds;
    return {
      stream: await streamedAnswer(
        this.engine,
        { def, q, scope, seed: q.sampleSeed },
        session,
        release,
        timeout,
        (spent) => this.largeReads.pause(spent),
      ),
    };
  }

  /** A turn of the node's large reads and a session for its statements (the turn given back should that fail). */
  private async largeRead(): Promise<{
    session: Awaited<ReturnType<GridEngine['session']>>;
    release: Release;
  }> {
    const release = await this.largeReads.acquire();
    try {
      return { session: await this.engine.session(this.settings.GridStatementTimeoutMilliseconds), release };
    } catch (err) {
      release();
      throw timeoutProblem(err, this.settings.GridStatementTimeoutMilliseconds);
    }
  }

  /** The grid's time series over the filtered window (`buckets`, and the grid's from, to, filters, search). */
  series(def: GridDefinition, raw: Record<string, unknown>): Promise<SeriesResponse> {
    const measure = def.series ? parseMeasure(def.series, raw.measure) : undefined;
    return this.engine.series(
      def,
      parseGridQuery(def, raw, this.clock.now()),
      parseBuckets(raw.buckets),
      measure,
    );
  }

  /**
   * The filtered window as RFC 4180 CSV (spec: audit grids, CSV export): every row of it, up to the grid's
   * 100 000, unless `take` is given; read by keyset batches, so memory holds one batch. The parameters are
   * checked and the window counted before the first chunk, so a bad one is still a 400 problem. The file
   * starts with the UTF-8 byte-order mark; its header holds the columns' labels; times are written as
   * spreadsheets read them, in UTC; its name says when the window held more rows than it.
   */
  async csv(def: GridDefinition, raw: Record<string, unknown>, scope: GridScope = []): Promise<CsvExport> {
    // One sample for the count and the rows, when the request samples without a seed.
    const q = seeded(parseGridQuery(def, raw, this.clock.now()));
    const limit = raw.take === undefined ? MAX_TAKE : q.take;
    const timeout = this.settings.GridStatementTimeoutMilliseconds;
    const { session, release } =
      limit > LARGE_READ_ROWS
        ? await this.largeRead()
        : { session: await this.engine.session(timeout), release: () => undefined };
    let closed = false;
    const close = async () => {
      if (closed) return;
      closed = true;
      try {
        await session.release();
      } finally {
        release();
      }
    };
    let total: number;
    try {
      total = await this.engine.count(def, q, scope, session.query);
    } catch (err) {
      await close();
      throw timeoutProblem(err, timeout);
    }
    const exported = Math.min(limit, total);
    const columns = exportColumns(def);
    const engine = this.engine;
    const largeReads = this.largeReads;
    // The export's order is always newest first, over the whole window (no sort, no paging).
    const rowsOf = { ...q, sort: null, before: null };
    return {
      filename: csvFileName(def.name, q, exported, total),
      total,
      exported,
      close,
      // The header goes out with the first batch, so a database that cannot answer is still a 503 problem.
      async *chunks() {
        try {
          const header = CSV_BYTE_ORDER_MARK + csvLine(columns.map((c) => c.heading));
          const batches = engine.rowBatches(def, rowsOf, scope, q.sampleSeed, limit, session.query);
          yield* batchText(
            batches,
            header,
            (row) => csvRecord(columns, row),
            (spent) => largeReads.pause(spent),
          );
        } catch (err) {
          throw timeoutProblem(err, timeout);
        } finally {
          await close();
        }
      },
    };
  }
}

/**
 * An export's columns: those of the grid's page (GRID_PAGE_COLUMNS, shared with the console), in the page's
 * order with the page's labels, one column per fact; a grid without a page: every column, then what
 * `decorate` adds, each with its label.
 */
export function exportColumns(def: GridDefinition): CsvColumn[] {
  const members = [...def.columns, ...(def.derived ?? [])];
  const page = (GRID_PAGE_COLUMNS as Partial<Record<string, readonly PageColumn[]>>)[def.name];
  if (!page) return members.map((m) => csvColumn(m.name, m.label, m.kind));
  return page.map((c) => {
    const member = members.find((m) => m.name === c.key);
    if (!member) throw new Error(`The page of ${def.name} shows ${c.key}, which the grid does not answer.`);
    return csvColumn(c.key, c.label, member.kind, c.format === 'micros');
  });
}

/** A CSV download: its file name and its text, produced chunk by chunk as it is sent. */
export interface CsvExport {
  filename: string;
  /** Rows in the filtered window, and how many of them the file holds (the newest). */
  total: number;
  exported: number;
  chunks(): AsyncGenerator<string>;
  /** Gives the export's turn and connection back (idempotent; the chunks' end does it too). */
  close(): Promise<void>;
}

/** CSV when asked by `format=csv` or an Accept header that prefers text/csv. */
export function wantsCsv(query: Record<string, unknown>, accept: string | undefined): boolean {
  if (typeof query.format === 'string') return query.format.toLowerCase() === 'csv';
  return typeof accept === 'string' && /(^|,)\s*text\/csv/i.test(accept);
}
