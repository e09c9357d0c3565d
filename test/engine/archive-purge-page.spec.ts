import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { dataSourceOptions, MIGRATIONS } from '@app/database';
import { CaseRecord } from '@app/engine';
import { ALL_ENTITIES } from '../../apps/server/src/entities';
import {
  ArchiveRepository,
  purgeDelete,
  purgePage,
  type ArchiveRow,
  type PurgeCandidate,
  type PurgePosition,
  type Statement,
} from '../../libs/engine/src/archiver/archive.repository';
import { createPostgresDatabase, createSqliteDirectory, SQLITE_AND_POSTGRES } from '../support/databases';
import { explain, type PlanNode } from '../support/postgres-plan';

const T0 = Date.UTC(2026, 0, 1);
const SECOND = 1000;

const open = (provider: 'sqlite' | 'postgres', connectionString?: string) =>
  new DataSource(
    dataSourceOptions(
      { provider, connectionString, dataDirectory: provider === 'sqlite' ? createSqliteDirectory() : '' },
      ALL_ENTITIES,
      MIGRATIONS,
    ),
  );

const archiveRow = (modelId: number, createdMs: number): ArchiveRow => ({
  EntityAnalysisModelInstanceEntryGuid: randomUUID(),
  EntityAnalysisModelId: modelId,
  EntryReference: null,
  Json: '{}',
  ReferenceDate: new Date(createdMs),
  CreatedDate: new Date(createdMs),
  UpdatedDate: null,
});

const caseNaming = (entryGuid: string, i: number, closed: boolean): Partial<CaseRecord> => ({
  Guid: randomUUID(),
  CaseWorkflowId: 1,
  CaseKey: 'AccountId',
  CaseKeyValue: `ACC-${i}`,
  CaseWorkflowStatusId: 1,
  Priority: 1,
  EntityAnalysisModelInstanceEntryGuid: entryGuid,
  CreatedDate: new Date(T0),
  ClosedDate: closed ? new Date(T0) : null,
});

/**
 * The purge's walk of a model's archive, page by page: every row created before the cutoff once, oldest first
 * (ties on CreatedDate by Id, a page boundary inside a tie), none of another model's, none at or after the
 * cutoff, each row an open case names marked kept (a closed case keeps nothing).
 */
describe.each(SQLITE_AND_POSTGRES)("the archive purge's pages on %s", (provider) => {
  let ds: DataSource;
  beforeAll(async () => {
    ds = open(provider, provider === 'postgres' ? await createPostgresDatabase() : undefined);
    await ds.initialize();
    await ds.runMigrations({ transaction: 'each' });
  });
  afterAll(() => ds?.destroy());

  it('walks every row before the cutoff once, in order, across ties, marking what open cases name', async () => {
    const repo = new ArchiveRepository(ds);
    // model 7: 60 rows, four to a second; model 8 interleaved, at the same times
    const rows: ArchiveRow[] = [];
    for (let i = 0; i < 60; i++) {
      rows.push(archiveRow(7, T0 + Math.floor(i / 4) * SECOND));
      rows.push(archiveRow(8, T0 + Math.floor(i / 4) * SECOND));
    }
    // the newest row of model 7 inserted first: Id order and CreatedDate order differ
    rows.push(archiveRow(7, T0 - SECOND));
    await repo.bulkInsert(rows);
    const model7 = rows.filter((r) => r.EntityAnalysisModelId === 7);
    const guids = model7.map((r) => r.EntityAnalysisModelInstanceEntryGuid);
    // open cases name rows 3, 10, 11; a closed case names row 20
    await ds
      .getRepository(CaseRecord)
      .insert([
        caseNaming(guids[3], 3, false),
        caseNaming(guids[10], 10, false),
        caseNaming(guids[11], 11, false),
        caseNaming(guids[20], 20, true),
      ]);
    const cutoff = new Date(T0 + 12 * SECOND); // rows 0..47 and the earlier one are before it

    const walked: PurgeCandidate[] = [];
    let after: PurgePosition | null = null;
    for (let pages = 0; pages < 100; pages++) {
      const page = await repo.purgeCandidates(7, cutoff, after, 7);
      walked.push(...page);
      if (page.length < 7) break;
      after = page[page.length - 1];
    }

    const stored = await ds.query<{ Id: number | string; EntityAnalysisModelInstanceEntryGuid: string }[]>(
      `SELECT "Id", "EntityAnalysisModelInstanceEntryGuid" FROM "EntityAnalysisModelArchive"
       WHERE "EntityAnalysisModelId" = 7`,
    );
    const idOf = new Map(stored.map((r) => [r.EntityAnalysisModelInstanceEntryGuid, Number(r.Id)]));
    const expected = model7
      .filter((r) => r.CreatedDate.getTime() < cutoff.getTime())
      .map((r) => ({ id: idOf.get(r.EntityAnalysisModelInstanceEntryGuid)!, at: r.CreatedDate.getTime() }))
      .sort((a, b) => a.at - b.at || a.id - b.id);
    expect(expected).toHaveLength(49);
    expect(walked.map((c) => c.id)).toEqual(expected.map((e) => e.id));
    const kept = new Set([guids[3], guids[10], guids[11]].map((g) => idOf.get(g)));
    expect(
      walked
        .filter((c) => c.kept)
        .map((c) => c.id)
        .sort(),
    ).toEqual([...kept].sort());
  });
});

