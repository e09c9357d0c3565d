/* npm run bench:soak — sustained load on one node, on PostgreSQL (a throwaway cluster, or DATABASE_URL)
 * and on SQLite, the load generator in its own process (bench/soak-generator.ts): per database the capacity
 * (the highest arrival rate held for 60 s with ≥ 99.9 % 200, the archive lag's p99 and the case lag's both
 * ≤ 2 s during the step — case creation kept pace with the archive, so a backlog that grows slowly fails the
 * step rather than the soak — and every accepted invocation archived and cased within 5 s of the step's end),
 * an overload (closed
 * loop, 16 connections, 120 s) and, on PostgreSQL (the production database the soak target names), a soak
 * (open loop at the capacity, 10 minutes), each per 10-second window; then case creation's per-item time at
 * 1 000 and 1 000 000 Case rows.
 * Every invocation raises a case (a new account each).
 *   BENCH_SOAK_SCALE       multiplies every duration (default 1; 0.2 for a short run)
 *   BENCH_SOAK_DATABASES   postgres,sqlite (default both)
 *   BENCH_SOAK_START_RATE  the capacity search's first rate (default 250 a second)
 *   BENCH_SOAK_CAPACITY    a capacity measured before: no search, the overload and the soak run against it
 *   BENCH_SOAK_CASE_SIZE   0 skips the per-item time at 1 000 and 1 000 000 rows
 *   BENCH_SOAK_SOAK        0 skips the 10-minute soak (capacity and overload only)
 *   BENCH_SOAK_SETTINGS    settings of the service, as JSON, over the bench's (e.g.
 *                          {"ArchiveBulkCopyIntervalMilliseconds":"25"}): a setting's capacity, in alternating runs */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_MODEL_GUID } from '@app/engine';
import { startPostgresServer } from '../test/support/postgres-server';
import { newPostgresDatabase } from './postgres-database';
import { caseSizeBench } from './soak-case-size';
import type { SoakLoadOptions, SoakLoadResult } from './soak-generator';
import {
  lags,
  memoryProbe,
  percentile,
  printWindows,
  rowProbe,
  type SoakDatabase,
  soakLoad,
} from './soak-measure';
import { createApiKey, runBench, spawnRung, type RungProcess } from './support';

const SCALE = Number(process.env.BENCH_SOAK_SCALE ?? 1);
const DATABASES = (process.env.BENCH_SOAK_DATABASES ?? 'postgres,sqlite').split(',').map((d) => d.trim());
const START_RATE = Number(process.env.BENCH_SOAK_START_RATE ?? 250);
const GIVEN_CAPACITY = Number(process.env.BENCH_SOAK_CAPACITY ?? 0);
const SETTINGS = JSON.parse(process.env.BENCH_SOAK_SETTINGS ?? '{}') as Record<string, string>;
const seconds = (s: number) => Math.max(10, Math.round(s * SCALE));
/** How long after a run the archive and the cases may take to hold every accepted invocation, to pass a step. */
const STEP_DRAIN_MS = 5_000;

interface Context {
  server: RungProcess;
  apiKey: string;
  probe: Awaited<ReturnType<typeof rowProbe>>;
  memory: ReturnType<typeof memoryProbe>;
  /** Invocations accepted so far (the rows before a run's). */
  accepted: number;
  nextIndex: number;
}

interface Run {
  result: SoakLoadResult;
  lag: { archive: number[]; cases: number[] };
  ok: number;
  offered: number;
  /** ms from the end of the load until the archive and the cases held every accepted invocation. */
  drainMs: number;
}

