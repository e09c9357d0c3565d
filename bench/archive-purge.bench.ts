/* npm run bench:archive-purge — does purging a large archive show in the answers? On PostgreSQL: the archive is
 * filled with BENCH_PURGE_ROWS rows (default 10 000 000) past their retention, then Invoke runs open loop at
 * BENCH_PURGE_FRACTION (default 0.6) of the capacity in alternating parts: the demo model's retention set to
 * 1 day (the purge at work: ArchivePurgeService with its production batch, rest and run budget, every 2 s so a
 * change is seen at once) and to 0 (kept for ever: no purge), so the machine's noise falls on both alike. Prints
 * p50 / p99 / p99.9 / max of each side, their p99 ratio (target ≤ 1.2×), the purge's rate while it worked
 * beside the load, and its rate alone (no load: the node idle, the purge resting least).
 *   BENCH_PURGE_ROWS            rows to fill (default 10 000 000)
 *   BENCH_PURGE_CAPACITY        a capacity measured before (skips the closed loop of 30 s)
 *   BENCH_PURGE_FRACTION        the open loop's rate as a fraction of the capacity (default 0.6)
 *   BENCH_PURGE_SECONDS         each part's measured seconds (default 20), ROUNDS parts a side
 *   DATABASE_URL                a PostgreSQL server to use instead of a throwaway cluster (fsync off) */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DEMO_MODEL_GUID } from '@app/engine';
import { startPostgresServer } from '../test/support/postgres-server';
import { capacity, openLoop, row, tail, type Target } from './open-loop';
import { newPostgresDatabase } from './postgres-database';
import { createApiKey, runBench, spawnRung } from './support';

const ROWS = Number(process.env.BENCH_PURGE_ROWS ?? 10_000_000);
const GIVEN_CAPACITY = Number(process.env.BENCH_PURGE_CAPACITY ?? 0);
const FRACTION = Number(process.env.BENCH_PURGE_FRACTION ?? 0.6);
const SECONDS = Number(process.env.BENCH_PURGE_SECONDS ?? 20);
const ROUNDS = 3;
const DAY = 86_400_000;
/** Rows a fill statement inserts. */
const FILL_CHUNK = 500_000;

/** The demo model's archive gets `rows` rows created 3–4 days ago, as the Archiver writes them. */
async function fill(db: Client, rows: number): Promise<void> {
  const [{ Id: modelId }] = (
    await db.query<{ Id: number }>(`SELECT "Id" FROM "EntityAnalysisModel" WHERE "Guid" = $1`, [
      DEMO_MODEL_GUID,
    ])
  ).rows;
  const started = Date.now();
  const oldest = new Date(Date.now() - 4 * DAY);
  for (let from = 0; from < rows; from += FILL_CHUNK) {
    const to = Math.min(rows, from + FILL_CHUNK);
    await db.query(
      `INSERT INTO "EntityAnalysisModelArchive"
         ("EntityAnalysisModelInstanceEntryGuid", "EntityAnalysisModelId", "EntryReference", "Json",
          "ReferenceDate", "CreatedDate")
       SELECT gen_random_uuid()::text, $1, NULL,
         '{"transactionId":"t' || i || '","account":{"id":"ACC-OLD-' || i || '"},"amount":9999,"country":"DE"}',
         $2::timestamptz + i * interval '8 milliseconds', $2::timestamptz + i * interval '8 milliseconds'
       FROM generate_series($3::bigint, $4::bigint) AS i`,
      [modelId, oldest, from, to - 1],
    );
    process.stdout.write(`  filled ${to.toLocaleString('en')} rows (${Math.round((Date.now() - started) / 1000)} s)\n`);
  }
  await db.query('ANALYZE "EntityAnalysisModelArchive"');
}

