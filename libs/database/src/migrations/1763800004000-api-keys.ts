import { MigrationInterface, QueryRunner } from 'typeorm';
import { SchemaWriter } from '../migration-helpers';

export class ApiKeys1763800004000 implements MigrationInterface {
  name = 'ApiKeys1763800004000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = new SchemaWriter(queryRunner);
    await s.createTable(
      'UserRegistryApiKey',
      [
        s.id('UserRegistryApiKey'),
        s.column('string', 'Guid', { length: '36' }),
        s.column('integer', 'UserRegistryId'),
        s.column('string', 'Name', { length: '256' }),
        s.column('string', 'Description', { length: '1024', isNullable: true }),
        s.column('string', 'KeyHash', { length: '64' }),
        s.column('string', 'DisplayIdentifier', { length: '8' }),
        s.column('timestamp', 'CreatedDate'),
        s.column('string', 'CreatedUser', { length: '256' }),
        s.column('timestamp', 'RevokedDate', { isNullable: true }),
        s.column('string', 'RevokedUser', { length: '256', isNullable: true }),
      ],
      [
        { name: 'IX_UserRegistryApiKey_Guid', columns: ['Guid'], unique: true },
        { name: 'IX_UserRegistryApiKey_UserRegistryId', columns: ['UserRegistryId'] },
        { name: 'IX_UserRegistryApiKey_KeyHash', columns: ['KeyHash'], unique: true },
      ],
      [{ name: 'FK_UserRegistryApiKey_UserRegistry', column: 'UserRegistryId', references: 'UserRegistry' }],
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('UserRegistryApiKey');
  }
}
