import { MigrationInterface, QueryRunner, Table, TableColumn } from 'typeorm';
import { SchemaWriter } from '../migration-helpers';

/** The warning tables whose stages can work on a batch (BulkCopyArchiveBuffer; case creation's stages 1 and 2). */
const TABLES = ['ArchiverWarning', 'CaseCreationWarning'] as const;

/** As in the row-versions migration: SQLite rebuilds the table it describes; the others alter it by name. */
function target(schema: SchemaWriter, table: string): Table | string {
  return schema.provider === 'sqlite' ? table : new Table({ name: table });
}

/**
 * `BatchSize` (integer, NOT NULL, 1 for every row already there): how many items the slow run handled, now
 * that a stage working on a batch raises one warning per run rather than one per item. Added with its
 * default, so a populated table takes it in one statement on PostgreSQL and SQL Server.
 */
export class WarningBatchSize1763800011000 implements MigrationInterface {
  name = 'WarningBatchSize1763800011000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const schema = new SchemaWriter(queryRunner);
    for (const table of TABLES) await queryRunner.addColumn(target(schema, table), batchSizeColumn(schema));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const schema = new SchemaWriter(queryRunner);
    for (const table of [...TABLES].reverse())
      await queryRunner.dropColumn(target(schema, table), batchSizeColumn(schema));
  }
}

function batchSizeColumn(schema: SchemaWriter): TableColumn {
  return new TableColumn(schema.column('integer', 'BatchSize', { isNullable: false, default: 1 }));
}
