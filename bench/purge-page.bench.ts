/* npm run bench:purge-page — what a page of the archive purge's candidates costs on PostgreSQL, with the table's
 * statistics and without (a new table, autovacuum off, a bulk load between two ANALYZEs): the statement the
 * service sends (a walk of LIMIT 1 index probes) beside one ORDER BY … LIMIT (the statement SQLite and SQL Server
 * are sent), alternating in rounds in one run. The archive holds BENCH_PAGE_ROWS rows of two models (a row a second
 * each, all past retention) and a Case table with an open case for every tenth row of each.
 * Each form purges one of the models as the service does (a page read, its rows deleted but those an open case
 * names), BENCH_PAGE_PAGES pages a round, the forms alternating, 4 rounds without statistics and 4 after a
 * VACUUM ANALYZE (what autovacuum does); the purge's position carries on. Prints each page's read and its read
 * with the delete, p50 / p90 / max, and the walk's ratio to the other form.
 *   BENCH_PAGE_ROWS    rows of the archive (default 400 000)
 *   BENCH_PAGE_PAGES   pages a form purges a round (default 40)
 *   DATABASE_URL       a PostgreSQL server to use instead of a throwaway cluster (fsync off) */
import { DataSource } from 'typeorm';
import { dataSourceOptions, MIGRATIONS } from '@app/database';
import { PURGE_BATCH } from '@app/engine';
import { ALL_ENTITIES } from '../apps/server/src/entities';
import {
  ArchiveRepository,
  orderedPurgePage,
  purgeDelete,
  walkedPurgePage,
  type PurgePosition,
} from '../libs/engine/src/archiver/archive.repository';
import { withPostgresDatabase } from './postgres-database';
import { runBench } from './support';

const ROWS = Number(process.env.BENCH_PAGE_ROWS ?? 400_000);
const PAGES = Number(process.env.BENCH_PAGE_PAGES ?? 40);
const ROUNDS = 4;
const PLANS = process.env.BENCH_PAGE_PLANS === '1';
const T0 = Date.UTC(2026, 0, 1);
const CUTOFF = new Date(T0 + 2 * ROWS * 1000).toISOString();

type Form = 'walk' | 'ordered';
const FORMS: Form[] = ['walk', 'ordered'];
/** Each form purges a model of its own: the two models' rows interleave, a row a second each. */
const MODEL: Record<Form, number> = { walk: 1, ordered: 2 };
const statement = (form: Form, after: PurgePosition | null) =>
  form === 'walk'
    ? walkedPurgePage({ modelId: MODEL[form], cutoff: CUTOFF, after, limit: PURGE_BATCH })
    : orderedPurgePage('postgres', { modelId: MODEL[form], cutoff: CUTOFF, after, limit: PURGE_BATCH });

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

interface Walk {
  after: PurgePosition | null;
  /** ms a page: reading it, and reading it and deleting what it does not keep */
  read: number[];
  purged: number[];
  deleted: number;
}

/** `PAGES` pages of a form's purge from where it stopped: each page read, then its rows deleted but the kept. */
async function purgePages(ds: DataSource, form: Form, w: Walk): Promise<void> {
  const archive = new ArchiveRepository(ds);
  for (let i = 0; i < PAGES; i++) {
    const { sql, params } = statement(form, w.after);
    const t = performance.now();
    const page = await ds.query<{ Id: string; CreatedDate: Date; Kept: number }[]>(sql, params);
    const read = performance.now() - t;
    w.deleted += await archive.purge(page.filter((r) => Number(r.Kept) !== 1).map((r) => Number(r.Id)));
    w.read.push(read);
    w.purged.push(performance.now() - t);
    if (page.length < PURGE_BATCH) throw new Error(`${form}: the archive ran out; lower BENCH_PAGE_PAGES`);
    const last = page[page.length - 1];
    w.after = { createdDate: last.CreatedDate, id: Number(last.Id) };
  }
}

