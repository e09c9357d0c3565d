import { Entity, Index } from 'typeorm';
import { PortableColumn, PortableIdentityColumn } from '@app/database';

/** spec: UserLogout — one row per session cut; never purged. */
@Entity('UserLogout')
export class UserLogout {
  /** 64-bit: the table is never purged (read back as a JSON number). */
  @PortableIdentityColumn('UserLogout')
  Id!: number;

  /** Whose session was cut; null when no session was presented. */
  @PortableColumn('string', { name: 'UserName', length: 256, nullable: true })
  UserName!: string | null;

  @Index('IX_UserLogout_TenantRegistryId')
  @PortableColumn('integer', { name: 'TenantRegistryId', nullable: true })
  TenantRegistryId!: number | null;

  @Index('IX_UserLogout_CreatedDate')
  @PortableColumn('timestamp', { name: 'CreatedDate' })
  CreatedDate!: Date;

  /** LogoutReason. */
  @PortableColumn('integer', { name: 'ReasonId' })
  ReasonId!: number;

  /** LogoutOutcome. */
  @PortableColumn('integer', { name: 'OutcomeId' })
  OutcomeId!: number;

  @PortableColumn('string', { name: 'RemoteIp', length: 64, nullable: true })
  RemoteIp!: string | null;

  @PortableColumn('string', { name: 'LocalIp', length: 64, nullable: true })
  LocalIp!: string | null;

  @PortableColumn('string', { name: 'UserAgent', length: 512, nullable: true })
  UserAgent!: string | null;

  /** When the cut session had started. */
  @PortableColumn('timestamp', { name: 'SessionStartedDate', nullable: true })
  SessionStartedDate!: Date | null;

  /** For an administrator revocation: who cut it. */
  @PortableColumn('string', { name: 'RevokedByUser', length: 256, nullable: true })
  RevokedByUser!: string | null;

  @PortableColumn('string', { name: 'Message', length: 1024, nullable: true })
  Message!: string | null;
}
