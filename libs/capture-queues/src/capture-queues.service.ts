import { Injectable } from '@nestjs/common';
import { Clock } from '@app/runtime';
import { inertText } from '@app/input-rules';
import { BoundedQueue } from './bounded-queue';
import {
  CAPTURE_LENGTHS as L,
  CAPTURE_QUEUE_CAPACITY,
  CaptureQueueId,
  OPEN_TELEMETRY_SERIES_LIMIT,
} from './capture-queue-id';
import type {
  ArchiverWarningEntry,
  CacheEventEntry,
  CaseCreationWarningEntry,
  ModelInvokeWarningEntry,
  OpenTelemetryMetricEntry,
} from './entities';
import { SeriesAggregator } from './series-aggregator';

export interface ModelInvokeWarningInput {
  entityAnalysisModelGuid: string;
  entityAnalysisModelName: string;
  entityAnalysisModelInstanceEntryGuid: string;
  /** The trace point's message text. */
  message: string;
  elapsedMicroseconds: number;
  sinceLastEntryMicroseconds: number;
  /** When the trace point happened; default now. */
  occurredDate?: Date;
}

export interface CaseCreationWarningInput {
  caseWorkflowGuid: string;
  caseWorkflowName: string;
  caseKey: string;
  caseKeyValue: string;
  /** CaseCreationStage (1-4). */
  stageId: number;
  durationMicroseconds: number;
  /** Notification destination or HttpEndpoint URL; null for the other stages. */
  destination?: string | null;
  /** Activations the slow run handled (a batch for stages 1 and 2); default 1. */
  batchSize?: number;
}

export interface ArchiverWarningInput {
  entityAnalysisModelGuid: string;
  /** Null for BulkCopyArchiveBuffer. */
  entityAnalysisModelInstanceEntryGuid: string | null;
  /** ArchiverStage (1-4). */
  stageId: number;
  durationMicroseconds: number;
  /** Rows the slow run handled (a batch for BulkCopyArchiveBuffer); default 1. */
  batchSize?: number;
}

/** Whole non-negative microseconds; anything else (NaN, negative) becomes 0 rather than a refused row. */
function micros(n: unknown): number {
  return typeof n === 'number' && Number.isFinite(n) && n > 0
    ? Math.min(Math.round(n), Number.MAX_SAFE_INTEGER)
    : 0;
}
/** Inert text cut to its column; tolerates what a loosely typed caller might pass at run time. */
const clip = (v: unknown, max: number): string =>
  typeof v === 'string' && isPlainText(v, max) ? v : (inertText(textOf(v), max) ?? '');

/**
 * The common case, checked without a regular expression or a copy: text that already fits its column and
 * holds none of the characters inertText replaces (C0, DEL, C1, U+2028, U+2029).
 */
function isPlainText(s: string, max: number): boolean {
  if (s.length > max) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c === 0x2028 || c === 0x2029) return false;
  }
  return true;
}
const clipOrNull = (v: unknown, max: number): string | null =>
  v === null || v === undefined ? null : clip(v, max);
function textOf(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
    case 'bigint':
    case 'boolean':
      return String(v);
    case 'object':
      return v === null ? '' : (JSON.stringify(v) ?? '');
    default:
      return '';
  }
}
const validDate = (v: unknown, fallback: Date): Date =>
  v instanceof Date && !Number.isNaN(v.getTime()) ? v : fallback;
const stageOf = (v: unknown): number => (Number.isSafeInteger(v) ? (v as number) : 0);
/** A run's item count: a positive whole number within the column (an INTEGER), else 1. */
const batchSizeOf = (v: unknown): number =>
  Number.isSafeInteger(v) && (v as number) > 0 ? Math.min(v as number, 2_147_483_647) : 1;

/**
 * The six bounded capture queues of this node (spec: Events, queue mechanics). The enqueue methods are
 * what producers call: O(1), never blocking, never throwing; text is made inert and cut to its column so a
 * row can never be refused by the database later. false means the queue was full (dropped and counted).
 */
@Injectable()
export class CaptureQueues {
  readonly modelInvokeWarning = new BoundedQueue<ModelInvokeWarningEntry>(CAPTURE_QUEUE_CAPACITY);
  readonly caseCreationWarning = new BoundedQueue<CaseCreationWarningEntry>(CAPTURE_QUEUE_CAPACITY);
  readonly archiverWarning = new BoundedQueue<ArchiverWarningEntry>(CAPTURE_QUEUE_CAPACITY);
  readonly cacheSentinelEvent = new BoundedQueue<CacheEventEntry>(CAPTURE_QUEUE_CAPACITY);
  readonly cacheConnectionEvent = new BoundedQueue<CacheEventEntry>(CAPTURE_QUEUE_CAPACITY);
  /** Folded series waiting to be written (the aggregation moves here at each flush). */
  readonly openTelemetryMetric = new BoundedQueue<OpenTelemetryMetricEntry>(OPEN_TELEMETRY_SERIES_LIMIT);
  /** The current interval's aggregation: at most 10000 distinct series. */
  readonly openTelemetrySeries = new SeriesAggregator(OPEN_TELEMETRY_SERIES_LIMIT);

