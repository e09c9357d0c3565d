/* `npm run migrate`: runs the migration set against the configured database and exits. */
import 'reflect-metadata';
import { loadSettings, SettingError } from '@app/config';
import { databaseTarget, runMigrations } from './database.module';
import { restrictProcessUmask } from './sqlite-files';

async function main(): Promise<void> {
  const settings = loadSettings(process.env);
  if (settings.DatabaseProvider === 'sqlite') restrictProcessUmask();
  const ran = await runMigrations(databaseTarget(settings, true));
  console.log(ran.length ? `Applied ${ran.join(', ')}` : 'Database is up to date');
}

main().catch((err: unknown) => {
  console.error(err instanceof SettingError ? err.message : `Migration failed: ${(err as Error).message}`);
  process.exit(1);
});
