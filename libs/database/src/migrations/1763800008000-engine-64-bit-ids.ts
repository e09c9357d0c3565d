import { MigrationInterface, QueryRunner } from 'typeorm';
import { providerOf } from '../portable-columns';

/** The engine tables that only grow and are never trimmed: their ids must not run out at 2^31. */
const TABLES = ['EntityAnalysisModelArchive', 'Case'] as const;

/**
 * EntityAnalysisModelArchive and Case ids become 64-bit on every dialect (at 400 invocations a second
 * the archive passes 2^31 rows in about 62 days, after which every insert fails). As Audit64BitIds: SQLite's
 * INTEGER PRIMARY KEY already is 64-bit; PostgreSQL widens the column (a rewrite of the populated table
 * under its lock) and its sequence; SQL Server widens the identity column, which it allows only without its
 * primary key constraint (dropped and made again, in the migration's transaction). Written per dialect, as it
 * changes an existing column of an existing table.
 */
export class Engine64BitIds1763800008000 implements MigrationInterface {
  name = 'Engine64BitIds1763800008000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await this.widen(queryRunner, 'bigint');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await this.widen(queryRunner, 'integer');
  }

  private async widen(queryRunner: QueryRunner, type: 'bigint' | 'integer'): Promise<void> {
    const provider = providerOf(queryRunner.connection.options.type);
    for (const table of TABLES) {
      if (provider === 'postgres') {
        await queryRunner.query(`ALTER TABLE "${table}" ALTER COLUMN "Id" TYPE ${type}`);
        await queryRunner.query(`ALTER SEQUENCE "${table}_Id_seq" AS ${type}`);
      } else if (provider === 'mssql') {
        await queryRunner.query(`ALTER TABLE [${table}] DROP CONSTRAINT [PK_${table}]`);
        await queryRunner.query(
          `ALTER TABLE [${table}] ALTER COLUMN [Id] ${type === 'bigint' ? 'bigint' : 'int'} NOT NULL`,
        );
        await queryRunner.query(`ALTER TABLE [${table}] ADD CONSTRAINT [PK_${table}] PRIMARY KEY ([Id])`);
      }
    }
  }
}
