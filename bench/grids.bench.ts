/*
 * npm run bench:grids — fills ArchiverStagePerformanceCounter with 1 000 000 rows (100 000 inside the default
 * one-hour window) and UserLogin with 100 000, then prints, per database (PostgreSQL, then SQLite), p50 and p99
 * of, in one run:
 *   limits, measured in this process straight on the database:
 *     a. the bare index scan of the window: the window's four statistics columns read by index and summed in
 *        the database, in no order (no statistic, nothing sent back): the limit of the targets;
 *     a'. the same over the newest 100 000 rows in order (time, then id: on PostgreSQL a sort), which a window
 *        larger than the cap needs;
 *     b. the statistics as one SQL statement (the previous way, kept for SQL Server);
 *     c. the grid engine's own statistics path (compact fetch, typed arrays), in this process, no HTTP;
 *   over HTTP, against the service in a process of its own (bench/http-rung.ts):
 *     1. the grid call with statistics (each call a fresh answer: no cache hit);
 *     2. the naive way (docs/grids.md): up to 100 000 whole rows through the ORM, statistics in the application;
 *     3. the repeated identical call while no new rows arrive (the change-checked cache), 1 000 calls so that its
 *        p99 is not just the slowest call, made and timed by a process of its own (timedCalls);
 *   and the service process's peak heap and RSS during grid calls and during a 100 000-row CSV export.
 * PostgreSQL: DATABASE_URL when set, else a throwaway cluster. Figures only; nothing is asserted.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@app/database';
import {
  ARCHIVER_STAGE_PERFORMANCE_COUNTER_GRID as GRID,
  dialectFor,
  GridEngine,
  Params,
  parseGridQuery,
  STATISTICS_CAP,
} from '@app/grid';
import { withPostgresDatabase } from './postgres-database';
import { runBench, RungProcess, spawnRung, timedCalls } from './support';

const ROWS = Number(process.env.BENCH_GRID_ROWS ?? 1_000_000);
const IN_WINDOW = Math.round(ROWS / 10);
const CSV_ROWS = Number(process.env.BENCH_CSV_ROWS ?? 100_000);
const RUNS = Number(process.env.BENCH_GRID_RUNS ?? 15);
const REPEATED_RUNS = 1000;

function percentile(samples: number[], q: number): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

interface Timing {
  p50: number;
  p99: number;
}

async function time(runs: number, fn: (i: number) => Promise<unknown>): Promise<Timing> {
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
  const login = `"CreatedUser", "TenantRegistryId", "RemoteIp", "LocalIp", "UserAgent", "AuthenticationTypeId", "Failed", "FailureTypeId", "FailureMessage", "CreatedDate"`;
  const tenant = `(SELECT "TenantRegistryId" FROM "UserRegistry" ORDER BY "Id" LIMIT 1)`;
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
    await ds.query(
      `INSERT INTO "UserLogin" (${login})
       SELECT 'user' || (g % 50), ${tenant}, '203.0.113.' || (g % 250), '127.0.0.1', 'Mozilla/5.0 "bench", agent', 1, g % 7 = 0,
              CASE WHEN g % 7 = 0 THEN 1 END, CASE WHEN g % 7 = 0 THEN 'Wrong password, try again' END,
              now() - g * interval '30 milliseconds'
       FROM generate_series(1, ${CSV_ROWS}) g`,
    );
    await ds.query('VACUUM ANALYZE "ArchiverStagePerformanceCounter"');
    await ds.query('VACUUM ANALYZE "UserLogin"');
  } else {
    const when = (x: string) => `strftime('%Y-%m-%d %H:%M:%f', ${x})`;
    await ds.query(
      `WITH RECURSIVE g(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM g WHERE x < ${ROWS})
       INSERT INTO "ArchiverStagePerformanceCounter" (${cols})
       SELECT '11111111-2222-4333-8444-555555555555', 1 + x % 4, 'Stage', abs(random()) % 10000000, abs(random()) % 1000,
              abs(random()) % 1000000, 1 + abs(random()) % 500,
              ${when(`CASE WHEN x <= ${old} THEN julianday('now') - 2.0 / 24 - x * 2.0 / 86400 ELSE julianday('now') - (${ROWS} - x) * 0.03 / 86400 END`)}, 'bench'
       FROM g`,
    );
    await ds.query(
      `WITH RECURSIVE g(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM g WHERE x < ${CSV_ROWS})
       INSERT INTO "UserLogin" (${login})
       SELECT 'user' || (x % 50), ${tenant}, '203.0.113.' || (x % 250), '127.0.0.1', 'Mozilla/5.0 "bench", agent', 1, x % 7 = 0,
              CASE WHEN x % 7 = 0 THEN 1 END, CASE WHEN x % 7 = 0 THEN 'Wrong password, try again' END,
              ${when(`julianday('now') - x * 0.03 / 86400`)}
       FROM g`,
    );
    await ds.query('ANALYZE');
  }
}

const mb = (b: number) => `${(b / 1048576).toFixed(0)} MB`;

/** The i-th fresh window: a different explicit `to` (1 ms apart) each call, so the cache never answers. */
type FreshQuery = (i: number) => { from: string; to: string };

