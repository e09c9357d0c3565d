import { MigrationInterface, QueryRunner } from 'typeorm';
import { SchemaWriter } from '../migration-helpers';

/** The decisioning engine: configuration records, cases, the archive and the two stage rollup tables. */
export class Engine1763800003000 implements MigrationInterface {
  name = 'Engine1763800003000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = new SchemaWriter(queryRunner);
    const guid = () => s.column('string', 'Guid', { length: '36' });
    await s.createTable(
      'EntityAnalysisModel',
      [
        s.id('EntityAnalysisModel'),
        guid(),
        s.column('integer', 'TenantRegistryId'),
        s.column('string', 'Name', { length: '256' }),
        s.column('boolean', 'Active'),
        s.column('integer', 'LogsWarnThresholdMilliseconds', { isNullable: true }),
        s.column('boolean', 'EnableRdbmsArchive'),
        s.column('string', 'EntryXPath', { length: '512', isNullable: true }),
        s.column('string', 'ReferenceDateXPath', { length: '512', isNullable: true }),
        ...s.auditColumns(),
      ],
      [
        { name: 'IX_EntityAnalysisModel_Guid', columns: ['Guid'], unique: true },
        { name: 'IX_EntityAnalysisModel_TenantRegistryId', columns: ['TenantRegistryId'] },
      ],
    );
    await s.createTable(
      'EntityAnalysisModelRequestXPath',
      [
        s.id('EntityAnalysisModelRequestXPath'),
        guid(),
        s.column('integer', 'EntityAnalysisModelId'),
        s.column('string', 'Name', { length: '128' }),
        s.column('string', 'XPath', { length: '512' }),
        s.column('integer', 'DataTypeId'),
        s.column('boolean', 'Required'),
        ...s.auditColumns(),
      ],
      [
        { name: 'IX_EntityAnalysisModelRequestXPath_Guid', columns: ['Guid'], unique: true },
        { name: 'IX_EntityAnalysisModelRequestXPath_ModelId', columns: ['EntityAnalysisModelId'] },
      ],
    );
    await s.createTable(
      'EntityAnalysisModelActivationRule',
      [
        s.id('EntityAnalysisModelActivationRule'),
        guid(),
        s.column('integer', 'EntityAnalysisModelId'),
        s.column('string', 'Name', { length: '256' }),
        s.column('text', 'ConditionJson'),
        s.column('integer', 'CaseWorkflowId', { isNullable: true }),
        s.column('integer', 'CaseWorkflowStatusId', { isNullable: true }),
        s.column('string', 'CaseKeyFieldName', { length: '128', isNullable: true }),
        s.column('boolean', 'Active'),
        ...s.auditColumns(),
      ],
      [
        { name: 'IX_EntityAnalysisModelActivationRule_Guid', columns: ['Guid'], unique: true },
        { name: 'IX_EntityAnalysisModelActivationRule_ModelId', columns: ['EntityAnalysisModelId'] },
      ],
    );
    await s.createTable(
      'CaseWorkflow',
      [
        s.id('CaseWorkflow'),
        guid(),
        s.column('integer', 'TenantRegistryId'),
        s.column('string', 'Name', { length: '256' }),
        s.column('boolean', 'Active'),
        ...s.auditColumns(),
      ],
      [
        { name: 'IX_CaseWorkflow_Guid', columns: ['Guid'], unique: true },
        { name: 'IX_CaseWorkflow_TenantRegistryId', columns: ['TenantRegistryId'] },
      ],
    );
    await s.createTable(
      'CaseWorkflowStatus',
      [
        s.id('CaseWorkflowStatus'),
        guid(),
        s.column('integer', 'CaseWorkflowId'),
        s.column('string', 'Name', { length: '256' }),
        s.column('integer', 'Priority'),
        s.column('boolean', 'EnableNotification'),
        s.column('string', 'NotificationDestination', { length: '1024', isNullable: true }),
        s.column('string', 'NotificationSubject', { length: '1024', isNullable: true }),
        s.column('text', 'NotificationBody', { isNullable: true }),
        s.column('boolean', 'EnableHttpEndpoint'),
        s.column('string', 'HttpEndpointUrl', { length: '2048', isNullable: true }),
        s.column('string', 'HttpEndpointMethod', { length: '8', isNullable: true }),
        ...s.auditColumns(),
      ],
      [
        { name: 'IX_CaseWorkflowStatus_Guid', columns: ['Guid'], unique: true },
        { name: 'IX_CaseWorkflowStatus_CaseWorkflowId', columns: ['CaseWorkflowId'] },
      ],
    );
    await s.createTable(
      'Case',
      [
        s.id('Case'),
        guid(),
        s.column('integer', 'CaseWorkflowId'),
        s.column('string', 'CaseKey', { length: '128' }),
        s.column('string', 'CaseKeyValue', { length: '512' }),
        s.column('integer', 'CaseWorkflowStatusId'),
        s.column('integer', 'Priority'),
        s.column('string', 'EntityAnalysisModelInstanceEntryGuid', { length: '36' }),
        s.column('timestamp', 'CreatedDate'),
        s.column('timestamp', 'UpdatedDate', { isNullable: true }),
        s.column('timestamp', 'ClosedDate', { isNullable: true }),
      ],
      [
        { name: 'IX_Case_Guid', columns: ['Guid'], unique: true },
        {
          name: 'IX_Case_Open_Workflow_Key_Value',
          columns: ['CaseWorkflowId', 'CaseKey', 'CaseKeyValue'],
          unique: true,
          where: '"ClosedDate" IS NULL',
        },
      ],
    );
    await s.createTable(
      'EntityAnalysisModelArchive',
      [
        s.id('EntityAnalysisModelArchive'),
        s.column('string', 'EntityAnalysisModelInstanceEntryGuid', { length: '36' }),
        s.column('integer', 'EntityAnalysisModelId'),
        s.column('string', 'EntryReference', { length: '256', isNullable: true }),
        s.column('text', 'Json'),
        s.column('timestamp', 'ReferenceDate'),
        s.column('timestamp', 'CreatedDate'),
        s.column('timestamp', 'UpdatedDate', { isNullable: true }),
      ],
      [
        {
          name: 'IX_EntityAnalysisModelArchive_EntryGuid',
          columns: ['EntityAnalysisModelInstanceEntryGuid'],
          unique: true,
        },
        {
          name: 'IX_EntityAnalysisModelArchive_Model_ReferenceDate',
          columns: ['EntityAnalysisModelId', 'ReferenceDate'],
        },
        { name: 'IX_EntityAnalysisModelArchive_EntryReference', columns: ['EntryReference'] },
        { name: 'IX_EntityAnalysisModelArchive_CreatedDate', columns: ['CreatedDate'] },
      ],
    );
    const counter = (table: string, withModel: boolean) =>
      s.createTable(
        table,
        [
          s.id(table),
          ...(withModel ? [s.column('string', 'EntityAnalysisModelGuid', { length: '36' })] : []),
          s.column('integer', 'StageId'),
          s.column('string', 'StageName', { length: '64' }),
          s.column('bigint', 'TotalMicroseconds'),
          s.column('bigint', 'MinMicroseconds'),
          s.column('bigint', 'MaxMicroseconds'),
          s.column('bigint', 'InvokeCount'),
          s.column('timestamp', 'CreatedDate'),
          s.column('string', 'Instance', { length: '256' }),
        ],
        [
          ...(withModel ? [{ name: `IX_${table}_ModelGuid`, columns: ['EntityAnalysisModelGuid'] }] : []),
          { name: `IX_${table}_StageId`, columns: ['StageId'] },
          { name: `IX_${table}_CreatedDate`, columns: ['CreatedDate'] },
        ],
      );
    await counter('ArchiverStagePerformanceCounter', true);
    await counter('CaseCreationStagePerformanceCounter', false);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const t of [
      'CaseCreationStagePerformanceCounter',
      'ArchiverStagePerformanceCounter',
      'EntityAnalysisModelArchive',
      'Case',
      'CaseWorkflowStatus',
      'CaseWorkflow',
      'EntityAnalysisModelActivationRule',
      'EntityAnalysisModelRequestXPath',
      'EntityAnalysisModel',
    ]) {
      await queryRunner.dropTable(t);
    }
  }
}
