import { randomInt } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '@app/common';
import { CSV_BYTE_ORDER_MARK, csvColumn, csvFileName, csvLine, csvRecord, type CsvColumn } from './csv';
import type { GridDefinition } from './grid-definition';
import { GridEngine, GridResponse, GridScope } from './grid-engine';
import { MAX_TAKE, parseGridQuery } from './grid-query';
import { parseBuckets, type SeriesResponse } from './grid-series';
import { SAMPLE_SEED_MAX } from './sampling';

/** The engine bound to the application's database and clock. */
@Injectable()
export class GridService {
  readonly engine: GridEngine;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    private readonly clock: Clock,
  ) {
    this.engine = new GridEngine(dataSource);
  }

  query(def: GridDefinition, raw: Record<string, unknown>, scope: GridScope = []): Promise<GridResponse> {
    return this.engine.query(def, parseGridQuery(def, raw, this.clock.now()), scope);
  }

  /** The grid's time series over the filtered window (`buckets`, and the grid's from, to, filters, search). */
  series(def: GridDefinition, raw: Record<string, unknown>): Promise<SeriesResponse> {
    return this.engine.series(def, parseGridQuery(def, raw, this.clock.now()), parseBuckets(raw.buckets));
  }

  /**
   * The filtered window as RFC 4180 CSV (spec: audit grids, CSV export): every row of it, up to the grid's
   * 100 000, unless `take` is given; read by keyset batches, so memory holds one batch. The parameters are
   * checked and the window counted before the first chunk, so a bad one is still a 400 problem. The file
   * starts with the UTF-8 byte-order mark; its header holds the columns' labels; times are written as
   * spreadsheets read them, in UTC; its name says when the window held more rows than it.
   */
  async csv(def: GridDefinition, raw: Record<string, unknown>, scope: GridScope = []): Promise<CsvExport> {
    const parsed = parseGridQuery(def, raw, this.clock.now());
    // One sample for the count and the rows, when the request samples without a seed.
    const q =
      parsed.samplePercentage === null || parsed.sampleSeed !== null
        ? parsed
        : { ...parsed, sampleSeed: randomInt(0, SAMPLE_SEED_MAX) };
    const limit = raw.take === undefined ? MAX_TAKE : q.take;
    const total = await this.engine.count(def, q, scope);
    const exported = Math.min(limit, total);
    const columns = exportColumns(def);
    const engine = this.engine;
    return {
      filename: csvFileName(def.name, exported, total),
      total,
      exported,
      // The header goes out with the first batch, so a database that cannot answer is still a 503 problem.
      async *chunks() {
        let header = CSV_BYTE_ORDER_MARK + csvLine(columns.map((c) => c.heading));
        for await (const rows of engine.exportRows(def, q, scope, limit)) {
          let chunk = header;
          header = '';
          for (const row of rows) chunk += csvRecord(columns, row);
          yield chunk;
        }
        if (header) yield header;
      },
    };
  }
}

/** An export's columns: the grid's, then what `decorate` adds, each with its label. */
function exportColumns(def: GridDefinition): CsvColumn[] {
  return [
    ...def.columns.map((c) => csvColumn(c.name, c.label, c.kind)),
    ...(def.derived ?? []).map((m) => csvColumn(m.name, m.label, m.kind)),
  ];
}

/** A CSV download: its file name and its text, produced chunk by chunk as it is sent. */
export interface CsvExport {
  filename: string;
  /** Rows in the filtered window, and how many of them the file holds (the newest). */
  total: number;
  exported: number;
  chunks(): AsyncGenerator<string>;
}

/** CSV when asked by `format=csv` or an Accept header that prefers text/csv. */
export function wantsCsv(query: Record<string, unknown>, accept: string | undefined): boolean {
  if (typeof query.format === 'string') return query.format.toLowerCase() === 'csv';
  return typeof accept === 'string' && /(^|,)\s*text\/csv/i.test(accept);
}
