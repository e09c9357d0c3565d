import { Entity, Index } from 'typeorm';
import { PortableColumn, PortableIdentityColumn } from '@app/database';
import { CAPTURE_LENGTHS as L } from '../capture-queue-id';

/** spec: CaseCreationWarning — one row per case creation stage slower than CaseCreationWarnThresholdMilliseconds. */
@Entity('CaseCreationWarning')
@Index('IX_CaseCreationWarning_StageId_CreatedDate', ['StageId', 'CreatedDate'])
export class CaseCreationWarning {
  @PortableIdentityColumn('CaseCreationWarning')
  Id!: number;

  @PortableColumn('string', { name: 'CaseWorkflowGuid', length: L.guid })
  CaseWorkflowGuid!: string;

  @PortableColumn('string', { name: 'CaseWorkflowName', length: L.name })
  CaseWorkflowName!: string;

  @PortableColumn('string', { name: 'CaseKey', length: L.name })
  CaseKey!: string;

  @PortableColumn('string', { name: 'CaseKeyValue', length: L.caseKeyValue })
  CaseKeyValue!: string;

  /** CaseCreationStage (1-4). */
  @PortableColumn('integer', { name: 'StageId' })
  StageId!: number;

  @PortableColumn('bigint', { name: 'DurationMicroseconds' })
  DurationMicroseconds!: number;

  /** The notification destination (Notification) or the callback URL (HttpEndpoint); null otherwise. */
  @PortableColumn('string', { name: 'Destination', length: L.destination, nullable: true })
  Destination!: string | null;

  /** Items the slow run handled: a batch's size for a stage that works on batches, else 1. */
  @PortableColumn('integer', { name: 'BatchSize', default: 1 })
  BatchSize!: number;

  @Index('IX_CaseCreationWarning_CreatedDate')
  @PortableColumn('timestamp', { name: 'CreatedDate' })
  CreatedDate!: Date;

  @PortableColumn('string', { name: 'Instance', length: L.instance })
  Instance!: string;
}
