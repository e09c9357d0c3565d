import { Entity, Index } from 'typeorm';
import { PortableColumn, PortableIdentityColumn } from '@app/database';

/**
 * One administrative write through the API: applied, in the same transaction as the change, or
 * refused (refusals of one actor, action and status counted together, a row a minute per node). Never purged, like
 * UserLogin. Never holds a secret: a password or key hash is only "changed".
 */
@Entity('AdminEvent')
export class AdminEvent {
  /** 64-bit: the table is never purged (read back as a JSON number). */
  @PortableIdentityColumn('AdminEvent')
  Id!: number;

  @Index('IX_AdminEvent_CreatedDate')
  @PortableColumn('timestamp', { name: 'CreatedDate' })
  CreatedDate!: Date;

  @PortableColumn('string', { name: 'ActorUserGuid', length: 36 })
  ActorUserGuid!: string;

  @PortableColumn('string', { name: 'ActorUser', length: 256 })
  ActorUser!: string;

  @PortableColumn('integer', { name: 'ActorTenantRegistryId' })
  ActorTenantRegistryId!: number;

  /** The actor's tenant's name at that moment (null on rows written before it was recorded). */
  @PortableColumn('string', { name: 'ActorTenantName', length: 256, nullable: true })
  ActorTenantName!: string | null;

  /** bearer, cookie or api-key. */
  @PortableColumn('string', { name: 'CredentialKind', length: 16 })
  CredentialKind!: string;

  /** For an API-key caller: the key's display-safe identifier (its first eight characters). */
  @PortableColumn('string', { name: 'ApiKeyIdentifier', length: 16, nullable: true })
  ApiKeyIdentifier!: string | null;

  /** `<record>.<verb>`, as the route declares it (AdminAction): `RoleRegistry.Update`. */
  @PortableColumn('string', { name: 'Action', length: 64 })
  Action!: string;

  @PortableColumn('string', { name: 'TargetType', length: 64 })
  TargetType!: string;

  /** Null when the write named no record yet (a refused creation). For refusals counted together: the first's. */
  @Index('IX_AdminEvent_TargetGuid')
  @PortableColumn('string', { name: 'TargetGuid', length: 36, nullable: true })
  TargetGuid!: string | null;

  /** The target's display name at that moment. */
  @PortableColumn('string', { name: 'TargetName', length: 256, nullable: true })
  TargetName!: string | null;

  /** The target's tenant (for a refusal whose target is unknown: the actor's): what scopes the grid. */
  @Index('IX_AdminEvent_TenantRegistryId')
  @PortableColumn('integer', { name: 'TenantRegistryId', nullable: true })
  TenantRegistryId!: number | null;

  /** JSON: [{ field, old, new }] or, for a secret, [{ field, changed: true }]. */
  @PortableColumn('text', { name: 'Changes', nullable: true })
  Changes!: string | null;

  /** AdminEventOutcome. */
  @PortableColumn('integer', { name: 'OutcomeId' })
  OutcomeId!: number;

  /** The HTTP status the write was answered with. */
  @PortableColumn('integer', { name: 'StatusCode' })
  StatusCode!: number;

  /**
   * How many writes the row stands for: 1 for an accepted change; for refusals, every refusal of the same actor,
   * action and status on this node within one minute (its first's target and instant are TargetGuid and
   * CreatedDate, its last's LastTargetGuid and LastDate). Only ever raised while the minute is open.
   */
  @PortableColumn('integer', { name: 'EventCount', default: 1 })
  EventCount!: number;

  /** The last counted refusal's target (null for an accepted change). */
  @PortableColumn('string', { name: 'LastTargetGuid', length: 36, nullable: true })
  LastTargetGuid!: string | null;

  /** The last counted refusal's instant (null for an accepted change). */
  @PortableColumn('timestamp', { name: 'LastDate', nullable: true })
  LastDate!: Date | null;

  /** For a refusal: the problem's detail (the first's, when the row counts several). */
  @PortableColumn('string', { name: 'Message', length: 512, nullable: true })
  Message!: string | null;

  @PortableColumn('string', { name: 'RemoteIp', length: 64, nullable: true })
  RemoteIp!: string | null;

  @PortableColumn('string', { name: 'LocalIp', length: 64, nullable: true })
  LocalIp!: string | null;

  @PortableColumn('string', { name: 'UserAgent', length: 512, nullable: true })
  UserAgent!: string | null;
}
