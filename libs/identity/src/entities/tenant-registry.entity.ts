import { Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { PortableColumn } from '@app/database';

@Entity('TenantRegistry')
export class TenantRegistry {
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

  @PortableColumn('timestamp', { name: 'CreatedDate' })
  CreatedDate!: Date;

  @PortableColumn('string', { name: 'CreatedUser', length: 256 })
  CreatedUser!: string;

  @PortableColumn('timestamp', { name: 'UpdatedDate', nullable: true })
  UpdatedDate!: Date | null;

  @PortableColumn('string', { name: 'UpdatedUser', length: 256, nullable: true })
  UpdatedUser!: string | null;

  @PortableColumn('timestamp', { name: 'DeletedDate', nullable: true })
  DeletedDate!: Date | null;

  @PortableColumn('string', { name: 'DeletedUser', length: 256, nullable: true })
  DeletedUser!: string | null;
}
