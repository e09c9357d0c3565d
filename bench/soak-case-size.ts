/* bench:soak, part: case creation's per-item time at 1 000 and at 1 000 000 rows in Case (the batch's open-case
 * look-up and its upsert, as case creation runs them), with the plans of both statements at each size. */
import { randomUUID } from 'node:crypto';
import { timeOrderedGuid } from '@app/input-rules';
import { DataSource } from 'typeorm';
import { dataSourceOptions, MIGRATIONS } from '@app/database';
import { ALL_ENTITIES } from '../apps/server/src/entities';
import { CaseRepository, type CaseUpsert } from '../libs/engine/src/case-creation/case.repository';
import type { SoakDatabase } from './soak-measure';

const BATCH = 500;
const TIMED_BATCHES = Number(process.env.BENCH_SOAK_CASE_BATCHES ?? 60);

/** Fills Case up to `rows` open cases of workflow 1 (FILL-<i>), in set statements. */
async function fill(ds: DataSource, from: number, rows: number): Promise<void> {
  const cols = `"Guid", "CaseWorkflowId", "CaseKey", "CaseKeyValue", "CaseWorkflowStatusId", "Priority",
    "EntityAnalysisModelInstanceEntryGuid", "CreatedDate"`;
  if (ds.options.type === 'postgres') {
    await ds.query(
      `INSERT INTO "Case" (${cols}) SELECT md5(i::text)::uuid::text, 1, 'AccountId', 'FILL-' || i, 1, 5,
         md5('e' || i)::uuid::text, now() FROM generate_series($1::int, $2::int) AS i`,
      [from + 1, rows],
    );
    await ds.query('ANALYZE "Case"');
  } else {
    await ds.query(
      `WITH RECURSIVE n(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO "Case" (${cols}) SELECT printf('%08x-0000-4000-8000-%012x', i, i), 1, 'AccountId', 'FILL-' || i,
         1, 5, printf('%08x-0000-4000-8000-%012x', i, i + 1), '2026-01-01 00:00:00.000' FROM n`,
      [from + 1, rows],
    );
    await ds.query('ANALYZE');
  }
}

/** A batch as case creation writes it: new cases, and an upgrade of existing ones (one in five, at random). */
function batch(round: number, existing: number): CaseUpsert[] {
  return Array.from({ length: BATCH }, (_, i) => ({
    CaseWorkflowId: 1,
    CaseKey: 'AccountId',
    // accounts as the soak's load names them (ACC-<i>); the Guid as case creation makes it (time-ordered)
    CaseKeyValue: i % 5 === 0 ? `FILL-${1 + ((round * BATCH + i) % existing)}` : `ACC-${round * BATCH + i}`,
    Guid: timeOrderedGuid(Date.now()),
    CaseWorkflowStatusId: 2,
    Priority: 1 + (round % 4),
    EntityAnalysisModelInstanceEntryGuid: randomUUID(),
    At: new Date(),
  }));
}

/** The statements one batch sends (as the repository builds them), each explained on the database. */
async function explain(ds: DataSource, repo: CaseRepository, rows: CaseUpsert[]): Promise<string[]> {
  const sent: [string, unknown[]][] = [];
  const query = ds.query.bind(ds);
  // recorded, not sent: each runs once, below, under EXPLAIN (ANALYZE) in a transaction rolled back
  ds.query = ((sql: string, params?: unknown[]) => {
    sent.push([sql, params ?? []]);
    return Promise.resolve([]);
  }) as DataSource['query'];
  const runner = ds.createQueryRunner();
  try {
    await runner.startTransaction();
    await repo.findOpen(rows);
    await repo.upsert(rows);
    ds.query = query;
    const out: string[] = [];
    for (const [sql, params] of sent) {
      const plan =
        ds.options.type === 'postgres' ? 'EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)' : 'EXPLAIN QUERY PLAN';
      const lines = await runner.query(`${plan} ${sql}`, params);
      out.push(
        `    ${sql.replace(/\s+/g, ' ').slice(0, 140)}…`,
        ...(lines as Record<string, unknown>[]).map((l) => `      ${String(l['QUERY PLAN'] ?? l.detail)}`),
      );
    }
    return out;
  } finally {
    ds.query = query;
    await runner.rollbackTransaction().catch(() => undefined);
    await runner.release();
  }
}

/** One batch as case creation runs it (look-up, then upsert): its µs per item. */
async function timedBatch(repo: CaseRepository, rows: CaseUpsert[]): Promise<number> {
  const start = process.hrtime.bigint();
  await repo.findOpen(rows);
  await repo.upsert(rows);
  return Number(process.hrtime.bigint() - start) / 1000 / BATCH;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

interface Sized {
  size: number;
  label: string;
  ds: DataSource;
  repo: CaseRepository;
  micros: number[];
}

async function sized(db: SoakDatabase, dataDirectory: string, size: number, label: string): Promise<Sized> {
  const ds = new DataSource(
    dataSourceOptions(
      db.provider === 'postgres'
        ? { provider: 'postgres', connectionString: db.url, dataDirectory }
        : { provider: 'sqlite', dataDirectory, sqliteFile: db.file },
      ALL_ENTITIES,
      MIGRATIONS,
    ),
  );
  await ds.initialize();
  await ds.runMigrations({ transaction: 'each' });
  await fill(ds, 0, size);
  return { size, label, ds, repo: new CaseRepository(ds), micros: [] };
}

/**
 * Prints case creation's per-item time at 1 000 and at 1 000 000 Case rows: two fresh databases (`small`,
 * `large`), filled, then TIMED_BATCHES batches on each in alternation after two untimed, so that a pause of the
 * shared machine falls on both alike; each figure is its median batch's. Then each statement's plan at each size.
 */
export async function caseSizeBench(
  small: SoakDatabase,
  large: SoakDatabase,
  dataDirectory: string,
): Promise<void> {
  const sizes = [
    await sized(small, dataDirectory, 1_000, '1 000'),
    await sized(large, dataDirectory, 1_000_000, '1 000 000'),
  ];
  try {
    for (let r = 0; r < 2 + TIMED_BATCHES; r++)
      for (const s of sizes) {
        const micros = await timedBatch(s.repo, batch(s.size + r, s.size));
        if (r >= 2) s.micros.push(micros);
      }
    for (const s of sizes) {
      console.log(
        `  case creation per item with ${s.label} rows in Case: ${median(s.micros).toFixed(1)} µs ` +
          `(the median of ${TIMED_BATCHES} batches of ${BATCH}, alternating with the other size's)`,
      );
      for (const line of await explain(s.ds, s.repo, batch(9_999_999, s.size))) console.log(line);
    }
    console.log(
      `  ratio 1 000 000 / 1 000: ${(median(sizes[1].micros) / median(sizes[0].micros)).toFixed(2)} (target ≤ 1.5)`,
    );
  } finally {
    for (const s of sizes) await s.ds.destroy();
  }
}
