/**
 * The rows and the answer of the service's grids, as the console reads them.
 *
 * MIRRORED BY HAND from the server's grid declarations (libs/grid/src/grids/telemetry-grids.ts and
 * audit-grids.ts, `GridResponse` in libs/grid/src/grid-engine.ts, `ColumnStatistics` in statistics.ts)
 * because the OpenAPI document does not declare the grids' answers yet. To be replaced by the generated
 * types (`Schemas[...]` from api/client.ts) once the document declares them (issue 17): delete this file
 * and let the type check show every place that reads a grid.
 */

/** One histogram bucket: equal widths from min to max; the max falls in the last bucket. */
export interface HistogramBucket {
  lowerBound: number;
  upperBound: number;
  count: number;
}

/** Statistics of one column over the whole filtered window (capped at its newest 100 000 rows). */
export interface ColumnStatistics {
  count: number;
  min: number | null;
  max: number | null;
  mean: number | null;
  median: number | null;
  /** Sample standard deviation (n − 1); 0 for a single value. */
  standardDeviation: number | null;
  /** Always ten buckets (spec: Limits). */
  histogram: HistogramBucket[];
}

/** The envelope every grid answers (spec: Response (all grids)). */
export interface GridResponse<Row> {
  rows: Row[];
  /** The full filtered count, regardless of take. */
  total: number;
  statistics: Record<string, ColumnStatistics>;
  sample?: { percentage: number; seed: number };
}

/** Instants are ISO 8601 strings in UTC. */
type Instant = string;

interface StageCounterRow {
  id: number;
  stageId: number;
  stageName: string | null;
  totalMicroseconds: number;
  minMicroseconds: number;
  maxMicroseconds: number;
  invokeCount: number;
  createdDate: Instant;
  instance: string | null;
}

export interface ArchiverStagePerformanceCounterRow extends StageCounterRow {
  entityAnalysisModelGuid: string;
}

export type CaseCreationStagePerformanceCounterRow = StageCounterRow;

export interface ArchiverWarningRow {
  id: number;
  entityAnalysisModelGuid: string;
  entityAnalysisModelInstanceEntryGuid: string | null;
  stageId: number;
  stageName: string | null;
  durationMicroseconds: number;
  createdDate: Instant;
  instance: string | null;
}

export interface CaseCreationWarningRow {
  id: number;
  caseWorkflowGuid: string;
  caseWorkflowName: string | null;
  caseKey: string | null;
  caseKeyValue: string | null;
  stageId: number;
  stageName: string | null;
  durationMicroseconds: number;
  destination: string | null;
  createdDate: Instant;
  instance: string | null;
}

export interface ModelInvokeWarningRow {
  id: number;
  entityAnalysisModelGuid: string;
  entityAnalysisModelName: string | null;
  entityAnalysisModelInstanceEntryGuid: string;
  message: string;
  elapsedMicroseconds: number;
  sinceLastEntryMicroseconds: number;
  occurredDate: Instant;
  createdDate: Instant;
  instance: string | null;
}

export interface CaptureQueueHealthRow {
  id: number;
  queueId: number;
  queueName: string | null;
  queueDepth: number;
  droppedCount: number;
  createdDate: Instant;
  instance: string | null;
}

export interface UserLoginRow {
  id: number;
  createdUser: string | null;
  remoteIp: string | null;
  localIp: string | null;
  userAgent: string | null;
  authenticationTypeId: number;
  failed: boolean;
  failureTypeId: number | null;
  failureMessage: string | null;
  createdDate: Instant;
  authenticationType: string | null;
  failureType: string | null;
}

export interface UserLogoutRow {
  id: number;
  userName: string | null;
  reasonId: number;
  outcomeId: number;
  remoteIp: string | null;
  localIp: string | null;
  userAgent: string | null;
  sessionStartedDate: Instant | null;
  revokedByUser: string | null;
  message: string | null;
  createdDate: Instant;
  reason: string | null;
  outcome: string | null;
}

/** Every grid's row by the grid's name (its route under /api). */
export interface GridRows {
  ArchiverStagePerformanceCounter: ArchiverStagePerformanceCounterRow;
  ArchiverWarning: ArchiverWarningRow;
  CaseCreationStagePerformanceCounter: CaseCreationStagePerformanceCounterRow;
  CaseCreationWarning: CaseCreationWarningRow;
  ModelInvokeWarning: ModelInvokeWarningRow;
  CaptureQueueHealth: CaptureQueueHealthRow;
  UserLogin: UserLoginRow;
  UserLogout: UserLogoutRow;
}

export type GridName = keyof GridRows;
