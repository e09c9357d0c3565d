import { MigrationInterface, QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';
import { SchemaWriter } from '../migration-helpers';
import { nameSkeletonKey } from '@app/input-rules';

/** As in the row-versions migration: SQLite rebuilds the table it describes; the others alter it by name. */
function target(schema: SchemaWriter): Table | string {
  return schema.provider === 'sqlite' ? 'UserRegistry' : new Table({ name: 'UserRegistry' });
}

const INDEX = new TableIndex({
  name: 'IX_UserRegistry_NameSkeleton',
  columnNames: ['NameSkeleton'],
  isUnique: true,
  where: '"DeletedDate" IS NULL',
});

/**
 * `NameSkeleton`: SHA-256 (hex) of the user name's UTS #39 skeleton, case-folded (libs/common name-skeleton.ts), unique
 * among users not deleted, so no two accounts have names a reader cannot tell apart, however many are created at
 * once. Filled for the users already there; of users already looking alike, the first (lowest Id) keeps the
 * skeleton and each later one gets a key of its own (its skeleton with its Id), so the index can be built and their
 * names stay as they are. Hex, lower case: the same under any collation (SQL Server's default included).
 */
export class UserNameSkeletons1763800015000 implements MigrationInterface {
  name = 'UserNameSkeletons1763800015000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const schema = new SchemaWriter(queryRunner);
    await queryRunner.addColumn(target(schema), column(schema));
    const escape = (name: string) => queryRunner.connection.driver.escape(name);
    const users = await queryRunner.manager
      .createQueryBuilder()
      .select([escape('Id'), escape('Name'), escape('DeletedDate')].join(', '))
      .from('UserRegistry', 'u')
      .orderBy(escape('Id'))
      .getRawMany<{ Id: number; Name: string; DeletedDate: unknown }>();
    const taken = new Set<string>();
    for (const user of users) {
      let key = nameSkeletonKey(user.Name);
      const live = user.DeletedDate === null || user.DeletedDate === undefined;
      if (live && taken.has(key)) key = nameSkeletonKey(`${user.Name}\u0000${user.Id}`);
      if (live) taken.add(key);
      await queryRunner.manager
        .createQueryBuilder()
        .update('UserRegistry')
        .set({ NameSkeleton: key })
        .where(`${escape('Id')} = :id`, { id: user.Id })
        .execute();
    }
    await queryRunner.createIndex(target(schema), INDEX);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const schema = new SchemaWriter(queryRunner);
    await queryRunner.dropIndex(target(schema), INDEX);
    await queryRunner.dropColumn(target(schema), column(schema));
  }
}

function column(schema: SchemaWriter): TableColumn {
  return new TableColumn(schema.column('string', 'NameSkeleton', { length: '64', isNullable: true }));
}
