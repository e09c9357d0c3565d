import { MigrationInterface, QueryRunner } from 'typeorm';
import { SchemaWriter } from '../migration-helpers';

// Column lengths: keep equal to CAPTURE_LENGTHS in libs/capture-queues (the drift test compares them).
const GUID = '36';
const NAME = '256';
const INSTANCE = '256';

/** The six capture queue tables and CaptureQueueHealth (spec: CaptureQueueHealth, Events). */
export class CaptureQueues1763800002000 implements MigrationInterface {
  name = 'CaptureQueues1763800002000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const s = new SchemaWriter(queryRunner);
    await s.createTable(
      'ModelInvokeWarning',
      [
        s.identity64('ModelInvokeWarning'),
        s.column('string', 'EntityAnalysisModelGuid', { length: GUID }),
        s.column('string', 'EntityAnalysisModelName', { length: NAME }),
        s.column('string', 'EntityAnalysisModelInstanceEntryGuid', { length: GUID }),
        s.column('string', 'Message', { length: '1024' }),
        s.column('bigint', 'ElapsedMicroseconds'),
        s.column('bigint', 'SinceLastEntryMicroseconds'),
        s.column('timestamp', 'OccurredDate'),
        s.column('timestamp', 'CreatedDate'),
        s.column('string', 'Instance', { length: INSTANCE }),
      ],
      [
        { name: 'IX_ModelInvokeWarning_OccurredDate', columns: ['OccurredDate'] },
        {
          name: 'IX_ModelInvokeWarning_EntityAnalysisModelGuid_OccurredDate',
          columns: ['EntityAnalysisModelGuid', 'OccurredDate'],
        },
      ],
    );
    await s.createTable(
      'CaseCreationWarning',
      [
        s.identity64('CaseCreationWarning'),
        s.column('string', 'CaseWorkflowGuid', { length: GUID }),
        s.column('string', 'CaseWorkflowName', { length: NAME }),
        s.column('string', 'CaseKey', { length: NAME }),
        s.column('string', 'CaseKeyValue', { length: '1024' }),
        s.column('integer', 'StageId'),
        s.column('bigint', 'DurationMicroseconds'),
        s.column('string', 'Destination', { length: '2048', isNullable: true }),
        s.column('timestamp', 'CreatedDate'),
        s.column('string', 'Instance', { length: INSTANCE }),
      ],
      [
        { name: 'IX_CaseCreationWarning_CreatedDate', columns: ['CreatedDate'] },
        { name: 'IX_CaseCreationWarning_StageId_CreatedDate', columns: ['StageId', 'CreatedDate'] },
      ],
    );
    await s.createTable(
      'ArchiverWarning',
      [
        s.identity64('ArchiverWarning'),
        s.column('string', 'EntityAnalysisModelGuid', { length: GUID }),
        s.column('string', 'EntityAnalysisModelInstanceEntryGuid', { length: GUID, isNullable: true }),
        s.column('integer', 'StageId'),
        s.column('bigint', 'DurationMicroseconds'),
        s.column('timestamp', 'CreatedDate'),
        s.column('string', 'Instance', { length: INSTANCE }),
      ],
      [
        { name: 'IX_ArchiverWarning_CreatedDate', columns: ['CreatedDate'] },
        { name: 'IX_ArchiverWarning_StageId_CreatedDate', columns: ['StageId', 'CreatedDate'] },
      ],
    );
    for (const table of ['CacheSentinelEvent', 'CacheConnectionEvent']) {
      await s.createTable(
        table,
        [
          s.identity64(table),
          s.column('string', 'EventName', { length: '64' }),
          s.column('string', 'Details', { length: '1024', isNullable: true }),
          s.column('string', 'Endpoint', { length: '256' }),
          s.column('timestamp', 'OccurredDate'),
          s.column('timestamp', 'CreatedDate'),
          s.column('string', 'Instance', { length: INSTANCE }),
        ],
        [{ name: `IX_${table}_CreatedDate`, columns: ['CreatedDate'] }],
      );
    }
    await s.createTable(
      'OpenTelemetryMetric',
      [
        s.identity64('OpenTelemetryMetric'),
        s.column('string', 'InstrumentName', { length: '256' }),
        s.column('string', 'InstrumentType', { length: '32' }),
        s.column('string', 'Unit', { length: '64' }),
        s.column('text', 'Attributes'),
        s.column('bigint', 'Count'),
        s.column('double', 'Sum'),
        s.column('double', 'Min', { isNullable: true }),
        s.column('double', 'Max', { isNullable: true }),
        s.column('text', 'Buckets', { isNullable: true }),
        s.column('timestamp', 'IntervalStartDate'),
        s.column('timestamp', 'IntervalEndDate'),
        s.column('timestamp', 'CreatedDate'),
        s.column('string', 'Instance', { length: INSTANCE }),
      ],
      [
        { name: 'IX_OpenTelemetryMetric_CreatedDate', columns: ['CreatedDate'] },
        {
          name: 'IX_OpenTelemetryMetric_InstrumentName_IntervalStartDate',
          columns: ['InstrumentName', 'IntervalStartDate'],
        },
      ],
    );
    await s.createTable(
      'CaptureQueueHealth',
      [
        s.identity64('CaptureQueueHealth'),
        s.column('integer', 'QueueId'),
        s.column('string', 'QueueName', { length: '64' }),
        s.column('integer', 'QueueDepth'),
        s.column('bigint', 'DroppedCount'),
        s.column('timestamp', 'CreatedDate'),
        s.column('string', 'Instance', { length: INSTANCE }),
      ],
      [
        { name: 'IX_CaptureQueueHealth_CreatedDate', columns: ['CreatedDate'] },
        { name: 'IX_CaptureQueueHealth_QueueId_CreatedDate', columns: ['QueueId', 'CreatedDate'] },
      ],
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const t of [
      'CaptureQueueHealth',
      'OpenTelemetryMetric',
      'CacheConnectionEvent',
      'CacheSentinelEvent',
      'ArchiverWarning',
      'CaseCreationWarning',
      'ModelInvokeWarning',
    ]) {
      await queryRunner.dropTable(t);
    }
  }
}
