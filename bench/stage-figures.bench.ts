/* npm run bench:figures — do the stage figures add up under a batching load, seen from outside the process?
 * One node on PostgreSQL (a throwaway cluster, or DATABASE_URL) and on SQLite; a closed loop of 32 connections
 * for 15 s, every invocation a new account (each raises a case); StageRollupIntervalMilliseconds 2 000 and both
 * warn thresholds 1 ms, so nearly every run is slow enough to warn. Per stage it prints the runs (the duration
 * histogram's count on the Prometheus scrape), the items their rollups counted, Σ TotalMicroseconds over the
 * wall time (≤ 1.0 for a serial stage), the histogram's sum against the rollups' (= 1.00) and the warnings
 * per run (≤ 1).
 *   BENCH_FIGURES_DATABASES   postgres,sqlite (default both)
 *   BENCH_FIGURES_SECONDS     the load's length (default 15) */
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { ARCHIVER_STAGE_NAMES, CASE_CREATION_STAGE_NAMES, DEMO_MODEL_GUID } from '@app/engine';
import { freePort } from '../test/support/free-port';
import { startPostgresServer } from '../test/support/postgres-server';
import { samples } from '../test/support/prometheus';
import { rowProbe, soakLoad, type SoakDatabase } from './soak-measure';
import { createApiKey, runBench, spawnRung } from './support';

const DATABASES = (process.env.BENCH_FIGURES_DATABASES ?? 'postgres,sqlite').split(',').map((d) => d.trim());
const SECONDS = Number(process.env.BENCH_FIGURES_SECONDS ?? 15);
const ROLLUP_MS = 2_000;
const TABLES = {
  caseRollup: 'CaseCreationStagePerformanceCounter',
  caseWarning: 'CaseCreationWarning',
  archiverRollup: 'ArchiverStagePerformanceCounter',
  archiverWarning: 'ArchiverWarning',
} as const;
type Table = keyof typeof TABLES;

/** Per stage: [sum of the first column, sum of the second, rows]. */
type PerStage = Map<number, [number, number, number]>;

/** Reads the four tables' rows after their marks, summed per stage, from the database the node writes. */
async function reader(db: SoakDatabase) {
  const pg = db.provider === 'postgres' ? new Client({ connectionString: db.url }) : undefined;
  const lite = db.provider === 'sqlite' ? new Database(db.file, { readonly: true }) : undefined;
  await pg?.connect();
  const query = async <T extends object>(sql: string): Promise<T[]> =>
    pg ? (await pg.query<T>(sql)).rows : (lite!.prepare(sql).all() as T[]);
  return {
    async lastId(table: Table): Promise<number> {
      const [row] = await query<{ m: string | number | null }>(
        `SELECT MAX("Id") AS m FROM "${TABLES[table]}"`,
      );
      return Number(row.m ?? 0);
    },
    /** Rollups: [Σ Total, Σ InvokeCount, rows]; warnings: [Σ durationMicroseconds, Σ BatchSize, rows]. */
    async perStage(table: Table, after: number): Promise<PerStage> {
      const [a, b] = table.endsWith('Rollup')
        ? ['TotalMicroseconds', 'InvokeCount']
        : ['DurationMicroseconds', 'BatchSize'];
      const model = table === 'archiverRollup' || table === 'archiverWarning';
      const rows = await query<{ s: number; a: string; b: string; n: string }>(
        `SELECT "StageId" AS s, SUM("${a}") AS a, SUM("${b}") AS b, COUNT(*) AS n FROM "${TABLES[table]}" ` +
          `WHERE "Id" > ${after}${model ? ` AND "EntityAnalysisModelGuid" = '${DEMO_MODEL_GUID}'` : ''} GROUP BY "StageId"`,
      );
      return new Map(rows.map((r) => [Number(r.s), [Number(r.a), Number(r.b), Number(r.n)]]));
    },
    async close() {
      await pg?.end();
      lite?.close();
    },
  };
}

/** The duration histograms' [sum in ms, count] per instrument and stage name, from the scrape. */
async function histograms(port: number): Promise<Map<string, [number, number]>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const out = new Map<string, [number, number]>();
  for (const s of samples(text)) {
    const m = /^service_engine_(archiver|casecreation)_stage_duration\w*_(sum|count)$/.exec(s.name);
    if (!m || !s.labels.stage) continue;
    const key = `${m[1]}:${s.labels.stage}`;
    const v = out.get(key) ?? [0, 0];
    v[m[2] === 'sum' ? 0 : 1] += s.value;
    out.set(key, v);
  }
  return out;
}

