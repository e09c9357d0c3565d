import { DataSource } from 'typeorm';
import { Permission } from '@app/access';
import { MIGRATIONS } from '@app/database';
import { ArchiverService, CaseRecord, EntityAnalysisModelArchive, InvokeService } from '@app/engine';
import { ALL_ENTITIES } from '../../apps/server/src/entities';
import { dataSourceOptions } from '../../libs/database/src/data-source-options';
import { Engine64BitIds1763800008000 } from '../../libs/database/src/migrations/1763800008000-engine-64-bit-ids';
import { createEngineModel, transaction } from '../factories/engine.factory';
import { createUser } from '../factories/identity.factory';
import {
  createEmptyPostgresDatabase,
  createSqliteDirectory,
  SQLITE_AND_POSTGRES,
} from '../support/databases';
import { startTestApp, TestApp } from '../support/test-app';

/** Past 2^31: an id a 32-bit column cannot hold. */
const BIG = 3_000_000_000;

/** Makes the next generated Id of `table` BIG + 1. */
async function moveSequence(ds: DataSource, table: string): Promise<void> {
  if (ds.options.type === 'postgres') {
    await ds.query(`SELECT setval('"${table}_Id_seq"', ${BIG})`);
    return;
  }
  // SQLite: an AUTOINCREMENT key continues after sqlite_sequence's value for the table.
  await ds.query(`DELETE FROM sqlite_sequence WHERE name = ?`, [table]);
  await ds.query(`INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)`, [table, BIG]);
}

/**
 * EntityAnalysisModelArchive and Case ids are 64-bit on every dialect (the SQL Server
 * statements are in test/sql-server-statements/).
 */
describe.each(SQLITE_AND_POSTGRES)('engine ids beyond 2^31 on %s', (provider) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(provider, { ArchiveBulkCopyIntervalMilliseconds: '600000' });
  });
  afterAll(() => t.close());

  it('an invocation past 2^31 archives and raises its case, both read back with their 64-bit ids', async () => {
    const ds = t.app.get(DataSource);
    for (const table of ['EntityAnalysisModelArchive', 'Case']) await moveSequence(ds, table);
    const { actor } = await createUser(t.app, {
      permissions: [Permission.ReadWriteModel, Permission.ReadWriteCaseWorkflow, Permission.Invoke],
    });
    const { model } = await createEngineModel(t.app, actor, { rules: [{ condition: true, status: 0 }] });
    const answer = await t.app.get(InvokeService).invoke(actor, model.guid, transaction('ACC-BIG', 10));
    await t.app.get(ArchiverService).drain();
    const archived = await ds
      .getRepository(EntityAnalysisModelArchive)
      .findOneByOrFail({ EntityAnalysisModelInstanceEntryGuid: answer.entityAnalysisModelInstanceEntryGuid });
    expect(archived.Id).toBe(BIG + 1);
    const [raised] = await ds.getRepository(CaseRecord).findBy({ CaseKeyValue: 'ACC-BIG' });
    expect(raised.Id).toBe(BIG + 1);
    expect(await ds.getRepository(CaseRecord).findOneByOrFail({ Id: BIG + 1 })).toMatchObject({
      CaseKeyValue: 'ACC-BIG',
    });
  });
});

describe.each(SQLITE_AND_POSTGRES)('the engine 64-bit id migration on a populated %s', (provider) => {
  it('keeps the rows there and lets the next ids pass 2^31', async () => {
    const connectionString = provider === 'postgres' ? await createEmptyPostgresDatabase() : undefined;
    const options = { provider, connectionString, dataDirectory: createSqliteDirectory() };
    const before = new DataSource(
      dataSourceOptions(
        options,
        ALL_ENTITIES,
        MIGRATIONS.filter((M) => M !== Engine64BitIds1763800008000),
      ),
    );
    await before.initialize();
    const p = (i: number) => (provider === 'postgres' ? `$${i}` : '?');
    try {
      await before.runMigrations({ transaction: 'each' });
      await before.query(
        `INSERT INTO "Case" ("Guid", "CaseWorkflowId", "CaseKey", "CaseKeyValue", "CaseWorkflowStatusId",
           "Priority", "EntityAnalysisModelInstanceEntryGuid", "CreatedDate")
         VALUES ('11111111-1111-4111-8111-111111111111', 1, 'AccountId', 'ACC-OLD', 1, 5, 'e', ${p(1)})`,
        [new Date('2026-01-02T03:04:05.000Z').toISOString()],
      );
    } finally {
      await before.destroy();
    }
    const ds = new DataSource(dataSourceOptions(options, ALL_ENTITIES, MIGRATIONS));
    await ds.initialize();
    try {
      expect((await ds.runMigrations({ transaction: 'each' })).map((m) => m.name)).toEqual([
        'Engine64BitIds1763800008000',
      ]);
      const cases = ds.getRepository(CaseRecord);
      expect(await cases.findOneByOrFail({ CaseKeyValue: 'ACC-OLD' })).toMatchObject({ Id: 1, Priority: 5 });
      await moveSequence(ds, 'Case');
      const added = await cases.save(
        cases.create({
          Guid: '22222222-2222-4222-8222-222222222222',
          CaseWorkflowId: 1,
          CaseKey: 'AccountId',
          CaseKeyValue: 'ACC-NEW',
          CaseWorkflowStatusId: 1,
          Priority: 5,
          EntityAnalysisModelInstanceEntryGuid: 'e',
          CreatedDate: new Date(),
          UpdatedDate: null,
          ClosedDate: null,
        }),
      );
      expect(added.Id).toBe(BIG + 1);
      expect((await cases.findOneByOrFail({ CaseKeyValue: 'ACC-NEW' })).Id).toBe(BIG + 1);
    } finally {
      await ds.destroy();
    }
  });
});
