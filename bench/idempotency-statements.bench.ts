/*
 * npm run bench:idempotency-statements — what the database store's two writes cost a keyed request on SQLite, and
 * how much of it is the database file itself. On a migrated SQLite database (WAL, synchronous NORMAL, the
 * service's pragmas, automatic checkpoints off as SqliteCheckpoints leaves them; BENCH_IDEMPOTENCY_ROWS records,
 * default 100 000, already held), for batches of 1, 4, 8 and 16 requests (the claims, then the answers, of one
 * event-loop turn each):
 *   store     DatabaseIdempotencyStore itself (group commit, TypeORM's query, better-sqlite3)
 *   file      the store's own statement texts run straight on better-sqlite3, on the same file
 *   memory    the same statements on an in-memory copy of the schema (no WAL: what is left is SQLite's CPU)
 * and prints µs per request (claim + answer). `file` − `memory` is the WAL's page writes: every claim inserts
 * a random key (a SHA-256), so each row of a batch dirties a leaf page of its own. Figures only; nothing is
 * asserted.
 */
import Database from 'better-sqlite3';
import { hash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { dataSourceOptions, MIGRATIONS } from '@app/database';
import { DatabaseIdempotencyStore, IdempotencyRecord } from '@app/idempotency';
import { SystemClock } from '@app/runtime';
import { idempotencyStatements } from '../libs/idempotency/src/idempotency-statements';
import { runBench } from './support';

const PREFILLED = Number(process.env.BENCH_IDEMPOTENCY_ROWS ?? 100_000);
const REQUESTS = Number(process.env.BENCH_IDEMPOTENCY_REQUESTS ?? 40_000);
const BATCHES = [1, 4, 8, 16];
const LEASE_MS = 60_000;
const RETENTION_MS = 86_400_000;

const newId = () => hash('sha256', randomBytes(16), 'base64url');
const RUNNING = JSON.stringify({ f: newId() });
/** An answer of the demo model's size (idempotency-sizes measures the real one). */
const ANSWERED = JSON.stringify({
  f: newId(),
  a: { body: { EntryGuid: '0f8fad5b-d9cb-469f-a165-70867728950e', ResponseElevation: 0, Activation: {} } },
});

type Runner = (claims: string[], answers: string[]) => void | Promise<void>;

/** µs per request of `run` over REQUESTS requests in batches of `batch`: each turn's claims, then the answers of
 * the turn before. */
async function perRequest(batch: number, run: Runner): Promise<number> {
  let previous: string[] = [];
  const start = process.hrtime.bigint();
  for (let done = 0; done < REQUESTS; done += batch) {
    const claims = Array.from({ length: batch }, newId);
    await run(claims, previous);
    previous = claims;
  }
  return Number(process.hrtime.bigint() - start) / 1_000 / REQUESTS;
}

/** The store's statements straight on a better-sqlite3 connection. */
function onConnection(db: Database.Database): Runner {
  const sql = idempotencyStatements('sqlite', () => '?');
  // prepared once per text, as TypeORM's statement cache holds them for the store
  const prepared = new Map<string, Database.Statement>();
  const statement = (text: string) =>
    prepared.get(text) ?? prepared.set(text, db.prepare(text)).get(text)!;
  return (claims, answers) => {
    const now = Date.now();
    statement(sql.claim(claims.length)).all(claims.flatMap((id) => [id, RUNNING, now + LEASE_MS]));
    if (answers.length > 0)
      statement(sql.complete(answers.length)).run(
        answers.flatMap((id) => [id, ANSWERED, now + RETENTION_MS]),
      );
  };
}

/** The real store: a turn's claims (and the previous turn's answers) added in one turn, then awaited. */
function throughStore(store: DatabaseIdempotencyStore): Runner {
  return async (claims, answers) => {
    await Promise.all([
      ...claims.map((id) => store.claim(id, 'f', LEASE_MS)),
      ...answers.map((id) => store.complete(id, 'f', { body: { ok: true } }, RETENTION_MS)),
    ]);
  };
}

async function main(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'bench-idem-statements-'));
  const ds = new DataSource(
    dataSourceOptions({ provider: 'sqlite', dataDirectory: directory }, [IdempotencyRecord], MIGRATIONS),
  );
  await ds.initialize();
  try {
    await ds.runMigrations();
    await ds.query('PRAGMA wal_autocheckpoint = 0');
    const db = (ds.driver as unknown as { databaseConnection: Database.Database }).databaseConnection;
    const fill = db.prepare('INSERT INTO "IdempotencyRecord" ("Id", "Record", "ExpiresAt") VALUES (?, ?, ?)');
    db.transaction(() => {
      for (let i = 0; i < PREFILLED; i++) fill.run(newId(), ANSWERED, Date.now() + RETENTION_MS);
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
    const memory = new Database(':memory:');
    for (const { sql } of db
      .prepare(`SELECT sql FROM sqlite_master WHERE tbl_name = 'IdempotencyRecord' AND sql IS NOT NULL`)
      .all() as { sql: string }[])
      memory.exec(sql);
    memory.prepare('ATTACH ? AS f').run(join(directory, 'service.sqlite'));
    memory.exec('INSERT INTO main."IdempotencyRecord" SELECT * FROM f."IdempotencyRecord"');
    memory.exec('DETACH f');

    const store = new DatabaseIdempotencyStore(ds.getRepository(IdempotencyRecord), new SystemClock());
    const runners: [string, Runner][] = [
      ['store', throughStore(store)],
      ['file', onConnection(db)],
      ['memory', onConnection(memory)],
    ];
    process.stdout.write(
      `SQLite, ${PREFILLED} records held, ${REQUESTS} requests a figure: µs per request (claim + answer)\n` +
        `batch   ${runners.map(([name]) => name.padStart(8)).join('')}   WAL's share of file\n`,
    );
    for (const batch of BATCHES) {
      const figures: number[] = [];
      for (const [, run] of runners) {
        figures.push(await perRequest(batch, run));
        db.pragma('wal_checkpoint(TRUNCATE)');
      }
      const [, file, inMemory] = figures;
      process.stdout.write(
        `${String(batch).padStart(5)}   ${figures.map((f) => f.toFixed(1).padStart(8)).join('')}   ${(
          (100 * (file - inMemory)) /
          file
        ).toFixed(0)} %\n`,
      );
    }
    memory.close();
  } finally {
    await ds.destroy();
    rmSync(directory, { recursive: true, force: true });
  }
}

runBench(main);