async function measured(
  ctx: Context,
  load: Partial<SoakLoadOptions> & { seconds: number },
  print: boolean,
): Promise<Run> {
  const offset = ctx.accepted;
  const result = await soakLoad({
    url: ctx.server.url,
    path: `/api/Invoke/EntityAnalysisModel/${DEMO_MODEL_GUID}`,
    apiKey: ctx.apiKey,
    firstIndex: ctx.nextIndex,
    ...load,
  });
  const ended = Date.now();
  ctx.nextIndex += result.sent;
  const ok = result.okTimes.length;
  ctx.accepted += ok;
  const deadline = ended + 60_000;
  while (Date.now() < deadline && ctx.probe.latest().some((n) => n < ctx.accepted))
    await new Promise((r) => setTimeout(r, 100));
  const drainMs = ctx.probe.latest().every((n) => n >= ctx.accepted) ? Date.now() - ended : Infinity;
  const lag = lags(result.okTimes, ctx.probe.samples, offset);
  const offered = load.rate
    ? Math.round(load.rate * load.seconds)
    : result.windows.reduce((n, w) => n + w.ok + w.shed + w.other, 0);
  if (print) printWindows(result, lag, ctx.memory.samples);
  return { result, lag, ok, offered, drainMs };
}

/** The answers that were neither 200 nor 503, and the arrivals not sent, if any: ` (other: 502 ×3, ECONNRESET ×1)`. */
function failures(run: Run): string {
  const kinds = Object.entries(run.result.others).map(([k, n]) => `${k} ×${n}`);
  const notSent = run.result.windows.reduce((n, w) => n + w.notSent, 0);
  const shed = run.result.windows.reduce((n, w) => n + w.shed, 0);
  const parts = [...(shed ? [`503 ×${shed}`] : []), ...kinds, ...(notSent ? [`not sent ×${notSent}`] : [])];
  return parts.length ? ` (${parts.join(', ')})` : '';
}

const pct = (a: number, b: number) => (b ? ((100 * a) / b).toFixed(2) : '0');
const s2 = (ms: number) => (Number.isFinite(ms) ? (ms / 1000).toFixed(1) : 'never');

/**
 * The highest open-loop rate held (≥ 99.9 % 200, lags within the soak's targets, drained within STEP_DRAIN_MS):
 * ×1.5 up, then halved steps.
 */
async function capacity(ctx: Context): Promise<number> {
  const step = seconds(60);
  const held = async (rate: number) => {
    const run = await measured(ctx, { rate, seconds: step }, false);
    const archive = percentile(run.lag.archive, 99);
    const cases = percentile(run.lag.cases, 99);
    const ok =
      run.ok / run.offered >= 0.999 && archive <= 2_000 && cases <= 2_000 && run.drainMs <= STEP_DRAIN_MS;
    console.log(
      `  ${rate}/s for ${step} s: ${pct(run.ok, run.offered)} % 200${failures(run)}, lag p99 archive ${s2(archive)} s, cases ` +
        `${s2(cases)} s, drained ${s2(run.drainMs)} s after: ${ok ? 'held' : 'not held'}`,
    );
    return ok;
  };
  let good = 0;
  let bad = 0;
  for (let rate = START_RATE; bad === 0 && rate < 50_000; rate = Math.round(rate * 1.5)) {
    if (await held(rate)) good = rate;
    else bad = rate;
  }
  for (let rate = Math.round(bad / 2); good === 0 && rate >= 25; rate = Math.round(rate / 2)) {
    if (await held(rate)) good = rate;
    else bad = rate;
  }
  for (let i = 0; i < 2 && bad > 0 && good > 0; i++) {
    const mid = Math.round((good + bad) / 2 / 10) * 10;
    if (await held(mid)) good = mid;
    else bad = mid;
  }
  return good;
}

async function overload(ctx: Context, cap: number): Promise<void> {
  const run = await measured(ctx, { connections: 16, seconds: seconds(120) }, true);
  const full = run.result.windows.slice(0, -1); // the last window is partial
  const worst = Math.min(...full.map((w) => w.ok));
  console.log(
    `  overload: lowest 200s in a full 10-s window ${worst} = ${pct(worst, cap * 10)} % of the capacity (target ≥ 80 %); ` +
      `${run.ok} accepted, all archived and cased ${s2(run.drainMs)} s after the load stopped (target ≤ 10 s)`,
  );
}

