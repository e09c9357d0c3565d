import { MigrationInterface, QueryRunner } from 'typeorm';
import { providerOf } from '../portable-columns';

/** The permanent audit tables: never purged, so their ids must not run out at 2^31. */
const TABLES = ['UserLogin', 'UserLogout'] as const;

/**
 * UserLogin and UserLogout ids become 64-bit on every dialect: on SQLite an
 * INTEGER PRIMARY KEY already is; PostgreSQL widens the column and its sequence; SQL Server widens the
 * identity column, which it allows only without its primary key constraint (dropped and made again). Written
 * per dialect, as it changes an existing column of an existing table.
 */
export class Audit64BitIds1763800007000 implements MigrationInterface {
  name = 'Audit64BitIds1763800007000';

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