  constructor(private readonly clock: Clock) {}

  /** The ring buffer of a queueId. */
  queue(id: CaptureQueueId): BoundedQueue<object> {
    switch (id) {
      case CaptureQueueId.ModelInvokeWarning:
        return this.modelInvokeWarning;
      case CaptureQueueId.CaseCreationWarning:
        return this.caseCreationWarning;
      case CaptureQueueId.ArchiverWarning:
        return this.archiverWarning;
      case CaptureQueueId.CacheSentinelEvent:
        return this.cacheSentinelEvent;
      case CaptureQueueId.CacheConnectionEvent:
        return this.cacheConnectionEvent;
      case CaptureQueueId.OpenTelemetryMetric:
        return this.openTelemetryMetric;
    }
  }

  enqueueModelInvokeWarning(w: ModelInvokeWarningInput): boolean {
    return this.put(this.modelInvokeWarning, modelInvokeWarningEntry, w);
  }

  enqueueCaseCreationWarning(w: CaseCreationWarningInput): boolean {
    return this.put(this.caseCreationWarning, caseCreationWarningEntry, w);
  }

  enqueueArchiverWarning(w: ArchiverWarningInput): boolean {
    return this.put(this.archiverWarning, archiverWarningEntry, w);
  }

  enqueueCacheConnectionEvent(
    event: string,
    endpoint: string,
    details: string | null,
    occurredAt?: Date,
  ): boolean {
    return this.put(this.cacheConnectionEvent, cacheEventEntry, { event, endpoint, details, occurredAt });
  }

  enqueueCacheSentinelEvent(
    event: string,
    endpoint: string,
    details: string | null,
    occurredAt?: Date,
  ): boolean {
    return this.put(this.cacheSentinelEvent, cacheEventEntry, { event, endpoint, details, occurredAt });
  }

  /**
   * Builds and enqueues an entry (the builders are module functions: no closure per call). A full queue
   * counts the drop without building anything; whatever might go wrong building an entry counts as a drop
   * too and never reaches the caller.
   */
  private put<I, T>(queue: BoundedQueue<T>, build: (input: I, now: Date) => T, input: I): boolean {
    if (queue.full) {
      queue.countDropped(1);
      return false;
    }
    try {
      return queue.enqueue(build(input, new Date(this.clock.now())));
    } catch {
      queue.countDropped(1);
      return false;
    }
  }
}

function modelInvokeWarningEntry(w: ModelInvokeWarningInput, now: Date): ModelInvokeWarningEntry {
  return {
    EntityAnalysisModelGuid: clip(w.entityAnalysisModelGuid, L.guid),
    EntityAnalysisModelName: clip(w.entityAnalysisModelName, L.name),
    EntityAnalysisModelInstanceEntryGuid: clip(w.entityAnalysisModelInstanceEntryGuid, L.guid),
    Message: clip(w.message, L.message),
    ElapsedMicroseconds: micros(w.elapsedMicroseconds),
    SinceLastEntryMicroseconds: micros(w.sinceLastEntryMicroseconds),
    OccurredDate: validDate(w.occurredDate, now),
    CreatedDate: now,
  };
}

function caseCreationWarningEntry(w: CaseCreationWarningInput, now: Date): CaseCreationWarningEntry {
  return {
    CaseWorkflowGuid: clip(w.caseWorkflowGuid, L.guid),
    CaseWorkflowName: clip(w.caseWorkflowName, L.name),
    CaseKey: clip(w.caseKey, L.name),
    CaseKeyValue: clip(w.caseKeyValue, L.caseKeyValue),
    StageId: stageOf(w.stageId),
    DurationMicroseconds: micros(w.durationMicroseconds),
    Destination: clipOrNull(w.destination, L.destination),
    BatchSize: batchSizeOf(w.batchSize),
    CreatedDate: now,
  };
}

function archiverWarningEntry(w: ArchiverWarningInput, now: Date): ArchiverWarningEntry {
  return {
    EntityAnalysisModelGuid: clip(w.entityAnalysisModelGuid, L.guid),
    EntityAnalysisModelInstanceEntryGuid: clipOrNull(w.entityAnalysisModelInstanceEntryGuid, L.guid),
    StageId: stageOf(w.stageId),
    DurationMicroseconds: micros(w.durationMicroseconds),
    BatchSize: batchSizeOf(w.batchSize),
    CreatedDate: now,
  };
}

function cacheEventEntry(
  e: { event: string; endpoint: string; details: string | null; occurredAt?: Date },
  now: Date,
): CacheEventEntry {
  return {
    EventName: clip(e.event, L.eventName),
    Endpoint: clip(e.endpoint, L.endpoint),
    Details: clipOrNull(e.details, L.details),
    OccurredDate: validDate(e.occurredAt, now),
    CreatedDate: now,
  };
}
