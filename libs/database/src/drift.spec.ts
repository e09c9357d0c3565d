import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { ALL_ENTITIES } from '../../../apps/server/src/entities';
import {
  createEmptyPostgresDatabase,
  createSqlServerDatabase,
  createSqliteDirectory,
  type TestProvider,
} from '../../../test/support/databases';
import { dataSourceOptions } from './data-source-options';
import { MIGRATIONS } from './migrations';

/**
 * The ONE migration set must produce exactly the schema the entities describe. TypeORM's schema builder
 * lists what it would change; after the migrations it must list nothing.
 */
describe('migrations match the entities (drift)', () => {
  const run = async (provider: TestProvider, connectionString?: string) => {
    const ds = new DataSource(
      dataSourceOptions(
        { provider, connectionString, dataDirectory: createSqliteDirectory() },
        ALL_ENTITIES,
        MIGRATIONS,
      ),
    );
    await ds.initialize();
    try {
      const applied = await ds.runMigrations({ transaction: 'each' });
      expect(applied.map((m) => m.name)).toEqual(MIGRATIONS.map((M) => new M().name));
      const pending = await ds.driver.createSchemaBuilder().log();
      expect(pending.upQueries.map((q) => q.query)).toEqual([]);
      // And down() undoes everything.
      for (let i = 0; i < MIGRATIONS.length; i++) await ds.undoLastMigration({ transaction: 'each' });
      const qr = ds.createQueryRunner();
      const left: string[] = [];
      for (const m of ds.entityMetadatas) if (await qr.hasTable(m.tableName)) left.push(m.tableName);
      await qr.release();
      expect(left).toEqual([]);
    } finally {
      await ds.destroy();
    }
  };

  it('on SQLite', () => run('sqlite'));
  it('on PostgreSQL', async () => run('postgres', await createEmptyPostgresDatabase()));
  (process.env.MSSQL_URL ? it : it.skip)(
    'on SQL Server (only when MSSQL_URL is set; none runs on this machine)',
    async () => run('mssql', await createSqlServerDatabase()),
  );
});
