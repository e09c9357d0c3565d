import { Entity, Index } from 'typeorm';
import { PortableColumn, PortableIdentityColumn } from '@app/database';
import { CAPTURE_LENGTHS as L } from '../capture-queue-id';

/** spec: ArchiverWarning — one row per Archiver stage slower than ArchiverWarnThresholdMilliseconds. */
@Entity('ArchiverWarning')
@Index('IX_ArchiverWarning_StageId_CreatedDate', ['StageId', 'CreatedDate'])
export class ArchiverWarning {
  @PortableIdentityColumn('ArchiverWarning')
  Id!: number;

  @PortableColumn('string', { name: 'EntityAnalysisModelGuid', length: L.guid })
  EntityAnalysisModelGuid!: string;

  /** Null for BulkCopyArchiveBuffer, which works on a batch. */
  @PortableColumn('string', { name: 'EntityAnalysisModelInstanceEntryGuid', length: L.guid, nullable: true })
  EntityAnalysisModelInstanceEntryGuid!: string | null;

  /** ArchiverStage (1-4). */
  @PortableColumn('integer', { name: 'StageId' })
  StageId!: number;

  @PortableColumn('bigint', { name: 'DurationMicroseconds' })
  DurationMicroseconds!: number;

  /** Items the slow run handled: a batch's size for a stage that works on batches, else 1. */
  @PortableColumn('integer', { name: 'BatchSize', default: 1 })
  BatchSize!: number;

  @Index('IX_ArchiverWarning_CreatedDate')
  @PortableColumn('timestamp', { name: 'CreatedDate' })
  CreatedDate!: Date;

  @PortableColumn('string', { name: 'Instance', length: L.instance })
  Instance!: string;
}
