import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { ALL_ENTITIES } from '../../../apps/server/src/entities';
import {
  createEmptyPostgresDatabase,
  createSqlServerDatabase,
  createSqliteDirectory,
  TEST_PROVIDERS,
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

  /** A new empty database of each provider (SQLite's is the data directory run() makes). */
  const emptyDatabase: Record<TestProvider, () => Promise<string | undefined>> = {
    sqlite: () => Promise.resolve(undefined),
    postgres: createEmptyPostgresDatabase,
    mssql: createSqlServerDatabase,
  };
  // SQL Server among them when MSSQL_URL names a server (none runs on this project's machines)
  it.each(TEST_PROVIDERS)('on %s', async (provider) => run(provider, await emptyDatabase[provider]()));
});