/** Rows of the archive created before two days ago (the purge's candidates), by the index. */
async function oldRows(db: Client): Promise<number> {
  const r = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM "EntityAnalysisModelArchive" WHERE "CreatedDate" < $1`,
    [new Date(Date.now() - 2 * DAY)],
  );
  return Number(r.rows[0].n);
}

async function main(): Promise<void> {
  console.log(`bench:archive-purge (${ROWS.toLocaleString('en')} rows; the figures are ratios within this run)`);
  const pg = process.env.DATABASE_URL ? undefined : await startPostgresServer();
  const connectionString = await newPostgresDatabase(process.env.DATABASE_URL ?? pg!.url, 'purge');
  const service = await spawnRung('service', {
    DatabaseProvider: 'postgres',
    ConnectionString: connectionString,
    DataDirectory: mkdtempSync(join(tmpdir(), 'bench-purge-')),
    ArchivePurgeIntervalMilliseconds: '2000',
  });
  const db = new Client({ connectionString });
  await db.connect();
  try {
    const retention = async (days: number) => {
      const res = await fetch(`${service.url}/api/EntityAnalysisModel/${DEMO_MODEL_GUID}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ archiveRetentionDays: days }),
      });
      if (res.status !== 200) throw new Error(`setting the retention answered ${res.status}`);
      // a run reads the retentions when it starts (every 2 s) and works at most 1 s
      await new Promise((r) => setTimeout(r, 3_000));
    };
    await retention(0);
    await fill(db, ROWS);
    const invoke: Target = {
      url: service.url,
      path: `/api/Invoke/EntityAnalysisModel/${DEMO_MODEL_GUID}`,
      apiKey: await createApiKey(service.url, service.token, 'purge'),
    };
    const cap = GIVEN_CAPACITY || (await capacity(invoke, 30));
    const rate = Math.round(cap * FRACTION);
    console.log(`capacity ${cap}/s (${GIVEN_CAPACITY ? 'given' : 'closed loop, 16 connections, worst 10-s window'}); open loop at ${rate}/s`);
    const without: number[] = [];
    const within: number[] = [];
    let purgedMs = 0;
    const before = await oldRows(db);
    for (let round = 0; round < ROUNDS; round++) {
      without.push(...(await openLoop(invoke, rate, SECONDS)));
      await retention(1);
      const on = Date.now();
      within.push(...(await openLoop(invoke, rate, SECONDS)));
      await retention(0);
      purgedMs += Date.now() - on;
    }
    const purged = before - (await oldRows(db));
    // the purge alone: no Invoke load, so the node is idle and the purge rests least
    await retention(1);
    const idleFrom = await oldRows(db);
    const idleOn = Date.now();
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    const idlePurged = idleFrom - (await oldRows(db));
    const idleMs = Date.now() - idleOn;
    await retention(0);
    const offered = Math.round(rate * SECONDS) * ROUNDS;
    const w = tail(within, offered);
    const wo = tail(without, offered);
    console.log('| | Invoke p50 / p99 / p99.9 / max ms | 200s / offered |');
    console.log('|---|---|---|');
    console.log(`| without the purge | ${row(wo)} | ${wo.ok} / ${offered} |`);
    console.log(`| while the purge works | ${row(w)} | ${w.ok} / ${offered} |`);
    console.log(`p99 with / without: ${(w.p99 / wo.p99).toFixed(2)}× (target ≤ 1.2×)`);
    const perSecond = purged / (purgedMs / 1000);
    console.log(
      `purged ${purged.toLocaleString('en')} of ${before.toLocaleString('en')} rows in ${Math.round(purgedMs / 1000)} s ` +
        `with the purge on: ${Math.round(perSecond)} rows/s (${((perSecond * 3600) / 1e6).toFixed(1)} million an hour)`,
    );
    const idlePerSecond = idlePurged / (idleMs / 1000);
    console.log(
      `the purge alone (no load): ${Math.round(idlePerSecond)} rows/s (${((idlePerSecond * 3600) / 1e6).toFixed(1)} million an hour)`,
    );
  } finally {
    await db.end();
    await service.stop();
    pg?.stop();
  }
}

runBench(main);
