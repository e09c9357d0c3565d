import { GRID } from '@app/declarations';
import { CAPTURE_QUEUE_NAMES, CaptureQueueId } from '@app/capture-queues';
import {
  ARCHIVER_STAGE_NAMES,
  ArchiverStage,
  CASE_CREATION_STAGE_NAMES,
  CaseCreationStage,
} from '@app/telemetry';
import { GridColumn, GridDefinition, validateDefinition } from '../grid-definition';

const col = (name: string, column: string, kind: GridColumn['kind'], nullable = false): GridColumn => ({
  name,
  column,
  kind,
  ...(nullable ? { nullable } : {}),
});
const stageNameMember = {
  name: 'stageName',
  kind: 'string' as const,
  nullable: true,
  description: 'The StageName of stageId',
};
const id = col('id', 'Id', 'number');
const created = col('createdDate', 'CreatedDate', 'date');
const instance = col('instance', 'Instance', 'string');
const stageId = col('stageId', 'StageId', 'number');
const stageFilter = { param: 'stageId', column: 'StageId', type: 'integer' as const, min: 1, max: 4 };
const archiverStageName = (r: Record<string, unknown>) => ({
  stageName: ARCHIVER_STAGE_NAMES[r.stageId as ArchiverStage] ?? null,
});
const caseStageName = (r: Record<string, unknown>) => ({
  stageName: CASE_CREATION_STAGE_NAMES[r.stageId as CaseCreationStage] ?? null,
});
const stageCounterColumns = [
  stageId,
  // Stored by the rollup (so sortable and searchable like any column), unlike the warnings' derived name.
  col('stageName', 'StageName', 'string'),
  col('totalMicroseconds', 'TotalMicroseconds', 'number'),
  col('minMicroseconds', 'MinMicroseconds', 'number'),
  col('maxMicroseconds', 'MaxMicroseconds', 'number'),
  col('invokeCount', 'InvokeCount', 'number'),
  created,
  instance,
];
const stageCounterStatistics = ['totalMicroseconds', 'minMicroseconds', 'maxMicroseconds', 'invokeCount'];
/** The series of a grid: its measure per time bucket, one line per stage (GET /api/<Grid>/Series). */
const perArchiverStage = (measure: string) => ({
  measure,
  by: { column: 'StageId', name: (v: number) => ARCHIVER_STAGE_NAMES[v as ArchiverStage] ?? null },
});
const perCaseCreationStage = (measure: string) => ({
  measure,
  by: { column: 'StageId', name: (v: number) => CASE_CREATION_STAGE_NAMES[v as CaseCreationStage] ?? null },
});

/** The six telemetry grids of the spec, declared to the one engine. Landlord tenant only. */
export const ARCHIVER_STAGE_PERFORMANCE_COUNTER_GRID = validateDefinition({
  name: GRID.ArchiverStagePerformanceCounter,
  table: 'ArchiverStagePerformanceCounter',
  idColumn: 'Id',
  timeColumn: 'CreatedDate',
  columns: [id, col('entityAnalysisModelGuid', 'EntityAnalysisModelGuid', 'guid'), ...stageCounterColumns],
  filters: [stageFilter],
  searchColumns: [],
  statistics: stageCounterStatistics,
  sortable: true,
  series: { ...perArchiverStage('totalMicroseconds'), also: ['invokeCount'] },
});

export const CASE_CREATION_STAGE_PERFORMANCE_COUNTER_GRID = validateDefinition({
  name: GRID.CaseCreationStagePerformanceCounter,
  table: 'CaseCreationStagePerformanceCounter',
  idColumn: 'Id',
  timeColumn: 'CreatedDate',
  columns: [id, ...stageCounterColumns],
  filters: [stageFilter],
  searchColumns: [],
  statistics: stageCounterStatistics,
  sortable: true,
  series: { ...perCaseCreationStage('totalMicroseconds'), also: ['invokeCount'] },
});

export const ARCHIVER_WARNING_GRID = validateDefinition({
  name: GRID.ArchiverWarning,
  table: 'ArchiverWarning',
  idColumn: 'Id',
  timeColumn: 'CreatedDate',
  columns: [
    id,
    col('entityAnalysisModelGuid', 'EntityAnalysisModelGuid', 'guid'),
    // null for BulkCopyArchiveBuffer, which works on a batch (spec: ArchiverWarning)
    col('entityAnalysisModelInstanceEntryGuid', 'EntityAnalysisModelInstanceEntryGuid', 'guid', true),
    stageId,
    col('durationMicroseconds', 'DurationMicroseconds', 'number'),
    // rows the slow run worked on: the batch of a BulkCopyArchiveBuffer, 1 for the other stages
    col('batchSize', 'BatchSize', 'number'),
    created,
    instance,
  ],
  filters: [stageFilter],
  searchColumns: [],
  statistics: ['durationMicroseconds'],
  sortable: true,
  decorate: archiverStageName,
  derived: [stageNameMember],
  sortDerived: { stageName: 'StageId' },
  series: perArchiverStage('durationMicroseconds'),
});

