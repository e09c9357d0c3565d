/*
 * npm run bench:capture-queues — prints:
 *  - the cost of one enqueue (median, p99): the bare ring buffer, the CaptureQueues call producers make
 *    (text made inert, dates), and the engine's CapturePipelineTelemetry (that plus the counter increment); target p99 < 2 µs;
 *  - the time to flush 20 000 rows (one full queue) to SQLite and to PostgreSQL; target < 1 s each. For
 *    PostgreSQL both paths are timed: unnest arrays (the one used) and multi-row VALUES.
 * PostgreSQL: DATABASE_URL when set, else a throwaway cluster (test/support/postgres-server.ts).
 * Figures only: nothing here asserts.
 */
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import {
  BoundedQueue,
  CAPTURE_ENTITIES,
  CAPTURE_QUEUE_CAPACITY,
  CaptureFlusher,
  CaptureMetricReader,
  CaptureQueueId,
  CaptureQueues,
  CaptureRepository,
  type ModelInvokeWarningEntry,
} from '@app/capture-queues';
import { SystemClock } from '@app/runtime';
import type { DatabaseProvider } from '@app/config';
import { dataSourceOptions, MIGRATIONS } from '@app/database';
import { CapturePipelineTelemetry } from '@app/engine';
import { ArchiverStage, EngineMetrics, engineHistograms } from '@app/telemetry';
import { startPostgresServer, type PostgresServer } from '../test/support/postgres-server';

const ROUNDS = 25;
const FLUSH_RUNS = 5;

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function report(label: string, samplesNs: Float64Array): void {
  const s = samplesNs.slice().sort();
  const f = (ns: number) => `${(ns / 1000).toFixed(3)} µs`;
  console.log(
    `  ${label.padEnd(44)} median ${f(percentile(s, 50))}   p99 ${f(percentile(s, 99))}   p99.9 ${f(percentile(s, 99.9))}   (${s.length} entries)`,
  );
}

/** Times every call on its own (the clock read itself, ~30-60 ns, is included: the figures err high). */
function timeEach(fill: (i: number) => void, reset: () => void): Float64Array {
  const samples = new Float64Array(ROUNDS * CAPTURE_QUEUE_CAPACITY);
  let n = 0;
  for (let round = -3; round < ROUNDS; round++) {
    for (let i = 0; i < CAPTURE_QUEUE_CAPACITY; i++) {
      const t0 = process.hrtime.bigint();
      fill(i);
      const t1 = process.hrtime.bigint();
      if (round >= 0) samples[n++] = Number(t1 - t0); // the first rounds warm the JIT
    }
    reset();
  }
  return samples;
}

function entry(i: number): ModelInvokeWarningEntry {
  const now = new Date();
  return {
    EntityAnalysisModelGuid: '11111111-1111-4111-8111-111111111111',
    EntityAnalysisModelName: 'Bench model',
    EntityAnalysisModelInstanceEntryGuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    Message: 'ExtractFields',
    ElapsedMicroseconds: 1000 + i,
    SinceLastEntryMicroseconds: 500,
    OccurredDate: now,
    CreatedDate: now,
  };
}

