/* bench:soak's measurements: the load (in its own process), the rows as the database has them, the lags. */
import Database from 'better-sqlite3';
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import type { RungProcess } from './support';
import { type SoakLoadOptions, type SoakLoadResult, WINDOW_MS } from './soak-generator';

export type SoakDatabase = { provider: 'postgres'; url: string } | { provider: 'sqlite'; file: string };

/** One load run in a process of its own (bench/soak-generator.ts), never in the bench's or the server's. */
export function soakLoad(options: SoakLoadOptions): Promise<SoakLoadResult> {
  return new Promise((resolve, reject) => {
    const child = fork(join(__dirname, 'soak-generator.ts'), [], {
      execArgv: ['-r', join(__dirname, '..', 'scripts', 'ts-register.js')],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', (m: { result?: SoakLoadResult; error?: string }) =>
      m.result ? resolve(m.result) : reject(new Error(m.error ?? 'the soak load failed')),
    );
    child.once('exit', (code) => code !== 0 && reject(new Error(`the soak generator exited with ${code}`)));
    child.send(options);
  });
}

/** How many archive and case rows there are, sampled: [time, archive rows, case rows]. */
export type RowSample = [number, number, number];

const SQL = (table: string, mark: string) =>
  `SELECT COUNT(*) AS n, MAX("Id") AS m FROM "${table}" WHERE "Id" > ${mark}`;

/**
 * Counts the archive and case rows every `everyMs`, reading only the rows added since the previous sample
 * (by Id), so the probe costs the database little however large the tables grow.
 */
export async function rowProbe(db: SoakDatabase, everyMs = 200) {
  const pg = db.provider === 'postgres' ? new Client({ connectionString: db.url }) : undefined;
  const lite = db.provider === 'sqlite' ? new Database(db.file, { readonly: true }) : undefined;
  await pg?.connect();
  const marks = { EntityAnalysisModelArchive: 0, Case: 0 };
  const totals = { EntityAnalysisModelArchive: 0, Case: 0 };
  const read = async (table: keyof typeof marks) => {
    const sql = SQL(table, String(marks[table]));
    const row = pg
      ? (await pg.query<{ n: string; m: string | null }>(sql)).rows[0]
      : (lite!.prepare(sql).get() as { n: number; m: number | null });
    totals[table] += Number(row.n);
    if (row.m !== null) marks[table] = Number(row.m);
  };
  const sample = async (): Promise<RowSample> => {
    await read('EntityAnalysisModelArchive');
    await read('Case');
    return [Date.now(), totals.EntityAnalysisModelArchive, totals.Case];
  };
  const base = await sample();
  const samples: RowSample[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const [t, a, c] = await sample();
      samples.push([t, a - base[1], c - base[2]]);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    samples,
    /** Rows added since the probe started: [archive, cases]. */
    latest: (): [number, number] => {
      const last = samples.at(-1);
      return last ? [last[1], last[2]] : [0, 0];
    },
    async stop() {
      running = false;
      await loop;
      await pg?.end();
      lite?.close();
    },
  };
}

/**
 * For each 200 (in answer order, `offset` accepted before them), how long after its answer the archive and
 * the case tables held that many rows: the rows are written in the order invocations were accepted (one
 * Archiver, one case creation queue), so the k-th row stands for the k-th answer. Infinity: never seen.
 */
export function lags(
  okTimes: number[],
  samples: RowSample[],
  offset = 0,
): { archive: number[]; cases: number[] } {
  const of = (column: 1 | 2) => {
    const out: number[] = [];
    let s = 0;
    for (let k = 0; k < okTimes.length; k++) {
      while (s < samples.length && samples[s][column] < offset + k + 1) s++;
      out.push(s < samples.length ? Math.max(0, samples[s][0] - okTimes[k]) : Infinity);
    }
    return out;
  };
  return { archive: of(1), cases: of(2) };
}

export function percentile(values: number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Memory of the service, sampled once a window: [time, rss, heapUsed]. */
export function memoryProbe(server: RungProcess) {
  const samples: [number, number, number][] = [];
  const timer = setInterval(() => {
    void server
      .ask<{ rss: number; heapUsed: number }>('memory')
      .then((m) => samples.push([Date.now(), m.rss, m.heapUsed]));
  }, 1_000);
  return { samples, stop: () => clearInterval(timer) };
}

const MB = (b: number) => (b / 1048576).toFixed(0);
const sec = (ms: number) => (Number.isFinite(ms) ? (ms / 1000).toFixed(2) : 'never');

/** The per-10-second table of a run: 200s, 503s, other, not sent, archive and case lag p99, RSS and heap. */
export function printWindows(
  result: SoakLoadResult,
  lag: { archive: number[]; cases: number[] },
  memory: [number, number, number][],
): void {
  console.log(
    '  | s | 200 | 503 | other | not sent | archive lag p99 s | case lag p99 s | RSS MB | heap MB |',
  );
  console.log('  |---|---|---|---|---|---|---|---|---|');
  let k = 0;
  result.windows.forEach((w, i) => {
    const from = result.started + i * WINDOW_MS;
    const idx: number[] = [];
    for (; k < result.okTimes.length && result.okTimes[k] < from + WINDOW_MS; k++) idx.push(k);
    const mem = memory.filter(([t]) => t >= from && t < from + WINDOW_MS).at(-1);
    console.log(
      `  | ${i * 10}–${(i + 1) * 10} | ${w.ok} | ${w.shed} | ${w.other} | ${w.notSent} | ` +
        `${sec(
          percentile(
            idx.map((j) => lag.archive[j]),
            99,
          ),
        )} | ${sec(
          percentile(
            idx.map((j) => lag.cases[j]),
            99,
          ),
        )} | ` +
        `${mem ? MB(mem[1]) : '-'} | ${mem ? MB(mem[2]) : '-'} |`,
    );
  });
}
