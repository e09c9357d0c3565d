import { MigrationInterface, QueryRunner, Table, TableColumn } from 'typeorm';
import { SchemaWriter } from '../migration-helpers';

/** As in the row-versions migration: SQLite rebuilds the table it describes; the others alter it by name. */
function target(schema: SchemaWriter): Table | string {
  return schema.provider === 'sqlite' ? 'AdminEvent' : new Table({ name: 'AdminEvent' });
}

/**
 * AdminEvent rows that stand for several refusals, and the actor's tenant by name:
 * - `EventCount` (integer, NOT NULL, 1 for every row already there): how many writes the row stands for (an
 *   accepted change: 1; refusals of one actor, action and status within a minute: all of them);
 * - `LastTargetGuid`, `LastDate`: the last of those refusals' target and instant (the first's are TargetGuid and
 *   CreatedDate);
 * - `ActorTenantName`: the actor's tenant's name at that moment, as TargetName is the target's.
 * Added with their defaults, so a populated table takes them in one statement on PostgreSQL and SQL Server.
 */
export class AdminEventAggregates1763800012000 implements MigrationInterface {
  name = 'AdminEventAggregates1763800012000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const schema = new SchemaWriter(queryRunner);
    await queryRunner.addColumns(target(schema), columns(schema));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const schema = new SchemaWriter(queryRunner);
    await queryRunner.dropColumns(target(schema), columns(schema).reverse());
  }
}

function columns(schema: SchemaWriter): TableColumn[] {
  return [
    schema.column('integer', 'EventCount', { isNullable: false, default: 1 }),
    schema.column('string', 'LastTargetGuid', { length: '36', isNullable: true }),
    schema.column('timestamp', 'LastDate', { isNullable: true }),
    schema.column('string', 'ActorTenantName', { length: '256', isNullable: true }),
  ].map((c) => new TableColumn(c));
}
