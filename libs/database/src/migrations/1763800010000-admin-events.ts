import { MigrationInterface, QueryRunner } from 'typeorm';
import { SchemaWriter } from '../migration-helpers';

/** AdminEvent: the permanent trail of administrators' writes; 64-bit id, no foreign keys. */
export class AdminEvents1763800010000 implements MigrationInterface {
  name = 'AdminEvents1763800010000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = new SchemaWriter(queryRunner);
    await s.createTable(
      'AdminEvent',
      [
        s.identity64('AdminEvent'),
        s.column('timestamp', 'CreatedDate'),
        s.column('string', 'ActorUserGuid', { length: '36' }),
        s.column('string', 'ActorUser', { length: '256' }),
        s.column('integer', 'ActorTenantRegistryId'),
        s.column('string', 'CredentialKind', { length: '16' }),
        s.column('string', 'ApiKeyIdentifier', { length: '16', isNullable: true }),
        s.column('string', 'Action', { length: '64' }),
        s.column('string', 'TargetType', { length: '64' }),
        s.column('string', 'TargetGuid', { length: '36', isNullable: true }),
        s.column('string', 'TargetName', { length: '256', isNullable: true }),
        s.column('integer', 'TenantRegistryId', { isNullable: true }),
        s.column('text', 'Changes', { isNullable: true }),
        s.column('integer', 'OutcomeId'),
        s.column('integer', 'StatusCode'),
        s.column('string', 'Message', { length: '512', isNullable: true }),
        s.column('string', 'RemoteIp', { length: '64', isNullable: true }),
        s.column('string', 'LocalIp', { length: '64', isNullable: true }),
        s.column('string', 'UserAgent', { length: '512', isNullable: true }),
      ],
      [
        { name: 'IX_AdminEvent_CreatedDate', columns: ['CreatedDate'] },
        { name: 'IX_AdminEvent_TargetGuid', columns: ['TargetGuid'] },
        { name: 'IX_AdminEvent_TenantRegistryId', columns: ['TenantRegistryId'] },
      ],
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('AdminEvent');
  }
}
