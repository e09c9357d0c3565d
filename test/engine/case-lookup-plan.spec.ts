import { DataSource } from 'typeorm';
import { dataSourceOptions, MIGRATIONS } from '@app/database';
import { ALL_ENTITIES } from '../../apps/server/src/entities';
import {
  CaseRepository,
  pgOpenCaseLookup,
  type CaseIdentity,
} from '../../libs/engine/src/case-creation/case.repository';
import { createPostgresDatabase } from '../support/databases';
import { explain, type PlanNode } from '../support/postgres-plan';

const OPEN = 20_000;
const identity = (value: string): CaseIdentity => ({
  CaseWorkflowId: 1,
  CaseKey: 'AccountId',
  CaseKeyValue: value,
});

/**
 * Case creation's open-case look-up on PostgreSQL is one probe of the open-case index per identity whatever the
 * table's statistics: with none (a new table, autovacuum off) the earlier statement was planned as a hash join
 * over every open case, each batch's cost growing with the table.
 */
describe('the open-case look-up on postgres', () => {
  let ds: DataSource;
  beforeAll(async () => {
    ds = new DataSource(
      dataSourceOptions(
        { provider: 'postgres', connectionString: await createPostgresDatabase(), dataDirectory: '' },
        ALL_ENTITIES,
        MIGRATIONS,
      ),
    );
    await ds.initialize();
    // no statistics while the test runs: the cluster's autovacuum must not ANALYZE the table meanwhile
    await ds.query(`ALTER TABLE "Case" SET (autovacuum_enabled = false)`);
    await ds.query(
      `INSERT INTO "Case" ("Guid", "CaseWorkflowId", "CaseKey", "CaseKeyValue", "CaseWorkflowStatusId", "Priority",
         "EntityAnalysisModelInstanceEntryGuid", "CreatedDate")
       SELECT md5(i::text)::uuid::text, 1, 'AccountId', 'OPEN-' || i, 1, 1 + i % 7, md5('e' || i)::uuid::text, now()
       FROM generate_series(1, $1::int) AS i`,
      [OPEN],
    );
  });
  afterAll(() => ds?.destroy());

  /** A batch's identities: every tenth one has an open case, the rest do not. */
  const batch = Array.from({ length: 200 }, (_, i) =>
    identity(i % 10 === 0 ? `OPEN-${1 + i * 37}` : `NEW-${i}`),
  );

  const planned = async (): Promise<PlanNode[]> => {
    const { sql, params } = pgOpenCaseLookup(batch);
    return (await explain(ds, sql, params)).filter((n) => n['Relation Name'] === 'Case');
  };

  const expectIndexProbes = (scans: PlanNode[]) => {
    expect(scans.length).toBeGreaterThan(0);
    for (const scan of scans)
      expect(scan).toMatchObject({
        'Node Type': 'Index Scan',
        'Index Name': 'IX_Case_Open_Workflow_Key_Value',
      });
  };

  it('without statistics: an index probe per identity, never a scan of the open cases', async () => {
    const [{ columns }] = await ds.query<{ columns: string }[]>(
      `SELECT count(*) AS columns FROM pg_stats WHERE tablename = 'Case'`,
    );
    expect(Number(columns)).toBe(0); // never analysed: the state the test is about
    expectIndexProbes(await planned());
  });

  it('answers each open case of the batch once, with its priority', async () => {
    const open = await new CaseRepository(ds).findOpen(batch);
    const expected = batch.filter((k) => k.CaseKeyValue.startsWith('OPEN-'));
    expect(open.map((c) => c.CaseKeyValue).sort()).toEqual(expected.map((k) => k.CaseKeyValue).sort());
    for (const c of open) {
      const i = Number(c.CaseKeyValue.slice('OPEN-'.length));
      expect(c).toMatchObject({ CaseWorkflowId: 1, CaseKey: 'AccountId', Priority: 1 + (i % 7) });
    }
  });

  it('with statistics: the same plan', async () => {
    await ds.query('ANALYZE "Case"');
    expectIndexProbes(await planned());
  });
});