async function soak(ctx: Context, cap: number): Promise<void> {
  const length = seconds(600);
  const started = Date.now();
  const run = await measured(ctx, { rate: cap, seconds: length }, true);
  const minute = seconds(60) * 1000;
  const rssIn = (from: number, to: number) =>
    Math.max(...ctx.memory.samples.filter(([t]) => t >= from && t < to).map(([, rss]) => rss));
  const first = rssIn(started, started + minute);
  const last = rssIn(started + length * 1000 - minute, started + length * 1000);
  console.log(
    `  soak at ${cap}/s for ${length} s: ${pct(run.ok, run.offered)} % 200${failures(run)} (target ≥ 99.9); archive lag p99 ` +
      `${s2(percentile(run.lag.archive, 99))} s (≤ 2); case lag p99 ${s2(percentile(run.lag.cases, 99))} s (≤ 5); ` +
      `RSS last ${minute / 1000} s / first ${minute / 1000} s ${(last / first).toFixed(2)} (≤ 1.2)`,
  );
}

/** One database: the service started on it, the three runs, stopped. Answers the capacity. */
async function oneDatabase(db: SoakDatabase, settings: Record<string, string>): Promise<number> {
  const server = await spawnRung('service', {
    LogLevel: 'info',
    StageRollupIntervalMilliseconds: '10000',
    ...settings,
    ...SETTINGS,
  });
  try {
    const apiKey = await createApiKey(server.url, server.token, 'soak');
    const ctx: Context = {
      server,
      apiKey,
      probe: await rowProbe(db),
      memory: memoryProbe(server),
      accepted: 0,
      nextIndex: 0,
    };
    try {
      let cap = GIVEN_CAPACITY;
      if (cap > 0) console.log(`\n## ${db.provider}: capacity given (BENCH_SOAK_CAPACITY): ${cap} a second`);
      else {
        console.log(`\n## ${db.provider}: capacity (open loop, ${seconds(60)} s a step)`);
        cap = await capacity(ctx);
        console.log(`  capacity on ${db.provider}: ${cap} invocations a second`);
      }
      console.log(`\n## ${db.provider}: overload (closed loop, 16 connections, ${seconds(120)} s)`);
      await overload(ctx, cap);
      if (db.provider === 'postgres' && process.env.BENCH_SOAK_SOAK !== '0') {
        console.log(`\n## ${db.provider}: soak (open loop at ${cap}/s, ${seconds(600)} s)`);
        await soak(ctx, cap);
      }
      return cap;
    } finally {
      ctx.memory.stop();
      await ctx.probe.stop();
    }
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  console.log(`bench:soak (scale ${SCALE}; the machine may be shared: figures are ratios within this run)`);
  const pg =
    DATABASES.includes('postgres') && !process.env.DATABASE_URL ? await startPostgresServer() : undefined;
  const serverUrl = process.env.DATABASE_URL ?? pg?.url ?? '';
  const capacities: Record<string, number> = {};
  try {
    for (const provider of DATABASES) {
      const dir = mkdtempSync(join(tmpdir(), `bench-soak-${provider}-`));
      const db: SoakDatabase =
        provider === 'postgres'
          ? { provider, url: await newPostgresDatabase(serverUrl, 'soak') }
          : { provider: 'sqlite', file: join(dir, 'service.sqlite') };
      const settings: Record<string, string> =
        db.provider === 'postgres'
          ? { DatabaseProvider: 'postgres', ConnectionString: db.url, DataDirectory: dir }
          : { DatabaseProvider: 'sqlite', DataDirectory: dir };
      capacities[provider] = await oneDatabase(db, settings);
      if (process.env.BENCH_SOAK_CASE_SIZE !== '0') {
        console.log(`\n## ${provider}: case creation per item at 1 000 and 1 000 000 rows in Case`);
        const sizeDb = async (size: string): Promise<SoakDatabase> =>
          provider === 'postgres'
            ? { provider, url: await newPostgresDatabase(serverUrl, `soak_${size}`) }
            : { provider: 'sqlite', file: join(dir, `case-${size}.sqlite`) };
        await caseSizeBench(await sizeDb('small'), await sizeDb('large'), dir);
      }
    }
  } finally {
    pg?.stop();
  }
  if (capacities.postgres && capacities.sqlite)
    console.log(
      `\nPostgreSQL capacity ${capacities.postgres}/s = ${(capacities.postgres / capacities.sqlite).toFixed(2)}× SQLite's ${capacities.sqlite}/s (target ≥ 0.7×; aim ≥ 2 000/s)`,
    );
}

runBench(main);
