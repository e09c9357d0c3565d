import { MigrationInterface, QueryRunner, Table, TableColumn } from 'typeorm';
import { SchemaWriter } from '../migration-helpers';

/** The records with a one-resource GET and writes: their row version is their ETag (VersionedRecord). */
const TABLES = [
  'TenantRegistry',
  'RoleRegistry',
  'UserRegistry',
  'EntityAnalysisModel',
  'CaseWorkflow',
  'CaseWorkflowStatus',
] as const;

/**
 * What TypeORM's ALTER needs of a table: SQLite rebuilds the table (it has no ADD COLUMN … DEFAULT for every
 * case TypeORM covers), so it takes the table as the database describes it; PostgreSQL and SQL Server add and
 * drop a column by the table's name alone, which also lets the offline SQL Server check record the statements.
 */
function target(schema: SchemaWriter, table: string): Table | string {
  return schema.provider === 'sqlite' ? table : new Table({ name: table });
}

/**
 * A `Version` column (integer, NOT NULL, 1 for every row already there and every new one) on each versioned
 * record (ETag and If-Match). Added with its default, so a populated table takes it in one
 * statement on PostgreSQL and SQL Server (the default fills the existing rows); SQLite's TypeORM driver
 * rebuilds the table with its rows.
 */
export class RowVersions1763800009000 implements MigrationInterface {
  name = 'RowVersions1763800009000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const schema = new SchemaWriter(queryRunner);
    for (const table of TABLES) await queryRunner.addColumn(target(schema, table), versionColumn(schema));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const schema = new SchemaWriter(queryRunner);
    for (const table of [...TABLES].reverse())
      await queryRunner.dropColumn(target(schema, table), versionColumn(schema));
  }
}

function versionColumn(schema: SchemaWriter): TableColumn {
  return new TableColumn(schema.column('integer', 'Version', { isNullable: false, default: 1 }));
}
