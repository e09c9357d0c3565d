import { Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { PortableColumn } from '@app/database';
import { AuditedRecord, VersionedRecord } from '@app/database';

/** Data types of an extracted field; numbers are stored in DataTypeId. */
export enum FieldDataType {
  String = 1,
  Integer = 2,
  Float = 3,
  Boolean = 4,
  DateTime = 5,
}

@Entity('EntityAnalysisModel')
export class EntityAnalysisModel extends VersionedRecord {
  @PrimaryGeneratedColumn('increment', {
    name: 'Id',
    type: 'integer',
    primaryKeyConstraintName: 'PK_EntityAnalysisModel',
  })
  Id!: number;

  @Index('IX_EntityAnalysisModel_Guid', { unique: true })
  @PortableColumn('string', { name: 'Guid', length: 36 })
  Guid!: string;

  @Index('IX_EntityAnalysisModel_TenantRegistryId')
  @PortableColumn('integer', { name: 'TenantRegistryId' })
  TenantRegistryId!: number;

  @PortableColumn('string', { name: 'Name', length: 256 })
  Name!: string;

  @PortableColumn('boolean', { name: 'Active' })
  Active!: boolean;

  /** spec: Logs: Warn Threshold Milliseconds; null = off. */
  @PortableColumn('integer', { name: 'LogsWarnThresholdMilliseconds', nullable: true })
  LogsWarnThresholdMilliseconds!: number | null;

  @PortableColumn('boolean', { name: 'EnableRdbmsArchive' })
  EnableRdbmsArchive!: boolean;

  /** JSON path of the entry identifier in the request body. */
  @PortableColumn('string', { name: 'EntryXPath', length: 512, nullable: true })
  EntryXPath!: string | null;

  /** JSON path of the reference date in the request body. */
  @PortableColumn('string', { name: 'ReferenceDateXPath', length: 512, nullable: true })
  ReferenceDateXPath!: string | null;

  /** Days its archived invocations are kept: null = the ArchiveRetentionInterval settings; 0 = for ever. */
  @PortableColumn('integer', { name: 'ArchiveRetentionDays', nullable: true })
  ArchiveRetentionDays!: number | null;
}

@Entity('EntityAnalysisModelRequestXPath')
export class EntityAnalysisModelRequestXPath extends AuditedRecord {
  @PrimaryGeneratedColumn('increment', {
    name: 'Id',
    type: 'integer',
    primaryKeyConstraintName: 'PK_EntityAnalysisModelRequestXPath',
  })
  Id!: number;

  @Index('IX_EntityAnalysisModelRequestXPath_Guid', { unique: true })
  @PortableColumn('string', { name: 'Guid', length: 36 })
  Guid!: string;

  @Index('IX_EntityAnalysisModelRequestXPath_ModelId')
  @PortableColumn('integer', { name: 'EntityAnalysisModelId' })
  EntityAnalysisModelId!: number;

  /** The field name: a token in templates and a variable in rule conditions. */
  @PortableColumn('string', { name: 'Name', length: 128 })
  Name!: string;

  @PortableColumn('string', { name: 'XPath', length: 512 })
  XPath!: string;

  @PortableColumn('integer', { name: 'DataTypeId' })
  DataTypeId!: FieldDataType;

  @PortableColumn('boolean', { name: 'Required' })
  Required!: boolean;
}

@Entity('EntityAnalysisModelActivationRule')
export class EntityAnalysisModelActivationRule extends AuditedRecord {
  @PrimaryGeneratedColumn('increment', {
    name: 'Id',
    type: 'integer',
    primaryKeyConstraintName: 'PK_EntityAnalysisModelActivationRule',
  })
  Id!: number;

  @Index('IX_EntityAnalysisModelActivationRule_Guid', { unique: true })
  @PortableColumn('string', { name: 'Guid', length: 36 })
  Guid!: string;

  @Index('IX_EntityAnalysisModelActivationRule_ModelId')
  @PortableColumn('integer', { name: 'EntityAnalysisModelId' })
  EntityAnalysisModelId!: number;

  @PortableColumn('string', { name: 'Name', length: 256 })
  Name!: string;

  /** JSON Logic over the extracted fields: data, never code. */
  @PortableColumn('text', { name: 'ConditionJson' })
  ConditionJson!: string;

  @PortableColumn('integer', { name: 'CaseWorkflowId', nullable: true })
  CaseWorkflowId!: number | null;

  @PortableColumn('integer', { name: 'CaseWorkflowStatusId', nullable: true })
  CaseWorkflowStatusId!: number | null;

  /** The extracted field whose value is the case key value. */
  @PortableColumn('string', { name: 'CaseKeyFieldName', length: 128, nullable: true })
  CaseKeyFieldName!: string | null;

  @PortableColumn('boolean', { name: 'Active' })
  Active!: boolean;
}

@Entity('CaseWorkflow')
export class CaseWorkflow extends VersionedRecord {
  @PrimaryGeneratedColumn('increment', {
    name: 'Id',
    type: 'integer',
    primaryKeyConstraintName: 'PK_CaseWorkflow',
  })
  Id!: number;

  @Index('IX_CaseWorkflow_Guid', { unique: true })
  @PortableColumn('string', { name: 'Guid', length: 36 })
  Guid!: string;

  @Index('IX_CaseWorkflow_TenantRegistryId')
  @PortableColumn('integer', { name: 'TenantRegistryId' })
  TenantRegistryId!: number;

  @PortableColumn('string', { name: 'Name', length: 256 })
  Name!: string;

  @PortableColumn('boolean', { name: 'Active' })
  Active!: boolean;
}

export type HttpEndpointMethod = 'POST' | 'GET';

@Entity('CaseWorkflowStatus')
export class CaseWorkflowStatus extends VersionedRecord {
  @PrimaryGeneratedColumn('increment', {
    name: 'Id',
    type: 'integer',
    primaryKeyConstraintName: 'PK_CaseWorkflowStatus',
  })
  Id!: number;

  @Index('IX_CaseWorkflowStatus_Guid', { unique: true })
  @PortableColumn('string', { name: 'Guid', length: 36 })
  Guid!: string;

  @Index('IX_CaseWorkflowStatus_CaseWorkflowId')
  @PortableColumn('integer', { name: 'CaseWorkflowId' })
  CaseWorkflowId!: number;

  @PortableColumn('string', { name: 'Name', length: 256 })
  Name!: string;

  /** A lower number wins. */
  @PortableColumn('integer', { name: 'Priority' })
  Priority!: number;

  @PortableColumn('boolean', { name: 'EnableNotification' })
  EnableNotification!: boolean;

  @PortableColumn('string', { name: 'NotificationDestination', length: 1024, nullable: true })
  NotificationDestination!: string | null;

  @PortableColumn('string', { name: 'NotificationSubject', length: 1024, nullable: true })
  NotificationSubject!: string | null;

  @PortableColumn('text', { name: 'NotificationBody', nullable: true })
  NotificationBody!: string | null;

  @PortableColumn('boolean', { name: 'EnableHttpEndpoint' })
  EnableHttpEndpoint!: boolean;

  @PortableColumn('string', { name: 'HttpEndpointUrl', length: 2048, nullable: true })
  HttpEndpointUrl!: string | null;

  @PortableColumn('string', { name: 'HttpEndpointMethod', length: 8, nullable: true })
  HttpEndpointMethod!: HttpEndpointMethod | null;
}
