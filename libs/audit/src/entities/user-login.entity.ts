import { Entity, Index } from 'typeorm';
import { PortableColumn, PortableIdentityColumn } from '@app/database';

/** spec: UserLogin — one row per sign-in attempt under any scheme; never purged. */
@Entity('UserLogin')
export class UserLogin {
  /** 64-bit: the table is never purged (read back as a JSON number). */
  @PortableIdentityColumn('UserLogin')
  Id!: number;

  /** The user name as typed (bounded, control characters replaced), even when no such user exists. */
  @PortableColumn('string', { name: 'CreatedUser', length: 256 })
  CreatedUser!: string;

  /** The tenant of the matched user; null when no user matched. */
  @Index('IX_UserLogin_TenantRegistryId')
  @PortableColumn('integer', { name: 'TenantRegistryId', nullable: true })
  TenantRegistryId!: number | null;

  @PortableColumn('string', { name: 'RemoteIp', length: 64, nullable: true })
  RemoteIp!: string | null;

  @PortableColumn('string', { name: 'LocalIp', length: 64, nullable: true })
  LocalIp!: string | null;

  @PortableColumn('string', { name: 'UserAgent', length: 512, nullable: true })
  UserAgent!: string | null;

  @PortableColumn('integer', { name: 'AuthenticationTypeId' })
  AuthenticationTypeId!: number;

  @PortableColumn('boolean', { name: 'Failed' })
  Failed!: boolean;

  @PortableColumn('integer', { name: 'FailureTypeId', nullable: true })
  FailureTypeId!: number | null;

  /** Only for OAuth failures (FailureTypeId 7 to 10). */
  @PortableColumn('string', { name: 'FailureMessage', length: 1024, nullable: true })
  FailureMessage!: string | null;

  @Index('IX_UserLogin_CreatedDate')
  @PortableColumn('timestamp', { name: 'CreatedDate' })
  CreatedDate!: Date;
}
