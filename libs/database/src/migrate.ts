/* `npm run migrate`: runs the migration set against the configured database and exits. */
import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadSettings, SettingError } from '@app/config';
import { dataSourceOptions } from './data-source-options';
import { MIGRATIONS } from './migrations';
import { restrictProcessUmask } from './sqlite-files';

async function main(): Promise<void> {
  const settings = loadSettings(process.env);
  if (settings.DatabaseProvider === 'sqlite') restrictProcessUmask();
  const ds = new DataSource({
    ...dataSourceOptions(
      {
        provider: settings.DatabaseProvider,
        connectionString: settings.ConnectionString,
        dataDirectory: settings.DataDirectory,
      },
      [],
      MIGRATIONS,
    ),
    migrationsTransactionMode: 'each',
  });
  await ds.initialize();
  const ran = await ds.runMigrations();
  console.log(ran.length ? `Applied ${ran.map((m) => m.name).join(', ')}` : 'Database is up to date');
  await ds.destroy();
}

main().catch((err: unknown) => {
  console.error(err instanceof SettingError ? err.message : `Migration failed: ${(err as Error).message}`);
  process.exit(1);
});
