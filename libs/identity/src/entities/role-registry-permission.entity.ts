import { Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { PortableColumn } from '@app/database';
import { RoleRegistry } from './role-registry.entity';

/** One permission (see Permission) held by a role. */
@Entity('RoleRegistryPermission')
@Index('IX_RoleRegistryPermission_Role_Permission', ['RoleRegistryId', 'PermissionId'], { unique: true })
export class RoleRegistryPermission {
  @PrimaryGeneratedColumn('increment', {
    name: 'Id',
    type: 'integer',
    primaryKeyConstraintName: 'PK_RoleRegistryPermission',
  })
  Id!: number;

  @PortableColumn('integer', { name: 'RoleRegistryId' })
  RoleRegistryId!: number;

  @ManyToOne(() => RoleRegistry, { nullable: false })
  @JoinColumn({ name: 'RoleRegistryId', foreignKeyConstraintName: 'FK_RoleRegistryPermission_RoleRegistry' })
  Role?: RoleRegistry;

  @PortableColumn('integer', { name: 'PermissionId' })
  PermissionId!: number;
}
