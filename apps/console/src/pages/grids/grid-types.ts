import type { GridName } from '@app/declarations';
import type { Schemas } from '../../api/client';

/**
 * The rows and the answer of the service's grids, as the console reads them: the generated types of the
 * OpenAPI document (each grid's `<Grid>Row` and `<Grid>Grid`, built on the server from the grid declarations),
 * so a change of a grid on the server shows in the console's type check.
 */
export type HistogramBucket = Schemas['HistogramBucketDto'];
export type ColumnStatistics = Schemas['ColumnStatisticsDto'];

/** The envelope every grid answers (spec: Response (all grids)), with its statistics by column name. */
export interface GridResponse<Row> {
  rows: Row[];
  /** The full filtered count, regardless of take. */
  total: number;
  statistics: Record<string, ColumnStatistics>;
  sample?: Schemas['GridSampleDto'];
}

/** Every grid's row by the grid's name (its route under /api; the names: libs/declarations GRID_NAMES). */
export interface GridRows extends Record<GridName, unknown> {
  ArchiverStagePerformanceCounter: Schemas['ArchiverStagePerformanceCounterRow'];
  ArchiverWarning: Schemas['ArchiverWarningRow'];
  CaseCreationStagePerformanceCounter: Schemas['CaseCreationStagePerformanceCounterRow'];
  CaseCreationWarning: Schemas['CaseCreationWarningRow'];
  ModelInvokeWarning: Schemas['ModelInvokeWarningRow'];
  CaptureQueueHealth: Schemas['CaptureQueueHealthRow'];
  UserLogin: Schemas['UserLoginRow'];
  UserLogout: Schemas['UserLogoutRow'];
  AdminEvent: Schemas['AdminEventRow'];
}

export type { GridName };
