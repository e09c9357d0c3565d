import { Entity, Index } from 'typeorm';
import { PortableColumn, PortableIdentityColumn } from '@app/database';
import { CAPTURE_LENGTHS as L } from '../capture-queue-id';

/** Columns shared by the two cache event tables. */
abstract class CacheEventColumns {
  /** The client event (connect, ready, error, close, reconnecting, end, or a Sentinel event). */
  @PortableColumn('string', { name: 'EventName', length: L.eventName })
  EventName!: string;

  @PortableColumn('string', { name: 'Details', length: L.details, nullable: true })
  Details!: string | null;

  /** host:port of the cache, never credentials. */
  @PortableColumn('string', { name: 'Endpoint', length: L.endpoint })
  Endpoint!: string;

  @PortableColumn('timestamp', { name: 'OccurredDate' })
  OccurredDate!: Date;

  @PortableColumn('string', { name: 'Instance', length: L.instance })
  Instance!: string;
}

/** Connection events of the shared cache client (queueId 5). */
@Entity('CacheConnectionEvent')
export class CacheConnectionEvent extends CacheEventColumns {
  @PortableIdentityColumn('CacheConnectionEvent')
  Id!: number;

  @Index('IX_CacheConnectionEvent_CreatedDate')
  @PortableColumn('timestamp', { name: 'CreatedDate' })
  CreatedDate!: Date;
}

/** Sentinel events of the shared cache client (queueId 4). */
@Entity('CacheSentinelEvent')
export class CacheSentinelEvent extends CacheEventColumns {
  @PortableIdentityColumn('CacheSentinelEvent')
  Id!: number;

  @Index('IX_CacheSentinelEvent_CreatedDate')
  @PortableColumn('timestamp', { name: 'CreatedDate' })
  CreatedDate!: Date;
}