function freshWindows(base: number): FreshQuery {
  return (i: number) => {
    const to = new Date(base + 1000 + i);
    return { from: new Date(to.getTime() - 3_600_000).toISOString(), to: to.toISOString() };
  };
}

interface Limits {
  scan: Timing;
  cappedScan: Timing;
  sqlWay: Timing;
  inEngine: Timing;
}

/** The limits a, a', b and c, measured in this process straight on the database. */
async function measureLimits(
  ds: DataSource,
  provider: 'postgres' | 'sqlite',
  base: number,
  freshQuery: FreshQuery,
): Promise<Limits> {
  const placeholders = () => new Params((k) => (provider === 'postgres' ? `$${k}` : '?'));
  // a. the bare index scan of the window, in no order
  const engine = new GridEngine(ds);
  const summed = async (i: number, piece: 'window' | 'capped') => {
    const p = placeholders();
    const rows = engine.build(GRID, parseGridQuery(GRID, freshQuery(i), base)).pieces[piece](p);
    await ds.query(`SELECT sum(v0), sum(v1), sum(v2), sum(v3) FROM (${rows}) s`, p.values);
  };
  const scan = await time(RUNS, (i) => summed(i, 'window'));
  // a'. the same over the newest rows of the window, in order (capped)
  const cappedScan = await time(RUNS, (i) => summed(i, 'capped'));
  // b. the statistics statement, the previous way: the dialect's statistics over the capped window alone
  const dialect = dialectFor(provider);
  const sqlWay = await time(RUNS, async (i) => {
    const { pieces, statisticsCount } = engine.build(GRID, parseGridQuery(GRID, freshQuery(i), base));
    const p = placeholders();
    await ds.query(dialect.statistics(pieces.capped(p), statisticsCount, []), p.values);
  });
  // c. the engine's own path, no HTTP (fresh windows: no cache)
  const inEngine = await time(RUNS, async (i) => {
    await engine.query(GRID, parseGridQuery(GRID, { ...freshQuery(i), take: '100' }, base));
  });
  return { scan, cappedScan, sqlWay, inEngine };
}

type Get = (path: string) => Promise<Response>;

function getter(url: string, auth: Record<string, string>): Get {
  return async (path: string) => {
    // A long synchronous query can outlast the server's keep-alive timer on a reused socket: retry once.
    const res = await fetch(`${url}${path}`, { headers: auth }).catch(() =>
      fetch(`${url}${path}`, { headers: auth }),
    );
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
    return res;
  };
}

/** The CSV export of 100 000 rows, streamed: its size, time and the service's memory before and at peak. */
async function csvExport(server: RungProcess, get: Get, base: number) {
  const before = await server.ask<{ heapUsed: number; rss: number }>('watch-start');
  const c0 = performance.now();
  const csv = await get(`/api/UserLogin?format=csv&from=${new Date(base - 86_400_000).toISOString()}`);
  let bytes = 0;
  let lines = 0;
  for await (const chunk of csv.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (const b of chunk) if (b === 10) lines++;
  }
  const csvMs = performance.now() - c0;
  const csvMemory = await server.ask<{ heapUsed: number; rss: number; maxRss: number }>('watch-stop');
  return { before, bytes, lines, csvMs, csvMemory };
}

type HttpFigures = Awaited<ReturnType<typeof measureHttp>>;

/** The figures 1, 2 and 3 over HTTP, and the service process's memory during the grid calls and the export. */
async function measureHttp(server: RungProcess, base: number, freshQuery: FreshQuery) {
  const url = server.url;
  const auth = { authorization: `Bearer ${server.token}` };
  const get = getter(url, auth);
  // 1. over HTTP, fresh answers: a different explicit `to` (1 ms apart) each call, so the cache never answers
  await server.ask('watch-start');
  const grid = await time(RUNS, async (i) => {
    const q = freshQuery(RUNS + i);
    await (await get(`/api/ArchiverStagePerformanceCounter?from=${q.from}&to=${q.to}`)).json();
  });
  const gridMemory = await server.ask<{ heapUsed: number; rss: number }>('watch-stop');
  // the CSV export of 100 000 rows, streamed (before the naive calls, whose ORM loads stay on the heap)
  const csv = await csvExport(server, get, base);

  // 2. naive
  const naive = await time(Math.max(5, Math.round(RUNS / 2)), async () => {
    await (await get('/bench/naive-grid')).json();
  });
  // 3. repeated identical call (default window: the change check answers); enough calls that the p99 is not
  // simply the slowest one (it is cheap: a few ms each). Timed from a process of its own: this process holds
  // tens of MB, and its own major collections (a few ms each, every few hundred ms) landed in these calls.
  const samples = await timedCalls(`${url}/api/ArchiverStagePerformanceCounter`, auth, REPEATED_RUNS);
  const repeated = { p50: percentile(samples, 0.5), p99: percentile(samples, 0.99) };
  const check = (await (await get('/api/ArchiverStagePerformanceCounter')).json()) as { total: number };
  return { grid, gridMemory, csv, naive, repeated, total: check.total };
}

