import { Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { PortableColumn, VersionedRecord } from '@app/database';

@Entity('TenantRegistry')
export class TenantRegistry extends VersionedRecord {
  @PrimaryGeneratedColumn('increment', {
    name: 'Id',
    type: 'integer',
    primaryKeyConstraintName: 'PK_TenantRegistry',
  })
  Id!: number;

  @Index('IX_TenantRegistry_Guid', { unique: true })
  @PortableColumn('string', { name: 'Guid', length: 36 })
  Guid!: string;

  @PortableColumn('string', { name: 'Name', length: 256 })
  Name!: string;

  /** The landlord tenant sees every tenant's rows and the telemetry grids. Exactly one exists. */
  @PortableColumn('boolean', { name: 'Landlord' })
  Landlord!: boolean;
}
