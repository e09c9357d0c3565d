import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { isUniqueViolation } from '@app/problems';
import { nameSkeletonKey } from '@app/input-rules';
import { ALL_ENTITIES } from '../../../../apps/server/src/entities';
import { createEmptyPostgresDatabase, createSqliteDirectory } from '../../../../test/support/databases';
import { dataSourceOptions } from '../data-source-options';
import { MIGRATIONS } from './index';
import { UserNameSkeletons1763800015000 } from './1763800015000-user-name-skeletons';

const BEFORE = MIGRATIONS.slice(0, MIGRATIONS.indexOf(UserNameSkeletons1763800015000));

/** Users written before the migration, by SQL: two live look-alikes, a deleted one, and another name. */
async function populate(ds: DataSource): Promise<void> {
  const postgres = ds.options.type === 'postgres';
  const now = postgres ? new Date('2026-01-02T03:04:05.000Z') : '2026-01-02 03:04:05.000';
  const [no, yes] = postgres ? [false, true] : [0, 1];
  const p = (i: number) => (postgres ? `$${i}` : '?');
  const audit = `"CreatedDate", "CreatedUser"`;
  await ds.query(
    `INSERT INTO "TenantRegistry" ("Guid", "Name", "Landlord", ${audit}) VALUES (${p(1)}, 'T', ${p(2)}, ${p(3)}, 'm')`,
    ['11111111-1111-4111-8111-111111111111', no, now],
  );
  await ds.query(
    `INSERT INTO "RoleRegistry" ("Guid", "TenantRegistryId", "Name", ${audit}) VALUES (${p(1)}, 1, 'R', ${p(2)}, 'm')`,
    ['22222222-2222-4222-8222-222222222222', now],
  );
  const users: [string, boolean][] = [
    ['Administrator', false],
    ['Adm\u0131nistrator', false],
    ['ADMINISTRAT\u041eR', true],
    ['operator', false],
  ];
  for (const [i, [name, deleted]] of users.entries())
    await ds.query(
      `INSERT INTO "UserRegistry" ("Guid", "TenantRegistryId", "RoleRegistryId", "Name", "NormalizedName",
         "FailedPasswordCount", "PasswordLocked", "Active", "WirePasswordHash", "DeletedDate", ${audit})
       VALUES (${p(1)}, 1, 1, ${p(2)}, ${p(3)}, 0, ${p(4)}, ${p(5)}, ${p(6)}, ${p(7)}, ${p(8)}, 'm')`,
      [
        `33333333-3333-4333-8333-33333333333${i}`,
        name,
        name.toLowerCase(),
        no,
        yes,
        no,
        deleted ? now : null,
        now,
      ],
    );
}

/**
 * The skeleton migration on a database that already holds users (an upgrade), look-alikes among them: every user
 * gets a key, the first of two live look-alikes the skeleton's, the later one a key of its own, so the unique index
 * is built and nobody's name changes; from then on the index refuses a new look-alike.
 */
describe.each(['sqlite', 'postgres'] as const)(
  'the user-name skeleton migration on a populated %s',
  (provider) => {
    it('fills NameSkeleton, keeps existing look-alikes apart, then refuses a new one', async () => {
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
        const ran = (await ds.runMigrations({ transaction: 'each' })).map((m) => m.name);
        expect(ran[0]).toBe('UserNameSkeletons1763800015000');
        const rows = await ds.query<{ Name: string; NameSkeleton: string }[]>(
          `SELECT "Name", "NameSkeleton" FROM "UserRegistry" ORDER BY "Id"`,
        );
        const admin = nameSkeletonKey('Administrator');
        expect(rows.map((r) => [r.Name, r.NameSkeleton === admin])).toEqual([
          ['Administrator', true],
          ['Adm\u0131nistrator', false],
          ['ADMINISTRAT\u041eR', true], // deleted: outside the index
          ['operator', false],
        ]);
        expect(rows[3].NameSkeleton).toBe(nameSkeletonKey('operator'));
        expect(rows[1].NameSkeleton).toMatch(/^[0-9a-f]{64}$/);
        const users = ds.getRepository('UserRegistry');
        const copy = { ...(await users.findOneByOrFail({ Id: 4 })) } as Record<string, unknown>;
        delete copy.Id;
        const refused: unknown = await users
          .insert({
            ...copy,
            Guid: '44444444-4444-4444-8444-444444444444',
            Name: '\u043eperator',
            NormalizedName: '\u043eperator',
            NameSkeleton: nameSkeletonKey('\u043eperator'),
          })
          .then(
            () => null,
            (err: unknown) => err,
          );
        expect(isUniqueViolation(refused)).toBe(true);
      } finally {
        await ds.destroy();
      }
    });
  },
);
