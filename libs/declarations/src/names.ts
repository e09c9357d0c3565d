/**
 * Names the service and the console both use, declared once: plain constants with no import, so the
 * console's bundle reads the same file the server compiles.
 */

/** The grids (spec: one route each under /api; the console's Administration pages). */
export const GRID_NAMES = [
  'ArchiverStagePerformanceCounter',
  'ArchiverWarning',
  'CaseCreationStagePerformanceCounter',
  'CaseCreationWarning',
  'ModelInvokeWarning',
  'CaptureQueueHealth',
  'UserLogin',
  'UserLogout',
  'AdminEvent',
] as const;
export type GridName = (typeof GRID_NAMES)[number];

/** spec: Archiver stages, by stageId - 1. */
export const ARCHIVER_STAGE_NAMES = [
  'BuildArchiveJson',
  'CaseCreationDispatch',
  'RdbmsArchiveWrite',
  'BulkCopyArchiveBuffer',
] as const;

/** spec: case creation stages, by stageId - 1. */
export const CASE_CREATION_STAGE_NAMES = [
  'ExistingCasePriorityLookup',
  'WorkflowStatusLookupAndPersist',
  'Notification',
  'HttpEndpoint',
] as const;

/** spec: CaptureQueueHealth queue names, by queueId - 1. */
export const CAPTURE_QUEUE_NAMES = [
  'ModelInvokeWarning',
  'CaseCreationWarning',
  'ArchiverWarning',
  'CacheSentinelEvent',
  'CacheConnectionEvent',
  'OpenTelemetryMetric',
] as const;

/** spec: Limits — a capture queue holds at most 20000 entries; beyond it the oldest are dropped and counted. */
export const CAPTURE_QUEUE_CAPACITY = 20_000;
/** spec: Limits — 10000 distinct series for OpenTelemetryMetric (its queue's bound). */
export const OPEN_TELEMETRY_SERIES_LIMIT = 10_000;
/** Each capture queue's bound, by queueId - 1: the depth a queue can reach before it drops. */
export const CAPTURE_QUEUE_CAPACITIES: Readonly<Record<(typeof CAPTURE_QUEUE_NAMES)[number], number>> = {
  ModelInvokeWarning: CAPTURE_QUEUE_CAPACITY,
  CaseCreationWarning: CAPTURE_QUEUE_CAPACITY,
  ArchiverWarning: CAPTURE_QUEUE_CAPACITY,
  CacheSentinelEvent: CAPTURE_QUEUE_CAPACITY,
  CacheConnectionEvent: CAPTURE_QUEUE_CAPACITY,
  OpenTelemetryMetric: OPEN_TELEMETRY_SERIES_LIMIT,
};

/** A name list as the record of each 1-based id's name. */
export function namesById<T extends string>(names: readonly T[]): Readonly<Record<number, T>> {
  return Object.fromEntries(names.map((name, i) => [i + 1, name]));
}

/** Each grid's name by itself (`GRID.UserLogin`), for the places that name one grid. */
export const GRID = Object.fromEntries(GRID_NAMES.map((name) => [name, name])) as {
  readonly [N in GridName]: N;
};
