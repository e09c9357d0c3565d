import { Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { PortableColumn, VersionedRecord } from '@app/database';
import { RoleRegistry } from './role-registry.entity';
import { TenantRegistry } from './tenant-registry.entity';

@Entity('UserRegistry')
@Index('IX_UserRegistry_NormalizedName', ['NormalizedName'], { unique: true, where: '"DeletedDate" IS NULL' })
@Index('IX_UserRegistry_NameSkeleton', ['NameSkeleton'], { unique: true, where: '"DeletedDate" IS NULL' })
export class UserRegistry extends VersionedRecord {
  @PrimaryGeneratedColumn('increment', {
    name: 'Id',
    type: 'integer',
    primaryKeyConstraintName: 'PK_UserRegistry',
  })
  Id!: number;

  @Index('IX_UserRegistry_Guid', { unique: true })
  @PortableColumn('string', { name: 'Guid', length: 36 })
  Guid!: string;

  @Index('IX_UserRegistry_TenantRegistryId')
  @PortableColumn('integer', { name: 'TenantRegistryId' })
  TenantRegistryId!: number;

  @ManyToOne(() => TenantRegistry, { nullable: false })
  @JoinColumn({ name: 'TenantRegistryId', foreignKeyConstraintName: 'FK_UserRegistry_TenantRegistry' })
  Tenant?: TenantRegistry;

  @Index('IX_UserRegistry_RoleRegistryId')
  @PortableColumn('integer', { name: 'RoleRegistryId' })
  RoleRegistryId!: number;

  @ManyToOne(() => RoleRegistry, { nullable: false })
  @JoinColumn({ name: 'RoleRegistryId', foreignKeyConstraintName: 'FK_UserRegistry_RoleRegistry' })
  Role?: RoleRegistry;

  /** As entered; unique case-insensitively among non-deleted users through NormalizedName. */
  @PortableColumn('string', { name: 'Name', length: 256 })
  Name!: string;

  /** Lower-cased Name (Unicode NFKC then toLowerCase), the key of sign-in look-ups. */
  @PortableColumn('binaryString', { name: 'NormalizedName', length: 256 })
  NormalizedName!: string;

  /**
   * SHA-256 (hex) of the name's UTS #39 skeleton, case-folded (nameSkeletonKey, libs/input-rules): unique among users not
   * deleted, so no two have names a reader cannot tell apart. Written with the name (names are fixed).
   */
  @PortableColumn('string', { name: 'NameSkeleton', length: 64, nullable: true })
  NameSkeleton!: string | null;

  @PortableColumn('string', { name: 'Email', length: 320, nullable: true })
  Email!: string | null;

  /** Argon2id PHC string; null when the user signs in only through OpenID Connect or Negotiate. */
  @PortableColumn('string', { name: 'PasswordHash', length: 512, nullable: true })
  PasswordHash!: string | null;

  @PortableColumn('timestamp', { name: 'PasswordExpiryDate', nullable: true })
  PasswordExpiryDate!: Date | null;

  @PortableColumn('timestamp', { name: 'PasswordCreatedDate', nullable: true })
  PasswordCreatedDate!: Date | null;

  @PortableColumn('integer', { name: 'FailedPasswordCount' })
  FailedPasswordCount!: number;

  @PortableColumn('boolean', { name: 'PasswordLocked' })
  PasswordLocked!: boolean;

  @PortableColumn('timestamp', { name: 'PasswordLockedDate', nullable: true })
  PasswordLockedDate!: Date | null;

  /**
   * When the automatic lock lifts by itself (password-lock.ts); null with PasswordLocked: a lock written before
   * locks lifted by themselves, which stays until an administrator's Unlock.
   */
  @PortableColumn('timestamp', { name: 'PasswordLockedUntil', nullable: true })
  PasswordLockedUntil!: Date | null;

  /** Consecutive automatic locks since the last successful sign-in, Unlock or reset: each lasts twice as long. */
  @PortableColumn('integer', { name: 'PasswordLockCount', default: 0 })
  PasswordLockCount!: number;

  @PortableColumn('boolean', { name: 'Active' })
  Active!: boolean;

  @PortableColumn('timestamp', { name: 'LastLoginDate', nullable: true })
  LastLoginDate!: Date | null;

  /** spec: Password transport hardening 1 — the browser sends SHA-256(password + userName). */
  @PortableColumn('boolean', { name: 'WirePasswordHash' })
  WirePasswordHash!: boolean;

  /** spec: UserRegistry.TokensValidFrom — every session started before it is refused. Only moves forward. */
  @PortableColumn('timestamp', { name: 'TokensValidFrom', nullable: true })
  TokensValidFrom!: Date | null;
}
