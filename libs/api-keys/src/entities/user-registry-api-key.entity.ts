import { Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { PortableColumn } from '@app/database';
import { UserRegistry } from '@app/identity';

/** An API key of a user. The key itself is never stored: only SHA-256(key) and its first 8 characters. */
@Entity('UserRegistryApiKey')
export class UserRegistryApiKey {
  @PrimaryGeneratedColumn('increment', {
    name: 'Id',
    type: 'integer',
    primaryKeyConstraintName: 'PK_UserRegistryApiKey',
  })
  Id!: number;

  @Index('IX_UserRegistryApiKey_Guid', { unique: true })
  @PortableColumn('string', { name: 'Guid', length: 36 })
  Guid!: string;

  @Index('IX_UserRegistryApiKey_UserRegistryId')
  @PortableColumn('integer', { name: 'UserRegistryId' })
  UserRegistryId!: number;

  @ManyToOne(() => UserRegistry, { nullable: false })
  @JoinColumn({ name: 'UserRegistryId', foreignKeyConstraintName: 'FK_UserRegistryApiKey_UserRegistry' })
  User?: UserRegistry;

  @PortableColumn('string', { name: 'Name', length: 256 })
  Name!: string;

  @PortableColumn('string', { name: 'Description', length: 1024, nullable: true })
  Description!: string | null;

  /** Hex SHA-256 of the whole key. */
  @Index('IX_UserRegistryApiKey_KeyHash', { unique: true })
  @PortableColumn('string', { name: 'KeyHash', length: 64 })
  KeyHash!: string;

  @PortableColumn('string', { name: 'DisplayIdentifier', length: 8 })
  DisplayIdentifier!: string;

  @PortableColumn('timestamp', { name: 'CreatedDate' })
  CreatedDate!: Date;

  @PortableColumn('string', { name: 'CreatedUser', length: 256 })
  CreatedUser!: string;

  @PortableColumn('timestamp', { name: 'RevokedDate', nullable: true })
  RevokedDate!: Date | null;

  @PortableColumn('string', { name: 'RevokedUser', length: 256, nullable: true })
  RevokedUser!: string | null;
}
