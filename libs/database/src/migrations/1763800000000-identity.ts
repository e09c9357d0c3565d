import { MigrationInterface, QueryRunner } from 'typeorm';
import { SchemaWriter } from '../migration-helpers';

export class Identity1763800000000 implements MigrationInterface {
  name = 'Identity1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = new SchemaWriter(queryRunner);
    await s.createTable(
      'TenantRegistry',
      [
        s.id('TenantRegistry'),
        s.column('string', 'Guid', { length: '36' }),
        s.column('string', 'Name', { length: '256' }),
        s.column('boolean', 'Landlord'),
        ...s.auditColumns(),
      ],
      [{ name: 'IX_TenantRegistry_Guid', columns: ['Guid'], unique: true }],
    );
    await s.createTable(
      'RoleRegistry',
      [
        s.id('RoleRegistry'),
        s.column('string', 'Guid', { length: '36' }),
        s.column('integer', 'TenantRegistryId'),
        s.column('string', 'Name', { length: '256' }),
        ...s.auditColumns(),
      ],
      [
        { name: 'IX_RoleRegistry_Guid', columns: ['Guid'], unique: true },
        { name: 'IX_RoleRegistry_TenantRegistryId', columns: ['TenantRegistryId'] },
      ],
      [{ name: 'FK_RoleRegistry_TenantRegistry', column: 'TenantRegistryId', references: 'TenantRegistry' }],
    );
    await s.createTable(
      'RoleRegistryPermission',
      [
        s.id('RoleRegistryPermission'),
        s.column('integer', 'RoleRegistryId'),
        s.column('integer', 'PermissionId'),
      ],
      [
        {
          name: 'IX_RoleRegistryPermission_Role_Permission',
          columns: ['RoleRegistryId', 'PermissionId'],
          unique: true,
        },
      ],
      [
        {
          name: 'FK_RoleRegistryPermission_RoleRegistry',
          column: 'RoleRegistryId',
          references: 'RoleRegistry',
        },
      ],
    );
    await s.createTable(
      'UserRegistry',
      [
        s.id('UserRegistry'),
        s.column('string', 'Guid', { length: '36' }),
        s.column('integer', 'TenantRegistryId'),
        s.column('integer', 'RoleRegistryId'),
        s.column('string', 'Name', { length: '256' }),
        s.column('string', 'NormalizedName', { length: '256' }),
        s.column('string', 'Email', { length: '320', isNullable: true }),
        s.column('string', 'PasswordHash', { length: '512', isNullable: true }),
        s.column('timestamp', 'PasswordExpiryDate', { isNullable: true }),
        s.column('timestamp', 'PasswordCreatedDate', { isNullable: true }),
        s.column('integer', 'FailedPasswordCount'),
        s.column('boolean', 'PasswordLocked'),
        s.column('timestamp', 'PasswordLockedDate', { isNullable: true }),
        s.column('boolean', 'Active'),
        s.column('timestamp', 'LastLoginDate', { isNullable: true }),
        s.column('boolean', 'WirePasswordHash'),
        s.column('timestamp', 'TokensValidFrom', { isNullable: true }),
        ...s.auditColumns(),
      ],
      [
        { name: 'IX_UserRegistry_Guid', columns: ['Guid'], unique: true },
        { name: 'IX_UserRegistry_TenantRegistryId', columns: ['TenantRegistryId'] },
        { name: 'IX_UserRegistry_RoleRegistryId', columns: ['RoleRegistryId'] },
        {
          name: 'IX_UserRegistry_NormalizedName',
          columns: ['NormalizedName'],
          unique: true,
          where: '"DeletedDate" IS NULL',
        },
      ],
      [
        { name: 'FK_UserRegistry_TenantRegistry', column: 'TenantRegistryId', references: 'TenantRegistry' },
        { name: 'FK_UserRegistry_RoleRegistry', column: 'RoleRegistryId', references: 'RoleRegistry' },
      ],
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const t of ['UserRegistry', 'RoleRegistryPermission', 'RoleRegistry', 'TenantRegistry']) {
      await queryRunner.dropTable(t);
    }
  }
}
