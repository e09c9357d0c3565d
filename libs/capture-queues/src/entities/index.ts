import { ArchiverWarning } from './archiver-warning.entity';
import { CaptureBatch } from './capture-batch.entity';
import { CacheConnectionEvent, CacheSentinelEvent } from './cache-event.entity';
import { CaptureQueueHealth } from './capture-queue-health.entity';
import { CaseCreationWarning } from './case-creation-warning.entity';
import { ModelInvokeWarning } from './model-invoke-warning.entity';
import { OpenTelemetryMetric } from './open-telemetry-metric.entity';

export {
  ArchiverWarning,
  CaptureBatch,
  CacheConnectionEvent,
  CacheSentinelEvent,
  CaptureQueueHealth,
  CaseCreationWarning,
  ModelInvokeWarning,
  OpenTelemetryMetric,
};

export const CAPTURE_ENTITIES = [
  ModelInvokeWarning,
  CaseCreationWarning,
  ArchiverWarning,
  CacheSentinelEvent,
  CacheConnectionEvent,
  OpenTelemetryMetric,
  CaptureQueueHealth,
  CaptureBatch,
];

/** A queue entry: the row without its generated Id and the Instance stamped at write time. */
export type CaptureEntry<E> = Omit<E, 'Id' | 'Instance'>;
export type ModelInvokeWarningEntry = CaptureEntry<ModelInvokeWarning>;
export type CaseCreationWarningEntry = CaptureEntry<CaseCreationWarning>;
export type ArchiverWarningEntry = CaptureEntry<ArchiverWarning>;
export type CacheEventEntry = CaptureEntry<CacheConnectionEvent>;
export type OpenTelemetryMetricEntry = CaptureEntry<OpenTelemetryMetric>;
export type CaptureQueueHealthEntry = CaptureEntry<CaptureQueueHealth>;
