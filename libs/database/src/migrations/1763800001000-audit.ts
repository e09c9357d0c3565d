import { MigrationInterface, QueryRunner } from 'typeorm';
import { SchemaWriter } from '../migration-helpers';

/** UserLogin and UserLogout: permanent audit records (never purged), no foreign keys so nothing blocks them. */
export class Audit1763800001000 implements MigrationInterface {
  name = 'Audit1763800001000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = new SchemaWriter(queryRunner);
    await s.createTable(
      'UserLogin',
      [
        s.id('UserLogin'),
        s.column('string', 'CreatedUser', { length: '256' }),
        s.column('integer', 'TenantRegistryId', { isNullable: true }),
        s.column('string', 'RemoteIp', { length: '64', isNullable: true }),
        s.column('string', 'LocalIp', { length: '64', isNullable: true }),
        s.column('string', 'UserAgent', { length: '512', isNullable: true }),
        s.column('integer', 'AuthenticationTypeId'),
        s.column('boolean', 'Failed'),
        s.column('integer', 'FailureTypeId', { isNullable: true }),
        s.column('string', 'FailureMessage', { length: '1024', isNullable: true }),
        s.column('timestamp', 'CreatedDate'),
      ],
      [
        { name: 'IX_UserLogin_TenantRegistryId', columns: ['TenantRegistryId'] },
        { name: 'IX_UserLogin_CreatedDate', columns: ['CreatedDate'] },
      ],
    );
    await s.createTable(
      'UserLogout',
      [
        s.id('UserLogout'),
        s.column('string', 'UserName', { length: '256', isNullable: true }),
        s.column('integer', 'TenantRegistryId', { isNullable: true }),
        s.column('timestamp', 'CreatedDate'),
        s.column('integer', 'ReasonId'),
        s.column('integer', 'OutcomeId'),
        s.column('string', 'RemoteIp', { length: '64', isNullable: true }),
        s.column('string', 'LocalIp', { length: '64', isNullable: true }),
        s.column('string', 'UserAgent', { length: '512', isNullable: true }),
        s.column('timestamp', 'SessionStartedDate', { isNullable: true }),
        s.column('string', 'RevokedByUser', { length: '256', isNullable: true }),
        s.column('string', 'Message', { length: '1024', isNullable: true }),
      ],
      [
        { name: 'IX_UserLogout_TenantRegistryId', columns: ['TenantRegistryId'] },
        { name: 'IX_UserLogout_CreatedDate', columns: ['CreatedDate'] },
      ],
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const t of ['UserLogout', 'UserLogin']) await queryRunner.dropTable(t);
  }
}
