/*
 * npm run bench:grids — fills ArchiverStagePerformanceCounter with 1 000 000 rows (100 000 inside the default
 * one-hour window) and prints, in one run per database (PostgreSQL, then SQLite), p50 and p99 of:
 *   1. the grid call with statistics over HTTP (each call a fresh answer: no cache hit);
 *   2. the bare statistics SQL for the same window, run directly (the limit);
 *   3. the same call done the naive way over HTTP: up to 100 000 whole rows loaded into the application
 *      through the ORM and the statistics computed there;
 *   4. the repeated identical grid call while no new rows arrive (the change-checked cache).
 * PostgreSQL: DATABASE_URL when set, else a throwaway cluster. Figures only; nothing is asserted.
 */
import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { performance } from 'node:perf_hooks';
import { Between, DataSource } from 'typeorm';
import { ArchiverStagePerformanceCounter } from '@app/engine';
import { Authenticated } from '@app/common';
import {
  ARCHIVER_STAGE_PERFORMANCE_COUNTER_GRID as GRID,
  GridService,
  parseGridQuery,
  referenceStatistics,
  STATISTICS_CAP,
} from '@app/grid';
import { Client } from 'pg';
import { startPostgresServer } from '../test/support/postgres-server';
import { benchSettings, runBench, startBenchApp } from './support';

const ROWS = Number(process.env.BENCH_GRID_ROWS ?? 1_000_000);
const IN_WINDOW = Math.round(ROWS / 10);
const RUNS = Number(process.env.BENCH_GRID_RUNS ?? 15);
const STAT_COLUMNS = ['TotalMicroseconds', 'MinMicroseconds', 'MaxMicroseconds', 'InvokeCount'] as const;

/** The naive way, as the system in the spec does it: whole rows into memory, statistics in the application. */
@Controller('bench')
class NaiveGridController {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  @Get('naive-grid')
  @Authenticated({ landlordOnly: true })
  async naive() {
    const to = new Date();
    const from = new Date(to.getTime() - 3_600_000);
    const entities = await this.ds.getRepository(ArchiverStagePerformanceCounter).find({
      where: { CreatedDate: Between(from, to) },
      order: { CreatedDate: 'DESC', Id: 'DESC' },
      take: STATISTICS_CAP,
    });
    const statistics = Object.fromEntries(
      STAT_COLUMNS.map((c) => [c, referenceStatistics(entities.map((e) => Number(e[c])))]),
    );
    return { rows: entities.slice(0, 100), total: entities.length, statistics };
  }
}

@Module({ controllers: [NaiveGridController] })
class NaiveModule {}

function percentile(samples: number[], q: number): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

async function time(runs: number, fn: (i: number) => Promise<void>): Promise<{ p50: number; p99: number }> {
  await fn(-1); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn(i);
    samples.push(performance.now() - t0);
  }
  return { p50: percentile(samples, 0.5), p99: percentile(samples, 0.99) };
}

async function fill(ds: DataSource): Promise<void> {
  const cols = `"EntityAnalysisModelGuid", "StageId", "StageName", "TotalMicroseconds", "MinMicroseconds", "MaxMicroseconds", "InvokeCount", "CreatedDate", "Instance"`;
  const old = ROWS - IN_WINDOW;
  if (ds.options.type === 'postgres') {
    await ds.query(
      `INSERT INTO "ArchiverStagePerformanceCounter" (${cols})
       SELECT '11111111-2222-4333-8444-555555555555', 1 + g % 4, 'Stage', (random() * 10000000)::bigint, (random() * 1000)::bigint,
              (random() * 1000000)::bigint, 1 + (random() * 500)::int,
              CASE WHEN g <= ${old} THEN now() - interval '2 hours' - g * interval '2 seconds'
                   ELSE now() - (${ROWS} - g) * interval '30 milliseconds' END, 'bench'
       FROM generate_series(1, ${ROWS}) g`,
    );
    await ds.query('VACUUM ANALYZE "ArchiverStagePerformanceCounter"');
  } else {
    await ds.query(
      `WITH RECURSIVE g(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM g WHERE x < ${ROWS})
       INSERT INTO "ArchiverStagePerformanceCounter" (${cols})
       SELECT '11111111-2222-4333-8444-555555555555', 1 + x % 4, 'Stage', abs(random()) % 10000000, abs(random()) % 1000,
              abs(random()) % 1000000, 1 + abs(random()) % 500,
              strftime('%Y-%m-%d %H:%M:%f', CASE WHEN x <= ${old} THEN julianday('now') - 2.0 / 24 - x * 2.0 / 86400
                                                ELSE julianday('now') - (${ROWS} - x) * 0.03 / 86400 END), 'bench'
       FROM g`,
    );
    await ds.query('ANALYZE');
  }
}