async function oneDatabase(db: SoakDatabase, settings: Record<string, string>): Promise<void> {
  const promPort = await freePort();
  const server = await spawnRung('service', {
    ...settings,
    LogLevel: 'warn',
    EnableOpenTelemetry: 'True',
    OpenTelemetryPrometheusPort: String(promPort),
    StageRollupIntervalMilliseconds: String(ROLLUP_MS),
    CaseCreationWarnThresholdMilliseconds: '1',
    ArchiverWarnThresholdMilliseconds: '1',
    CaptureQueueFlushIntervalMilliseconds: '1000',
  });
  const read = await reader(db);
  const probe = await rowProbe(db);
  try {
    const apiKey = await createApiKey(server.url, server.token, 'figures');
    const marks = {} as Record<Table, number>;
    for (const t of Object.keys(TABLES) as Table[]) marks[t] = await read.lastId(t);
    const before = await histograms(promPort);
    const started = Date.now();
    const result = await soakLoad({
      url: server.url,
      path: `/api/Invoke/EntityAnalysisModel/${DEMO_MODEL_GUID}`,
      apiKey,
      connections: 32,
      seconds: SECONDS,
      firstIndex: 0,
    });
    const ok = result.okTimes.length;
    while (probe.latest()[0] < ok) await new Promise((r) => setTimeout(r, 100));
    // Case creation has caught up once the case rows stop growing; then two rollup intervals and a capture flush.
    for (let last = -1; probe.latest()[1] !== last;) {
      last = probe.latest()[1];
      await new Promise((r) => setTimeout(r, 1_000));
    }
    await new Promise((r) => setTimeout(r, 2 * ROLLUP_MS + 1_500));
    const wall = (Date.now() - started) * 1000;
    const after = await histograms(promPort);
    console.log(
      `\n## ${db.provider}: ${ok} invocations answered 200 in ${SECONDS} s (32 connections), ${probe.latest()[1]} cases; ` +
        `wall time from the load's start to the last rollup read ${(wall / 1e6).toFixed(1)} s`,
    );
    console.log(
      '| pipeline | stage | runs | items counted | items per run | Σ Total / wall | histogram Σ / rollup Σ | warnings | warnings per run | Σ warning durations / Σ Total |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|');
    const pipelines = [
      ['casecreation', 'caseRollup', 'caseWarning', CASE_CREATION_STAGE_NAMES],
      ['archiver', 'archiverRollup', 'archiverWarning', ARCHIVER_STAGE_NAMES],
    ] as const;
    for (const [instrument, rollupTable, warningTable, names] of pipelines) {
      const rollups = await read.perStage(rollupTable, marks[rollupTable]);
      const warnings = await read.perStage(warningTable, marks[warningTable]);
      for (const [id, name] of Object.entries(names)) {
        const [total, items] = rollups.get(Number(id)) ?? [0, 0, 0];
        const [durations, , warned] = warnings.get(Number(id)) ?? [0, 0, 0];
        const h = after.get(`${instrument}:${name}`) ?? [0, 0];
        const h0 = before.get(`${instrument}:${name}`) ?? [0, 0];
        const runs = h[1] - h0[1];
        const ratio = (a: number, b: number, digits = 2) => (b ? (a / b).toFixed(digits) : '—');
        console.log(
          `| ${instrument === 'archiver' ? 'Archiver' : 'case creation'} | ${id} ${name} | ${runs} | ${items} | ` +
            `${ratio(items, runs, 1)} | ${ratio(total, wall, 3)} | ${ratio((h[0] - h0[0]) * 1000, total, 3)} | ` +
            `${warned} | ${ratio(warned, runs)} | ${ratio(durations, total, 3)} |`,
        );
      }
    }
  } finally {
    await probe.stop();
    await read.close();
    await server.stop();
  }
}

async function main(): Promise<void> {
  console.log('bench:figures (the machine may be shared: the figures are ratios within one run)');
  const pg =
    DATABASES.includes('postgres') && !process.env.DATABASE_URL ? await startPostgresServer() : undefined;
  try {
    for (const provider of DATABASES) {
      const dir = mkdtempSync(join(tmpdir(), `bench-figures-${provider}-`));
      if (provider === 'postgres') {
        const serverUrl = process.env.DATABASE_URL ?? pg!.url;
        const admin = new Client({ connectionString: serverUrl });
        await admin.connect();
        const name = `figures_${Date.now().toString(36)}`;
        await admin.query(`CREATE DATABASE ${name}`);
        await admin.end();
        const url = new URL(serverUrl);
        url.pathname = `/${name}`;
        await oneDatabase(
          { provider: 'postgres', url: url.toString() },
          { DatabaseProvider: 'postgres', ConnectionString: url.toString(), DataDirectory: dir },
        );
      } else
        await oneDatabase(
          { provider: 'sqlite', file: join(dir, 'service.sqlite') },
          { DatabaseProvider: 'sqlite', DataDirectory: dir },
        );
    }
  } finally {
    pg?.stop();
  }
}

runBench(main);
