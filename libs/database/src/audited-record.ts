import { PortableColumn, PortableVersionColumn } from './portable-columns';

/** Created/Updated/Deleted by and date: configuration records are soft-deleted. */
export abstract class AuditedRecord {
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

/**
 * A configuration record with a one-resource GET and writes (tenants, roles, users, models, case workflows and
 * their statuses): its row version is its ETag, and PUT and DELETE honour If-Match against it.
 */
export abstract class VersionedRecord extends AuditedRecord {
  @PortableVersionColumn()
  Version!: number;
}
