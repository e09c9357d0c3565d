import { MigrationInterface, QueryRunner } from 'typeorm';
import { SchemaWriter } from '../migration-helpers';

/** The ledger of capture writes, so a write whose COMMIT went unanswered is never written twice. */
export class CaptureBatch1763800005000 implements MigrationInterface {
  name = 'CaptureBatch1763800005000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = new SchemaWriter(queryRunner);
    await s.createTable(
      'CaptureBatch',
      [
        s.identity64('CaptureBatch'),
        s.column('string', 'BatchGuid', { length: '36' }),
        s.column('string', 'TableName', { length: '64' }),
        s.column('integer', 'RowCount'),
        s.column('timestamp', 'CreatedDate'),
        s.column('string', 'Instance', { length: '256' }),
      ],
      [
        { name: 'IX_CaptureBatch_BatchGuid', columns: ['BatchGuid'], unique: true },
        { name: 'IX_CaptureBatch_CreatedDate', columns: ['CreatedDate'] },
      ],
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('CaptureBatch');
  }
}
