import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Clock } from '@app/common';
import { csvLine } from './csv';
import type { GridDefinition } from './grid-definition';
import { GridEngine, GridResponse, GridScope } from './grid-engine';
import { MAX_TAKE, parseGridQuery } from './grid-query';

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

  /**
   * The filtered window as RFC 4180 CSV (spec: audit grids, CSV export): every row of it, up to the grid's
   * 100 000, unless `take` is given; read by keyset batches, so memory holds one batch. The parameters are
   * validated before the first chunk, so a bad one is still a 400 problem.
   */
  csv(def: GridDefinition, raw: Record<string, unknown>, scope: GridScope = []): CsvExport {
    const q = parseGridQuery(def, raw, this.clock.now());
    const limit = raw.take === undefined ? MAX_TAKE : q.take;
    const blank = Object.fromEntries(def.columns.map((c) => [c.name, null]));
    const header = [...def.columns.map((c) => c.name), ...Object.keys(def.decorate?.(blank) ?? {})];
    const engine = this.engine;
    return {
      filename: `${def.name}.csv`,
      // The header goes out with the first batch, so a database that cannot answer is still a 503 problem.
      async *chunks() {
        let header_ = csvLine(header);
        for await (const rows of engine.exportRows(def, q, scope, limit)) {
          let chunk = header_;
          header_ = '';
          for (const row of rows) chunk += csvLine(header.map((h) => row[h]));
          yield chunk;
        }
        if (header_) yield header_;
      },
    };
  }
}

/** A CSV download: its file name and its text, produced chunk by chunk as it is sent. */
export interface CsvExport {
  filename: string;
  chunks(): AsyncGenerator<string>;
}

/** CSV when asked by `format=csv` or an Accept header that prefers text/csv. */
export function wantsCsv(query: Record<string, unknown>, accept: string | undefined): boolean {
  if (typeof query.format === 'string') return query.format.toLowerCase() === 'csv';
  return typeof accept === 'string' && /(^|,)\s*text\/csv/i.test(accept);
}