function benchEnqueue(): void {
  console.log(`\nEnqueue cost per entry (${ROUNDS} rounds of ${CAPTURE_QUEUE_CAPACITY}, each call timed):`);
  const ring = new BoundedQueue<ModelInvokeWarningEntry>(CAPTURE_QUEUE_CAPACITY);
  const prebuilt = Array.from({ length: CAPTURE_QUEUE_CAPACITY }, (_, i) => entry(i));
  report(
    'BoundedQueue.enqueue (prebuilt entry)',
    timeEach(
      (i) => ring.enqueue(prebuilt[i]),
      () => ring.drain(),
    ),
  );
  const queues = new CaptureQueues(new SystemClock());
  const guids = prebuilt.map((e) => e.EntityAnalysisModelInstanceEntryGuid);
  report(
    'CaptureQueues.enqueueModelInvokeWarning',
    timeEach(
      (i) =>
        queues.enqueueModelInvokeWarning({
          entityAnalysisModelGuid: '11111111-1111-4111-8111-111111111111',
          entityAnalysisModelName: 'Bench model',
          entityAnalysisModelInstanceEntryGuid: guids[i],
          message: 'ExtractFields',
          elapsedMicroseconds: i,
          sinceLastEntryMicroseconds: 500,
        }),
      () => queues.modelInvokeWarning.drain(),
    ),
  );
  const provider = new MeterProvider({ readers: [new CaptureMetricReader()] });
  const recorder = new CapturePipelineTelemetry(
    new EngineMetrics(provider.getMeter('bench'), engineHistograms('bench')),
    queues,
  );
  report(
    'CapturePipelineTelemetry.archiverWarning (+ counter)',
    timeEach(
      (i) =>
        recorder.archiverWarning({
          entityAnalysisModelGuid: '11111111-1111-4111-8111-111111111111',
          entityAnalysisModelInstanceEntryGuid: guids[i],
          stageId: ArchiverStage.RdbmsArchiveWrite,
          durationMicroseconds: 10_000_001,
        }),
      () => queues.archiverWarning.drain(),
    ),
  );
  void provider.shutdown();
}

async function benchFlush(
  provider: DatabaseProvider,
  connectionString?: string,
  postgresBulkPath: 'unnest' | 'values' = 'unnest',
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-capture-'));
  const ds = new DataSource({
    ...dataSourceOptions({ provider, connectionString, dataDirectory: dir }, CAPTURE_ENTITIES, MIGRATIONS),
    migrationsTransactionMode: 'each',
  });
  await ds.initialize();
  try {
    await ds.runMigrations();
    const queues = new CaptureQueues(new SystemClock());
    const repository = new CaptureRepository(ds);
    repository.postgresBulkPath = postgresBulkPath;
    const flusher = new CaptureFlusher(queues, repository, null, new SystemClock(), {
      instance: 'bench',
      intervalMs: 60_000,
    });
    const times: number[] = [];
    for (let run = 0; run < FLUSH_RUNS + 1; run++) {
      for (let i = 0; i < CAPTURE_QUEUE_CAPACITY; i++) queues.modelInvokeWarning.enqueue(entry(i));
      const t0 = process.hrtime.bigint();
      const r = await flusher.flush();
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (r.written[CaptureQueueId.ModelInvokeWarning] !== CAPTURE_QUEUE_CAPACITY || r.deferred)
        throw new Error(`flush did not write the rows: ${JSON.stringify(r.written)}`);
      if (run > 0) times.push(ms); // the first run warms statements and the JIT
    }
    times.sort((a, b) => a - b);
    const rows = Number(
      (await ds.query<{ n: string }[]>('SELECT COUNT(*) AS "n" FROM "ModelInvokeWarning"'))[0].n,
    );
    console.log(
      `  ${(provider === 'postgres' ? `postgres (${postgresBulkPath})` : provider).padEnd(20)} median ${times[Math.floor(times.length / 2)].toFixed(1)} ms   max ${times[times.length - 1].toFixed(1)} ms   (${FLUSH_RUNS} flushes of ${CAPTURE_QUEUE_CAPACITY} ModelInvokeWarning rows + 6 health rows; ${rows} rows in the table)`,
    );
  } finally {
    await ds.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  Logger.overrideLogger(['error']);
  benchEnqueue();
  console.log(
    `\nFlush of one full queue (${CAPTURE_QUEUE_CAPACITY} rows, one transaction): SQLite multi-row INSERTs; PostgreSQL unnest arrays (used) and multi-row INSERTs (for comparison):`,
  );
  await benchFlush('sqlite');
  let pg: PostgresServer | undefined;
  let url = process.env.DATABASE_URL;
  try {
    if (!url) {
      pg = await startPostgresServer();
      url = pg.url;
    }
    const name = `bench_capture_${process.pid}`;
    const admin = new Client({ connectionString: url });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
    await admin.query(`CREATE DATABASE "${name}"`);
    const target = new URL(url);
    target.pathname = `/${name}`;
    try {
      await benchFlush('postgres', target.toString(), 'unnest');
      await benchFlush('postgres', target.toString(), 'values');
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  } finally {
    pg?.stop();
  }
  console.log('');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
