import { MigrationInterface, QueryRunner } from 'typeorm';
import { providerOf } from '../portable-columns';
import { SQL_SERVER_BINARY_COLLATION } from '../sql-server';

/** The columns whose values must compare exactly, as they do on PostgreSQL and SQLite (all NOT NULL). */
const EXACT_COLUMNS = [
  { table: 'UserRegistry', column: 'NormalizedName', length: 256 },
  { table: 'Case', column: 'CaseKey', length: 128 },
  { table: 'Case', column: 'CaseKeyValue', length: 512 },
] as const;

/** The unique filtered indexes over them, as the earlier migrations created them (dropped and rebuilt). */
const INDEXES = [
  {
    table: 'UserRegistry',
    name: 'IX_UserRegistry_NormalizedName',
    columns: ['NormalizedName'],
    where: '"DeletedDate" IS NULL',
  },
  {
    table: 'Case',
    name: 'IX_Case_Open_Workflow_Key_Value',
    columns: ['CaseWorkflowId', 'CaseKey', 'CaseKeyValue'],
    where: '"ClosedDate" IS NULL',
  },
] as const;

/**
 * SQL Server only (nothing to do elsewhere): normalised user names and case keys get a binary collation.
 * Under the server's default case-insensitive collation "abc" and "ABC" (or "é" and "e" with an accent-
 * insensitive one) would be one user name or one open case, where PostgreSQL and SQLite keep them apart.
 * Written as T-SQL, since it only runs there: an index over a column must go before the column changes.
 */
export class SqlServerBinaryKeys1763800006000 implements MigrationInterface {
  name = 'SqlServerBinaryKeys1763800006000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await this.collate(queryRunner, SQL_SERVER_BINARY_COLLATION);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await this.collate(queryRunner, 'DATABASE_DEFAULT');
  }

  private async collate(queryRunner: QueryRunner, collation: string): Promise<void> {
    if (providerOf(queryRunner.connection.options.type) !== 'mssql') return;
    for (const i of INDEXES) await queryRunner.query(`DROP INDEX [${i.name}] ON [${i.table}]`);
    for (const c of EXACT_COLUMNS)
      await queryRunner.query(
        `ALTER TABLE [${c.table}] ALTER COLUMN [${c.column}] nvarchar(${c.length}) COLLATE ${collation} NOT NULL`,
      );
    for (const i of INDEXES)
      await queryRunner.query(
        `CREATE UNIQUE INDEX [${i.name}] ON [${i.table}] (${i.columns.map((c) => `[${c}]`).join(', ')}) WHERE ${i.where}`,
      );
  }
}
