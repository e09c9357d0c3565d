import { Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { PortableColumn, PortableIdentityColumn } from '@app/database';

/** A case raised by an activation: one open case per workflow, key and value. */
@Entity('Case')
// At most one OPEN case per workflow, key and value, across every node (the serial consumer already
// guarantees it within one node).
@Index('IX_Case_Open_Workflow_Key_Value', ['CaseWorkflowId', 'CaseKey', 'CaseKeyValue'], {
  unique: true,
  where: '"ClosedDate" IS NULL',
})
// The archive purge keeps every entry an open case names: it asks this index.
@Index('IX_Case_Open_EntryGuid', ['EntityAnalysisModelInstanceEntryGuid'], { where: '"ClosedDate" IS NULL' })
export class CaseRecord {
  /** 64-bit (Engine64BitIds1763800008000): never trimmed. */
  @PortableIdentityColumn('Case')
  Id!: number;

  @Index('IX_Case_Guid', { unique: true })
  @PortableColumn('string', { name: 'Guid', length: 36 })
  Guid!: string;

  @PortableColumn('integer', { name: 'CaseWorkflowId' })
  CaseWorkflowId!: number;

  @PortableColumn('binaryString', { name: 'CaseKey', length: 128 })
  CaseKey!: string;

  @PortableColumn('binaryString', { name: 'CaseKeyValue', length: 512 })
  CaseKeyValue!: string;

  @PortableColumn('integer', { name: 'CaseWorkflowStatusId' })
  CaseWorkflowStatusId!: number;

  /** The status's priority when it was set (a lower number wins). */
  @PortableColumn('integer', { name: 'Priority' })
  Priority!: number;

  /** The invocation that last inserted or upgraded the case. */
  @PortableColumn('string', { name: 'EntityAnalysisModelInstanceEntryGuid', length: 36 })
  EntityAnalysisModelInstanceEntryGuid!: string;

  @PortableColumn('timestamp', { name: 'CreatedDate' })
  CreatedDate!: Date;

  @PortableColumn('timestamp', { name: 'UpdatedDate', nullable: true })
  UpdatedDate!: Date | null;

  /** A closed case no longer receives activations; a new one opens. */
  @PortableColumn('timestamp', { name: 'ClosedDate', nullable: true })
  ClosedDate!: Date | null;
}

/** One archived invocation (the Archiver's RdbmsArchiveWrite and BulkCopyArchiveBuffer). */
@Entity('EntityAnalysisModelArchive')
@Index('IX_EntityAnalysisModelArchive_Model_ReferenceDate', ['EntityAnalysisModelId', 'ReferenceDate'])
// The purge walks a model's rows oldest first.
@Index('IX_EntityAnalysisModelArchive_Model_CreatedDate', ['EntityAnalysisModelId', 'CreatedDate', 'Id'])
export class EntityAnalysisModelArchive {
  /** 64-bit (Engine64BitIds1763800008000): never trimmed. */
  @PortableIdentityColumn('EntityAnalysisModelArchive')
  Id!: number;

  @Index('IX_EntityAnalysisModelArchive_EntryGuid', { unique: true })
  @PortableColumn('string', { name: 'EntityAnalysisModelInstanceEntryGuid', length: 36 })
  EntityAnalysisModelInstanceEntryGuid!: string;

  @PortableColumn('integer', { name: 'EntityAnalysisModelId' })
  EntityAnalysisModelId!: number;

  /** The request's own entry identifier (the model's EntryXPath), when it has one. */
  @Index('IX_EntityAnalysisModelArchive_EntryReference')
  @PortableColumn('string', { name: 'EntryReference', length: 256, nullable: true })
  EntryReference!: string | null;

  @PortableColumn('text', { name: 'Json' })
  Json!: string;

  @PortableColumn('timestamp', { name: 'ReferenceDate' })
  ReferenceDate!: Date;

  @Index('IX_EntityAnalysisModelArchive_CreatedDate')
  @PortableColumn('timestamp', { name: 'CreatedDate' })
  CreatedDate!: Date;

  @PortableColumn('timestamp', { name: 'UpdatedDate', nullable: true })
  UpdatedDate!: Date | null;
}

/** spec: ArchiverStagePerformanceCounter — one row per Archiver stage per Model per rollup interval. */
@Entity('ArchiverStagePerformanceCounter')
export class ArchiverStagePerformanceCounter {
  @PrimaryGeneratedColumn('increment', {
    name: 'Id',
    type: 'integer',
    primaryKeyConstraintName: 'PK_ArchiverStagePerformanceCounter',
  })
  Id!: number;

  @Index('IX_ArchiverStagePerformanceCounter_ModelGuid')
  @PortableColumn('string', { name: 'EntityAnalysisModelGuid', length: 36 })
  EntityAnalysisModelGuid!: string;

  @Index('IX_ArchiverStagePerformanceCounter_StageId')
  @PortableColumn('integer', { name: 'StageId' })
  StageId!: number;

  @PortableColumn('string', { name: 'StageName', length: 64 })
  StageName!: string;

  @PortableColumn('bigint', { name: 'TotalMicroseconds' })
  TotalMicroseconds!: number;

  @PortableColumn('bigint', { name: 'MinMicroseconds' })
  MinMicroseconds!: number;

  @PortableColumn('bigint', { name: 'MaxMicroseconds' })
  MaxMicroseconds!: number;

  @PortableColumn('bigint', { name: 'InvokeCount' })
  InvokeCount!: number;

  @Index('IX_ArchiverStagePerformanceCounter_CreatedDate')
  @PortableColumn('timestamp', { name: 'CreatedDate' })
  CreatedDate!: Date;

  @PortableColumn('string', { name: 'Instance', length: 256 })
  Instance!: string;
}

/** spec: CaseCreationStagePerformanceCounter — same shape, no Model scope. */
@Entity('CaseCreationStagePerformanceCounter')
export class CaseCreationStagePerformanceCounter {
  @PrimaryGeneratedColumn('increment', {
    name: 'Id',
    type: 'integer',
    primaryKeyConstraintName: 'PK_CaseCreationStagePerformanceCounter',
  })
  Id!: number;

  @Index('IX_CaseCreationStagePerformanceCounter_StageId')
  @PortableColumn('integer', { name: 'StageId' })
  StageId!: number;

  @PortableColumn('string', { name: 'StageName', length: 64 })
  StageName!: string;

  @PortableColumn('bigint', { name: 'TotalMicroseconds' })
  TotalMicroseconds!: number;

  @PortableColumn('bigint', { name: 'MinMicroseconds' })
  MinMicroseconds!: number;

  @PortableColumn('bigint', { name: 'MaxMicroseconds' })
  MaxMicroseconds!: number;

  @PortableColumn('bigint', { name: 'InvokeCount' })
  InvokeCount!: number;

  @Index('IX_CaseCreationStagePerformanceCounter_CreatedDate')
  @PortableColumn('timestamp', { name: 'CreatedDate' })
  CreatedDate!: Date;

  @PortableColumn('string', { name: 'Instance', length: 256 })
  Instance!: string;
}