/**
 * On SQLite the page after a position seeks to it: the position is a bound of the index's range, not a filter over
 * the model's rows from the oldest (the rows kept for open cases stay at the walk's head, read again each page).
 */
describe("the archive purge's page on sqlite", () => {
  it('searches the model-and-time index from the position to the cutoff, and open cases by their index', async () => {
    const ds = open('sqlite');
    await ds.initialize();
    try {
      await ds.runMigrations({ transaction: 'each' });
      const { sql, params } = purgePage('sqlite', {
        modelId: 1,
        cutoff: new Date(T0).toISOString(),
        after: { createdDate: 'x', id: 5 },
        limit: 250,
      });
      const plan = (await ds.query<{ detail: string }[]>(`EXPLAIN QUERY PLAN ${sql}`, params)).map(
        (r) => r.detail,
      );
      expect(plan).toContain(
        'SEARCH a USING INDEX IX_EntityAnalysisModelArchive_Model_CreatedDate ' +
          '(EntityAnalysisModelId=? AND CreatedDate>? AND CreatedDate<?)',
      );
      expect(plan).toContain(
        'SEARCH c USING INDEX IX_Case_Open_EntryGuid (EntityAnalysisModelInstanceEntryGuid=?)',
      );
      expect(plan.join('\n')).not.toMatch(/SCAN|TEMP B-TREE/);
    } finally {
      await ds.destroy();
    }
  });
});

/** Rows in the archive: enough that a bitmap scan and a sort would be the statement's cost. */
const ROWS = 200_000;
/** Open cases, each naming an archived row: enough that a hash of them would be the statement's cost. */
const OPEN_CASES = 40_000;

/**
 * On PostgreSQL the purge's statements probe their indexes, with statistics and without: the page is a walk of
 * index probes that stops at the page's end, and each row's open case (the page's Kept, the delete's guard) one
 * probe of IX_Case_Open_EntryGuid. The earlier page (one ORDER BY … LIMIT), without statistics, was a bitmap scan of
 * every row of the model past the position and a sort (hundreds of milliseconds a page at 400 000 rows); its
 * EXISTS and the delete's NOT EXISTS hashed every open case, the page's with statistics, the delete's without.
 */