/** BENCH_PAGE_PLANS=1: each form's next page and a delete of it, explained (EXPLAIN ANALYZE, rolled back). */
async function printPlans(ds: DataSource, walks: Record<Form, Walk>): Promise<void> {
  for (const form of FORMS) {
    const page = statement(form, walks[form].after);
    const ids = (await ds.query<{ Id: string }[]>(page.sql, page.params)).map((r) => Number(r.Id));
    const runner = ds.createQueryRunner();
    await runner.startTransaction();
    try {
      for (const [what, { sql, params }] of [
        ['page', page],
        ['delete', purgeDelete('postgres', ids)],
      ] as const) {
        const plan = (await runner.query(`EXPLAIN (ANALYZE, COSTS OFF) ${sql}`, params)) as {
          'QUERY PLAN': string;
        }[];
        console.log(`\n${form}, ${what}:\n${plan.map((r) => r['QUERY PLAN']).join('\n')}`);
      }
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  }
}

async function measure(ds: DataSource, label: string, walks: Record<Form, Walk>): Promise<void> {
  for (const form of FORMS) {
    walks[form].read = [];
    walks[form].purged = [];
  }
  for (let round = 0; round < ROUNDS; round++)
    for (const form of round % 2 ? [...FORMS].reverse() : FORMS) await purgePages(ds, form, walks[form]);
  const figure = (times: number[]) => {
    const s = [...times].sort((a, b) => a - b);
    return { p50: quantile(s, 0.5), p90: quantile(s, 0.9), max: s[s.length - 1] };
  };
  const f = (n: number) => n.toFixed(1);
  const cell = (t: number[]) => {
    const x = figure(t);
    return `${f(x.p50)} / ${f(x.p90)} / ${f(x.max)}`;
  };
  const { walk, ordered } = walks;
  console.log(
    `| ${label} | ${cell(walk.read)} | ${cell(ordered.read)} | ${(figure(walk.read).p50 / figure(ordered.read).p50).toFixed(2)}× | ` +
      `${cell(walk.purged)} | ${cell(ordered.purged)} | ${(figure(walk.purged).p50 / figure(ordered.purged).p50).toFixed(2)}× | ${walk.read.length} |`,
  );
  if (PLANS) await printPlans(ds, walks);
  if (walk.deleted !== ordered.deleted)
    throw new Error(`the forms deleted ${walk.deleted} and ${ordered.deleted} rows`);
}

runBench(() =>
  withPostgresDatabase('purgepage', async (connectionString) => {
    const ds = new DataSource(
      dataSourceOptions(
        { provider: 'postgres', connectionString, dataDirectory: '' },
        ALL_ENTITIES,
        MIGRATIONS,
      ),
    );
    await ds.initialize();
    try {
      await ds.runMigrations({ transaction: 'each' });
      for (const table of ['EntityAnalysisModelArchive', 'Case'])
        await ds.query(`ALTER TABLE "${table}" SET (autovacuum_enabled = false)`);
      await ds.query(
        `INSERT INTO "EntityAnalysisModelArchive" ("EntityAnalysisModelInstanceEntryGuid", "EntityAnalysisModelId",
           "Json", "ReferenceDate", "CreatedDate")
         SELECT md5(i::text)::uuid::text, 1 + i % 2,
           '{"transactionId":"t' || i || '","account":{"id":"ACC-' || i || '"},"amount":9999,"country":"DE"}',
           $2::timestamptz + i * interval '1 second', $2::timestamptz + i * interval '1 second'
         FROM generate_series(1, $1::int) AS i`,
        [ROWS, new Date(T0).toISOString()],
      );
      await ds.query(
        `INSERT INTO "Case" ("Guid", "CaseWorkflowId", "CaseKey", "CaseKeyValue", "CaseWorkflowStatusId", "Priority",
           "EntityAnalysisModelInstanceEntryGuid", "CreatedDate")
         SELECT gen_random_uuid()::text, 1, 'AccountId', 'ACC-' || i, 1, 1, md5(i::text)::uuid::text, now()
         FROM generate_series(5, $1::int, 5) AS i`,
        [ROWS],
      );
      console.log(
        `PostgreSQL${process.env.DATABASE_URL ? '' : ' (throwaway cluster)'}: ${ROWS.toLocaleString('en')} archive rows, ` +
          `pages of ${PURGE_BATCH}, ${PAGES} pages a form a round, ${ROUNDS} rounds\n`,
      );
      console.log(
        '| statistics | page read, the walk (sent): ms p50 / p90 / max | page read, one ORDER BY … LIMIT | walk / ordered, p50 | ' +
          'page read and purged, the walk | page read and purged, ORDER BY | walk / ordered, p50 | pages a form |',
      );
      console.log('|---|---|---|---|---|---|---|---|');
      const walks = Object.fromEntries(
        FORMS.map((form) => [form, { after: null, read: [], purged: [], deleted: 0 }]),
      ) as unknown as Record<Form, Walk>;
      await measure(ds, 'none', walks);
      // what autovacuum does: the deleted rows' space and index entries reclaimed, the statistics gathered
      await ds.query('VACUUM ANALYZE "EntityAnalysisModelArchive"');
      await ds.query('VACUUM ANALYZE "Case"');
      await measure(ds, 'vacuumed and analysed', walks);
    } finally {
      await ds.destroy();
    }
  }),
);
