import { Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { PortableColumn, VersionedRecord } from '@app/database';
import { TenantRegistry } from './tenant-registry.entity';

@Entity('RoleRegistry')
export class RoleRegistry extends VersionedRecord {
  @PrimaryGeneratedColumn('increment', {
    name: 'Id',
    type: 'integer',
    primaryKeyConstraintName: 'PK_RoleRegistry',
  })
  Id!: number;

  @Index('IX_RoleRegistry_Guid', { unique: true })
  @PortableColumn('string', { name: 'Guid', length: 36 })
  Guid!: string;

  @Index('IX_RoleRegistry_TenantRegistryId')
  @PortableColumn('integer', { name: 'TenantRegistryId' })
  TenantRegistryId!: number;

  @ManyToOne(() => TenantRegistry, { nullable: false })
  @JoinColumn({ name: 'TenantRegistryId', foreignKeyConstraintName: 'FK_RoleRegistry_TenantRegistry' })
  Tenant?: TenantRegistry;

  @PortableColumn('string', { name: 'Name', length: 256 })
  Name!: string;
}
