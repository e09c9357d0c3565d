import { CAPTURE_QUEUE_NAMES as CAPTURE_QUEUE_NAME_LIST, namesById } from '@app/declarations';

/** The bounds are declared beside the queues' names, where the console reads them too. */
export { CAPTURE_QUEUE_CAPACITY, OPEN_TELEMETRY_SERIES_LIMIT } from '@app/declarations';

/** spec: CaptureQueueHealth, queue identifiers (queueId). */
export enum CaptureQueueId {
  ModelInvokeWarning = 1,
  CaseCreationWarning = 2,
  ArchiverWarning = 3,
  CacheSentinelEvent = 4,
  CacheConnectionEvent = 5,
  OpenTelemetryMetric = 6,
}

export const CAPTURE_QUEUE_IDS: readonly CaptureQueueId[] = [1, 2, 3, 4, 5, 6];

/** QueueName of each queueId, as the spec names them. */
export const CAPTURE_QUEUE_NAMES: Readonly<Record<CaptureQueueId, string>> =
  namesById(CAPTURE_QUEUE_NAME_LIST);


/** Column lengths shared by the entities, the migration and the truncation at enqueue. */
export const CAPTURE_LENGTHS = {
  guid: 36,
  name: 256,
  message: 1024,
  caseKeyValue: 1024,
  destination: 2048,
  eventName: 64,
  details: 1024,
  endpoint: 256,
  instance: 256,
  instrumentName: 256,
  instrumentType: 32,
  unit: 64,
  queueName: 64,
} as const;