function printFigures(provider: 'postgres' | 'sqlite', limits: Limits, http: HttpFigures): void {
  const { scan, cappedScan, sqlWay, inEngine } = limits;
  const { grid, gridMemory, naive, repeated } = http;
  const { before, bytes, lines, csvMs, csvMemory } = http.csv;
  const f = (x: Timing) => `p50 ${x.p50.toFixed(1).padStart(7)} ms   p99 ${x.p99.toFixed(1).padStart(7)} ms`;
  const limit = provider === 'postgres' ? `target <= 7x the scan` : `target <= 150 ms`;
  process.stdout.write(
    `a. bare index scan of the window (limit):  ${f(scan)}\n` +
      `${"a'. its newest rows, in order (capped):".padEnd(43)}${f(cappedScan)}   (${(cappedScan.p50 / scan.p50).toFixed(1)}x the scan)\n` +
      `b. statistics as one SQL statement:        ${f(sqlWay)}   (${(sqlWay.p50 / scan.p50).toFixed(1)}x the scan)\n` +
      `c. the engine's path, in process:          ${f(inEngine)}   (${(inEngine.p50 / scan.p50).toFixed(1)}x the scan; ${(sqlWay.p50 / inEngine.p50).toFixed(1)}x faster than b)\n` +
      `1. grid call with statistics over HTTP:    ${f(grid)}   (${(grid.p50 / scan.p50).toFixed(1)}x the scan; ${limit})\n` +
      `2. naive (rows into the app) over HTTP:    ${f(naive)}   (the grid call is ${(naive.p50 / grid.p50).toFixed(1)}x faster; target >= 6x)\n` +
      `3. repeated identical call:                ${f(repeated)}   (target p99 <= 15 ms; total ${http.total})\n` +
      `   service process during the grid calls: peak heap ${mb(gridMemory.heapUsed)}, peak RSS ${mb(gridMemory.rss)}\n` +
      `   CSV export of ${lines - 1} rows (${mb(bytes)}) in ${csvMs.toFixed(0)} ms: heap ${mb(before.heapUsed)} before, peak ${mb(csvMemory.heapUsed)}; RSS ${mb(before.rss)} before, peak ${mb(csvMemory.rss)} (process lifetime peak ${mb(csvMemory.maxRss)})\n`,
  );
}

async function benchOne(
  provider: 'postgres' | 'sqlite',
  target: { connectionString?: string; dataDirectory: string },
): Promise<void> {
  const server: RungProcess = await spawnRung(
    'service',
    {
      DatabaseProvider: provider,
      DataDirectory: target.dataDirectory,
      ...(target.connectionString ? { ConnectionString: target.connectionString } : {}),
      TelemetryRetentionRows: String(ROWS * 2), // keep all rows for the benchmark
    },
    ['grids-naive'],
  );
  // This process's own connection to the same database: the filling and the limits.
  const ds = new DataSource(
    dataSourceOptions(
      { provider, connectionString: target.connectionString, dataDirectory: target.dataDirectory },
      [],
      [],
    ),
  );
  await ds.initialize();
  try {
    const t0 = performance.now();
    await fill(ds);
    process.stdout.write(
      `\n[${provider}] ${ROWS} rows (${IN_WINDOW} in the default window) and ${CSV_ROWS} UserLogin rows written in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
    );
    const base = Date.now();
    const freshQuery = freshWindows(base);
    const limits = await measureLimits(ds, provider, base, freshQuery);
    const http = await measureHttp(server, base, freshQuery);
    printFigures(provider, limits, http);
  } finally {
    await ds.destroy();
    await server.stop();
    // the SQLite file alone is about 240 MB
    rmSync(target.dataDirectory, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  process.stdout.write(
    `Grid benchmark: ${ROWS} rows, ${RUNS} timed calls per figure, statistics over the newest ${STATISTICS_CAP} rows of the window\n`,
  );
  await withPostgresDatabase('bench_grids', async (connectionString) => {
    await benchOne('postgres', {
      connectionString,
      dataDirectory: mkdtempSync(join(tmpdir(), 'bench-grids-pg-')),
    });
    await benchOne('sqlite', { dataDirectory: mkdtempSync(join(tmpdir(), 'bench-grids-sqlite-')) });
  });
}

runBench(main);