export const CASE_CREATION_WARNING_GRID = validateDefinition({
  name: GRID.CaseCreationWarning,
  table: 'CaseCreationWarning',
  idColumn: 'Id',
  timeColumn: 'CreatedDate',
  columns: [
    id,
    col('caseWorkflowGuid', 'CaseWorkflowGuid', 'guid'),
    col('caseWorkflowName', 'CaseWorkflowName', 'string'),
    col('caseKey', 'CaseKey', 'string'),
    col('caseKeyValue', 'CaseKeyValue', 'string'),
    stageId,
    col('durationMicroseconds', 'DurationMicroseconds', 'number'),
    col('destination', 'Destination', 'string', true),
    // activations the slow run handled: the batch of stages 1 and 2 (its first activation named above), 1 for 3 and 4
    col('batchSize', 'BatchSize', 'number'),
    created,
    instance,
  ],
  filters: [stageFilter],
  searchColumns: ['CaseKeyValue'],
  statistics: ['durationMicroseconds'],
  sortable: true,
  decorate: caseStageName,
  derived: [stageNameMember],
  sortDerived: { stageName: 'StageId' },
  series: perCaseCreationStage('durationMicroseconds'),
});

export const MODEL_INVOKE_WARNING_GRID = validateDefinition({
  name: GRID.ModelInvokeWarning,
  table: 'ModelInvokeWarning',
  idColumn: 'Id',
  timeColumn: 'OccurredDate',
  columns: [
    id,
    col('entityAnalysisModelGuid', 'EntityAnalysisModelGuid', 'guid'),
    col('entityAnalysisModelName', 'EntityAnalysisModelName', 'string'),
    col('entityAnalysisModelInstanceEntryGuid', 'EntityAnalysisModelInstanceEntryGuid', 'guid'),
    col('message', 'Message', 'string'),
    col('elapsedMicroseconds', 'ElapsedMicroseconds', 'number'),
    col('sinceLastEntryMicroseconds', 'SinceLastEntryMicroseconds', 'number'),
    col('occurredDate', 'OccurredDate', 'date'),
    created,
    instance,
  ],
  filters: [{ param: 'entityAnalysisModelGuid', column: 'EntityAnalysisModelGuid', type: 'guid' }],
  searchColumns: ['EntityAnalysisModelName', 'Message'],
  statistics: ['elapsedMicroseconds', 'sinceLastEntryMicroseconds'],
  sortable: true,
  series: { measure: 'sinceLastEntryMicroseconds' },
});

export const CAPTURE_QUEUE_HEALTH_GRID = validateDefinition({
  name: GRID.CaptureQueueHealth,
  table: 'CaptureQueueHealth',
  idColumn: 'Id',
  timeColumn: 'CreatedDate',
  columns: [
    id,
    col('queueId', 'QueueId', 'number'),
    col('queueName', 'QueueName', 'string'),
    col('queueDepth', 'QueueDepth', 'number'),
    col('droppedCount', 'DroppedCount', 'number'),
    created,
    instance,
  ],
  filters: [{ param: 'queueId', column: 'QueueId', type: 'integer', min: 1, max: 6 }],
  searchColumns: [],
  // Not named by the spec; depth and drops are what an operator reads here.
  statistics: ['queueDepth', 'droppedCount'],
  sortable: false,
  decorate: (r) => ({
    queueName: r.queueName ?? CAPTURE_QUEUE_NAMES[r.queueId as CaptureQueueId] ?? null,
  }),
  derived: [{ name: 'queueName', kind: 'string', nullable: true }],
  series: {
    measure: 'queueDepth',
    by: { column: 'QueueId', name: (v: number) => CAPTURE_QUEUE_NAMES[v as CaptureQueueId] ?? null },
  },
});

export const TELEMETRY_GRIDS: readonly GridDefinition[] = [
  ARCHIVER_STAGE_PERFORMANCE_COUNTER_GRID,
  ARCHIVER_WARNING_GRID,
  CASE_CREATION_STAGE_PERFORMANCE_COUNTER_GRID,
  CASE_CREATION_WARNING_GRID,
  MODEL_INVOKE_WARNING_GRID,
  CAPTURE_QUEUE_HEALTH_GRID,
];
