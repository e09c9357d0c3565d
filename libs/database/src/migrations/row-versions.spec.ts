import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { ALL_ENTITIES } from '../../../../apps/server/src/entities';
import { createEmptyPostgresDatabase, createSqliteDirectory } from '../../../../test/support/databases';
import { dataSourceOptions } from '../data-source-options';
import { MIGRATIONS } from './index';
import { RowVersions1763800009000 } from './1763800009000-row-versions';

const BEFORE = MIGRATIONS.filter((M) => M !== RowVersions1763800009000);
const AUDIT = `"CreatedDate", "CreatedUser"`;

/** Rows written before the migration, by SQL (the entities already name the new column). */
async function populate(ds: DataSource): Promise<void> {
  const postgres = ds.options.type === 'postgres';
  const now = postgres ? new Date('2026-01-02T03:04:05.000Z') : '2026-01-02 03:04:05.000';
  const [no, yes] = postgres ? [false, true] : [0, 1];
  const p = (i: number) => (postgres ? `$${i}` : '?');
  await ds.query(
    `INSERT INTO "TenantRegistry" ("Guid", "Name", "Landlord", ${AUDIT}) VALUES (${p(1)}, 'T', ${p(2)}, ${p(3)}, 'm')`,
    ['11111111-1111-4111-8111-111111111111', no, now],
  );
  await ds.query(
    `INSERT INTO "RoleRegistry" ("Guid", "TenantRegistryId", "Name", ${AUDIT}) VALUES (${p(1)}, 1, 'R', ${p(2)}, 'm')`,
    ['22222222-2222-4222-8222-222222222222', now],
  );
  await ds.query(
    `INSERT INTO "UserRegistry" ("Guid", "TenantRegistryId", "RoleRegistryId", "Name", "NormalizedName",
       "FailedPasswordCount", "PasswordLocked", "Active", "WirePasswordHash", ${AUDIT})
     VALUES (${p(1)}, 1, 1, 'U', 'u', 0, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, 'm')`,
    ['33333333-3333-4333-8333-333333333333', no, yes, no, now],
  );
}

/**
 * The row-version migration on tables that already hold rows (an upgrade): every existing row gets version 1,
 * and TypeORM's updates move it on from there.
 */
describe.each(['sqlite', 'postgres'] as const)('the row-version migration on a populated %s', (provider) => {
  it('gives every existing row Version 1, which each update then raises by one', async () => {
    const connectionString = provider === 'postgres' ? await createEmptyPostgresDatabase() : undefined;
    const options = { provider, connectionString, dataDirectory: createSqliteDirectory() };
    const before = new DataSource(dataSourceOptions(options, ALL_ENTITIES, BEFORE));
    await before.initialize();
    try {
      await before.runMigrations({ transaction: 'each' });
      await populate(before);
    } finally {
      await before.destroy();
    }
    const ds = new DataSource(dataSourceOptions(options, ALL_ENTITIES, MIGRATIONS));
    await ds.initialize();
    try {
      expect((await ds.runMigrations({ transaction: 'each' })).map((m) => m.name)).toEqual([
        'RowVersions1763800009000',
      ]);
      for (const table of ['TenantRegistry', 'RoleRegistry', 'UserRegistry'])
        expect(await ds.query<unknown[]>(`SELECT "Version" FROM "${table}"`)).toEqual([{ Version: 1 }]);
      // The rows survived the change whole (SQLite rebuilds the table).
      expect(await ds.query(`SELECT "Name", "NormalizedName" FROM "UserRegistry"`)).toEqual([
        { Name: 'U', NormalizedName: 'u' },
      ]);
      const users = ds.getRepository('UserRegistry');
      await users.update({ Id: 1 }, { Email: 'u@example.com' });
      await users.update({ Id: 1 }, { Active: false });
      expect(await users.findOneByOrFail({ Id: 1 })).toMatchObject({ Version: 3, Active: false });
      // A new row starts at 1.
      await ds.query(
        `INSERT INTO "TenantRegistry" ("Guid", "Name", "Landlord", ${AUDIT}) VALUES ('44444444-4444-4444-8444-444444444444', 'T2', ${provider === 'postgres' ? 'false' : '0'}, '2026-01-02T03:04:05.000Z', 'm')`,
      );
      expect(await ds.query(`SELECT "Version" FROM "TenantRegistry" WHERE "Name" = 'T2'`)).toEqual([
        { Version: 1 },
      ]);
    } finally {
      await ds.destroy();
    }
  });
});
