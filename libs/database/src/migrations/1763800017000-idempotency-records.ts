import { MigrationInterface, QueryRunner } from 'typeorm';
import { SchemaWriter } from '../migration-helpers';

/**
 * The database store of Idempotency-Key (used when RedisConnectionString is unset): one row per (user, route,
 * key), its id a SHA-256 (43 base64url characters, compared byte for byte), the record text, and its expiry in
 * milliseconds since the epoch; the purge walks the expiry index.
 */
export class IdempotencyRecords1763800017000 implements MigrationInterface {
  name = 'IdempotencyRecords1763800017000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const schema = new SchemaWriter(queryRunner);
    await schema.createTable(
      'IdempotencyRecord',
      [
        schema.column('binaryString', 'Id', {
          length: '43',
          isPrimary: true,
          primaryKeyConstraintName: 'PK_IdempotencyRecord',
        }),
        schema.column('text', 'Record'),
        schema.column('bigint', 'ExpiresAt'),
      ],
      [{ name: 'IX_IdempotencyRecord_ExpiresAt', columns: ['ExpiresAt'] }],
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('IdempotencyRecord');
  }
}
