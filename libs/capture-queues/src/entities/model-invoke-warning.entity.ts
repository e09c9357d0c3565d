import { Entity, Index } from 'typeorm';
import { PortableColumn, PortableIdentityColumn } from '@app/database';
import { CAPTURE_LENGTHS as L } from '../capture-queue-id';

/**
 * spec: ModelInvokeWarning — one row per invoke trace point whose gap since the previous point exceeded the
 * Model's warn threshold. The grid's time column is OccurredDate.
 */
@Entity('ModelInvokeWarning')
@Index('IX_ModelInvokeWarning_EntityAnalysisModelGuid_OccurredDate', [
  'EntityAnalysisModelGuid',
  'OccurredDate',
])
export class ModelInvokeWarning {
  @PortableIdentityColumn('ModelInvokeWarning')
  Id!: number;

  @PortableColumn('string', { name: 'EntityAnalysisModelGuid', length: L.guid })
  EntityAnalysisModelGuid!: string;

  @PortableColumn('string', { name: 'EntityAnalysisModelName', length: L.name })
  EntityAnalysisModelName!: string;

  @PortableColumn('string', { name: 'EntityAnalysisModelInstanceEntryGuid', length: L.guid })
  EntityAnalysisModelInstanceEntryGuid!: string;

  /** The trace point's message text. */
  @PortableColumn('string', { name: 'Message', length: L.message })
  Message!: string;

  /** Elapsed since the invocation started. */
  @PortableColumn('bigint', { name: 'ElapsedMicroseconds' })
  ElapsedMicroseconds!: number;

  /** Elapsed since the previous trace point. */
  @PortableColumn('bigint', { name: 'SinceLastEntryMicroseconds' })
  SinceLastEntryMicroseconds!: number;

  @Index('IX_ModelInvokeWarning_OccurredDate')
  @PortableColumn('timestamp', { name: 'OccurredDate' })
  OccurredDate!: Date;

  /** When the warning was captured (enqueued). */
  @PortableColumn('timestamp', { name: 'CreatedDate' })
  CreatedDate!: Date;

  @PortableColumn('string', { name: 'Instance', length: L.instance })
  Instance!: string;
}
