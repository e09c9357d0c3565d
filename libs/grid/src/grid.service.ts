import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Response } from 'express';
import { DataSource } from 'typeorm';
import { Clock } from '@app/common';
import { csvChunks } from './csv';
import type { GridDefinition } from './grid-definition';
import { GridEngine, GridResponse, GridScope } from './grid-engine';
import { parseGridQuery } from './grid-query';

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

  /** The rows of a grid as RFC 4180 CSV, streamed in chunks. */
  async csv(
    def: GridDefinition,
    raw: Record<string, unknown>,
    scope: GridScope,
    response: Response,
  ): Promise<void> {
    const result = await this.query(def, raw, scope);
    const header = result.rows.length ? Object.keys(result.rows[0]) : def.columns.map((c) => c.name);
    response.status(200).type('text/csv; charset=utf-8');
    response.setHeader('Content-Disposition', `attachment; filename="${def.name}.csv"`);
    for (const chunk of csvChunks(header, result.rows)) {
      if (!response.write(chunk)) await new Promise((resolve) => response.once('drain', resolve));
    }
    response.end();
  }
}

/** CSV when asked by `format=csv` or an Accept header that prefers text/csv. */
export function wantsCsv(query: Record<string, unknown>, accept: string | undefined): boolean {
  if (typeof query.format === 'string') return query.format.toLowerCase() === 'csv';
  return typeof accept === 'string' && /(^|,)\s*text\/csv/i.test(accept);
}
