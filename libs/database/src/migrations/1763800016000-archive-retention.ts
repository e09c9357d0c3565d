import { MigrationInterface, QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';
import { SchemaWriter } from '../migration-helpers';

/**
 * As in the row-versions migration: SQLite rebuilds the table it describes; the others alter it by name (which
 * also lets the offline SQL Server check record the statements).
 */
function target(schema: SchemaWriter, table: string): Table | string {
  return schema.provider === 'sqlite' ? table : new Table({ name: table });
}

/**
 * The archive's retention: a Model may set its own (`ArchiveRetentionDays`, null: the ArchiveRetentionInterval
 * settings; 0: kept for ever); the purge walks each model's rows oldest first (an index on model and creation
 * time, with Id for a stable order) and keeps every row an open case still names (an index of the open cases'
 * entry guids). On a populated database the two indexes are built here, once: on PostgreSQL and SQL Server
 * that holds writes to the archive and cases while it runs (docs/production.md, Upgrading).
 */
export class ArchiveRetention1763800016000 implements MigrationInterface {
  name = 'ArchiveRetention1763800016000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const schema = new SchemaWriter(queryRunner);
    await queryRunner.addColumn(target(schema, 'EntityAnalysisModel'), retentionColumn(schema));
    await queryRunner.createIndex(
      target(schema, 'EntityAnalysisModelArchive'),
      new TableIndex({
        name: 'IX_EntityAnalysisModelArchive_Model_CreatedDate',
        columnNames: ['EntityAnalysisModelId', 'CreatedDate', 'Id'],
      }),
    );
    await queryRunner.createIndex(
      target(schema, 'Case'),
      new TableIndex({
        name: 'IX_Case_Open_EntryGuid',
        columnNames: ['EntityAnalysisModelInstanceEntryGuid'],
        where: '"ClosedDate" IS NULL',
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const schema = new SchemaWriter(queryRunner);
    await queryRunner.dropIndex('Case', 'IX_Case_Open_EntryGuid');
    await queryRunner.dropIndex(
      'EntityAnalysisModelArchive',
      'IX_EntityAnalysisModelArchive_Model_CreatedDate',
    );
    await queryRunner.dropColumn(target(schema, 'EntityAnalysisModel'), retentionColumn(schema));
  }
}

function retentionColumn(schema: SchemaWriter): TableColumn {
  return new TableColumn(schema.column('integer', 'ArchiveRetentionDays', { isNullable: true }));
}
