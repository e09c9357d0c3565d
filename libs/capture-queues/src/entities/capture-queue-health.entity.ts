import { Entity, Index } from 'typeorm';
import { PortableColumn, PortableIdentityColumn } from '@app/database';
import { CAPTURE_LENGTHS as L, CaptureQueueId } from '../capture-queue-id';

/** spec: CaptureQueueHealth — one row per queue per flush, always all six. */
@Entity('CaptureQueueHealth')
@Index('IX_CaptureQueueHealth_QueueId_CreatedDate', ['QueueId', 'CreatedDate'])
export class CaptureQueueHealth {
  @PortableIdentityColumn('CaptureQueueHealth')
  Id!: number;

  /** CaptureQueueId (1-6). */
  @PortableColumn('integer', { name: 'QueueId' })
  QueueId!: CaptureQueueId;

  @PortableColumn('string', { name: 'QueueName', length: L.queueName })
  QueueName!: string;

  /** Entries still waiting when the flush took its snapshot (after its writes); normally zero. */
  @PortableColumn('integer', { name: 'QueueDepth' })
  QueueDepth!: number;

  /** Entries dropped since the previous flush; zero when healthy. */
  @PortableColumn('bigint', { name: 'DroppedCount' })
  DroppedCount!: number;

  @Index('IX_CaptureQueueHealth_CreatedDate')
  @PortableColumn('timestamp', { name: 'CreatedDate' })
  CreatedDate!: Date;

  @PortableColumn('string', { name: 'Instance', length: L.instance })
  Instance!: string;
}