async function benchOne(provider: 'postgres' | 'sqlite', connectionString?: string): Promise<void> {
  const settings = benchSettings(`grids-${provider}`, {
    DatabaseProvider: provider,
    ...(connectionString ? { ConnectionString: connectionString } : {}),
    TelemetryRetentionRows: String(ROWS * 2), // keep all rows for the benchmark
  });
  const { app, url, token } = await startBenchApp(settings, [NaiveModule]);
  try {
    const ds = app.get(DataSource);
    const t0 = performance.now();
    await fill(ds);
    process.stdout.write(
      `\n[${provider}] ${ROWS} rows (${IN_WINDOW} in the default window) written in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
    );
    const auth = { authorization: `Bearer ${token}` };
    const get = async (path: string) => {
      // A long synchronous query can outlast the server's keep-alive timer on a reused socket: retry once.
      const res = await fetch(`${url}${path}`, { headers: auth }).catch(() =>
        fetch(`${url}${path}`, { headers: auth }),
      );
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as { total: number };
    };
    const base = Date.now();
    // 1. fresh answers: a different explicit `to` (1 ms apart) each call, so the cache never answers
    const grid = await time(RUNS, async (i) => {
      const to = new Date(base + 1000 + i);
      const from = new Date(to.getTime() - 3_600_000);
      await get(`/api/ArchiverStagePerformanceCounter?from=${from.toISOString()}&to=${to.toISOString()}`);
    });
    // 2. the same statistics statement, bare
    const engine = app.get(GridService).engine;
    const bare = await time(RUNS, async (i) => {
      const q = parseGridQuery(GRID, {}, base + 1000 + i);
      const sql = engine.build(GRID, q);
      await ds.query(sql.statistics!.sql, sql.statistics!.params);
    });
    // 3. naive
    const naive = await time(Math.max(5, Math.round(RUNS / 2)), async () => {
      await get('/bench/naive-grid');
    });
    // 4. repeated identical call (default window: the change check answers)
    const repeated = await time(RUNS * 2, async () => {
      await get('/api/ArchiverStagePerformanceCounter');
    });
    const check = await get('/api/ArchiverStagePerformanceCounter');
    const f = (x: { p50: number; p99: number }) =>
      `p50 ${x.p50.toFixed(1).padStart(7)} ms   p99 ${x.p99.toFixed(1).padStart(7)} ms`;
    process.stdout.write(
      `1. grid call with statistics over HTTP:  ${f(grid)}   (${(grid.p50 / bare.p50).toFixed(2)}x the bare SQL; target <= 1.3x on PostgreSQL)\n`,
    );
    process.stdout.write(`2. bare statistics SQL (the limit):       ${f(bare)}\n`);
    process.stdout.write(
      `3. naive (rows into the app) over HTTP:   ${f(naive)}   (grid is ${(naive.p50 / grid.p50).toFixed(1)}x faster; target >= 3x)\n`,
    );
    process.stdout.write(
      `4. repeated identical call:               ${f(repeated)}   (target < 15 ms on PostgreSQL; total ${check.total})\n`,
    );
  } finally {
    await app.close();
  }
}

async function main(): Promise<void> {
  process.stdout.write(`Grid benchmark: ${ROWS} rows, ${RUNS} timed calls per figure\n`);
  let pg: { url: string; stop(): void } | undefined;
  let url = process.env.DATABASE_URL;
  if (!url) {
    pg = await startPostgresServer();
    url = pg.url;
  }
  const dbName = `bench_grids_${Date.now()}`;
  const admin = new Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${dbName}"`);
  await admin.end();
  const target = new URL(url);
  target.pathname = `/${dbName}`;
  try {
    await benchOne('postgres', target.toString());
    await benchOne('sqlite');
  } finally {
    if (pg) pg.stop();
    else {
      const cleanup = new Client({ connectionString: url });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
      await cleanup.end();
    }
  }
}

runBench(main);
