import { MigrationInterface, QueryRunner, Table, TableColumn } from 'typeorm';
import { SchemaWriter } from '../migration-helpers';

/** As in the row-versions migration: SQLite rebuilds the table it describes; the others alter it by name. */
function target(schema: SchemaWriter): Table | string {
  return schema.provider === 'sqlite' ? 'UserRegistry' : new Table({ name: 'UserRegistry' });
}

function columns(schema: SchemaWriter): TableColumn[] {
  return [
    new TableColumn(schema.column('timestamp', 'PasswordLockedUntil', { isNullable: true })),
    new TableColumn(schema.column('integer', 'PasswordLockCount', { isNullable: false, default: 0 })),
  ];
}

/**
 * The automatic password lock lifts by itself: `PasswordLockedUntil` (when; null for the locks already there,
 * which stay until an administrator's Unlock, as they were set) and `PasswordLockCount` (consecutive locks,
 * each twice as long; 0 for every row already there). Added with their defaults, so a populated table takes
 * them in one statement each on PostgreSQL and SQL Server.
 */
export class PasswordLockExpiry1763800014000 implements MigrationInterface {
  name = 'PasswordLockExpiry1763800014000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const schema = new SchemaWriter(queryRunner);
    await queryRunner.addColumns(target(schema), columns(schema));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const schema = new SchemaWriter(queryRunner);
    await queryRunner.dropColumns(target(schema), columns(schema).reverse());
  }
}