describe("the archive purge's statements on postgres, with and without statistics", () => {
  let ds: DataSource;
  beforeAll(async () => {
    ds = open('postgres', await createPostgresDatabase());
    await ds.initialize();
    // no statistics while the test runs: the cluster's autovacuum must not ANALYZE the tables meanwhile
    for (const table of ['EntityAnalysisModelArchive', 'Case'])
      await ds.query(`ALTER TABLE "${table}" SET (autovacuum_enabled = false)`);
    // two models, a row a second each, all before the cutoff below
    await ds.query(
      `INSERT INTO "EntityAnalysisModelArchive" ("EntityAnalysisModelInstanceEntryGuid", "EntityAnalysisModelId",
         "Json", "ReferenceDate", "CreatedDate")
       SELECT md5(i::text)::uuid::text, 1 + i % 2, '{"Amount":1}', now(), $2::timestamptz + i * interval '1 second'
       FROM generate_series(1, $1::int) AS i`,
      [ROWS, new Date(T0).toISOString()],
    );
    await ds.query(
      `INSERT INTO "Case" ("Guid", "CaseWorkflowId", "CaseKey", "CaseKeyValue", "CaseWorkflowStatusId", "Priority",
         "EntityAnalysisModelInstanceEntryGuid", "CreatedDate")
       SELECT md5('c' || i)::uuid::text, 1, 'AccountId', 'ACC-' || i, 1, 1, md5(i::text)::uuid::text, now()
       FROM generate_series(1, $1::int) AS i`,
      [OPEN_CASES],
    );
  });
  afterAll(() => ds?.destroy());

  const cutoff = new Date(T0 + 2 * ROWS * SECOND).toISOString();
  const position = new Date(T0 + (ROWS / 4) * SECOND).toISOString();
  const planOf = ({ sql, params }: Statement) => explain(ds, sql, params);
  const page = (after: boolean) =>
    planOf(
      purgePage('postgres', {
        modelId: 1,
        cutoff,
        after: after ? { createdDate: position, id: ROWS / 4 } : null,
        limit: 250,
      }),
    );
  /** Every read of a table is an index probe: no bitmap or sequential scan, no sort, no hash. */
  const expectProbes = (plan: PlanNode[], table: string, index?: string) => {
    const scans = plan.filter((n) => n['Relation Name'] === table);
    expect(scans.length).toBeGreaterThan(0);
    for (const scan of scans) {
      expect(['Index Scan', 'Index Only Scan']).toContain(scan['Node Type']);
      if (index) expect(scan['Index Name']).toBe(index);
    }
    expect(plan.map((n) => n['Node Type'])).not.toContain('Sort');
    expect(plan.map((n) => n['Node Type'])).not.toContain('Hash');
  };
  const expectAllProbes = async () => {
    for (const after of [false, true]) {
      const plan = await page(after);
      expectProbes(plan, 'EntityAnalysisModelArchive');
      expectProbes(plan, 'Case', 'IX_Case_Open_EntryGuid');
    }
    const ids = Array.from({ length: 250 }, (_, i) => 2 * i + 2);
    expectProbes(await planOf(purgeDelete('postgres', ids)), 'Case', 'IX_Case_Open_EntryGuid');
  };

  it('without statistics: the pages and the delete probe their indexes', async () => {
    const [{ columns }] = await ds.query<{ columns: string }[]>(
      `SELECT count(*) AS columns FROM pg_stats WHERE tablename IN ('EntityAnalysisModelArchive', 'Case')`,
    );
    expect(Number(columns)).toBe(0); // never analysed: the state the test is about
    await expectAllProbes();
  });

  it('answers the page after the position, an open case marking its row kept', async () => {
    const rows = await new ArchiveRepository(ds).purgeCandidates(
      1,
      new Date(cutoff),
      { createdDate: new Date(position), id: ROWS / 4 },
      250,
    );
    expect(rows).toHaveLength(250);
    // row i is model 1's when i is even; the position is row ROWS / 4, model 1's: the page starts two rows on
    expect(rows[0].id).toBe(ROWS / 4 + 2);
    expect(rows[249].id).toBe(ROWS / 4 + 2 + 2 * 249);
    // the open cases name rows 1 to OPEN_CASES; the page lies past them
    expect(rows.filter((r) => r.kept)).toEqual([]);
    const first = await new ArchiveRepository(ds).purgeCandidates(1, new Date(cutoff), null, 250);
    expect(first.every((r) => r.kept)).toBe(true);
  });

  it('with statistics: the same', async () => {
    await ds.query('ANALYZE "EntityAnalysisModelArchive"');
    await ds.query('ANALYZE "Case"');
    await expectAllProbes();
  });
});
