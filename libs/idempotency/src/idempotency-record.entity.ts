import { Entity, Index } from 'typeorm';
import { PortableColumn } from '@app/database';

/**
 * One Idempotency-Key in the database store (used when RedisConnectionString is unset): its id (a SHA-256 of
 * user, route and key), the record text (fingerprint, and the first answer once there is one) and when it
 * expires, in milliseconds since the epoch (UTC), a number compared alike on every database.
 */
@Entity('IdempotencyRecord')
@Index('IX_IdempotencyRecord_ExpiresAt', ['ExpiresAt'])
export class IdempotencyRecord {
  // Compared byte for byte (base64url is case-sensitive; SQL Server's default collation is not).
  @PortableColumn('binaryString', {
    name: 'Id',
    length: 43,
    primary: true,
    primaryKeyConstraintName: 'PK_IdempotencyRecord',
  })
  Id!: string;

  @PortableColumn('text', { name: 'Record' })
  Record!: string;

  @PortableColumn('bigint', { name: 'ExpiresAt' })
  ExpiresAt!: number;
}
