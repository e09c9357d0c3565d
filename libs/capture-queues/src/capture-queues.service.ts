import { Injectable } from '@nestjs/common';
import { Clock, inertText } from '@app/common';
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
}

export interface ArchiverWarningInput {
  entityAnalysisModelGuid: string;
  /** Null for BulkCopyArchiveBuffer. */
  entityAnalysisModelInstanceEntryGuid: string | null;
  /** ArchiverStage (1-4). */
  stageId: number;
  durationMicroseconds: number;
}

/** Whole non-negative microseconds; anything else (NaN, negative) becomes 0 rather than a refused row. */
function micros(n: number): number {
  return Number.isFinite(n) && n > 0 ? Math.min(Math.round(n), Number.MAX_SAFE_INTEGER) : 0;
}
const clip = (v: string, max: number): string => inertText(v, max) ?? '';

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
    const now = new Date(this.clock.now());
    return this.modelInvokeWarning.enqueue({
      EntityAnalysisModelGuid: clip(w.entityAnalysisModelGuid, L.guid),
      EntityAnalysisModelName: clip(w.entityAnalysisModelName, L.name),
      EntityAnalysisModelInstanceEntryGuid: clip(w.entityAnalysisModelInstanceEntryGuid, L.guid),
      Message: clip(w.message, L.message),
      ElapsedMicroseconds: micros(w.elapsedMicroseconds),
      SinceLastEntryMicroseconds: micros(w.sinceLastEntryMicroseconds),
      OccurredDate: w.occurredDate ?? now,
      CreatedDate: now,
    });
  }

  enqueueCaseCreationWarning(w: CaseCreationWarningInput): boolean {
    return this.caseCreationWarning.enqueue({
      CaseWorkflowGuid: clip(w.caseWorkflowGuid, L.guid),
      CaseWorkflowName: clip(w.caseWorkflowName, L.name),
      CaseKey: clip(w.caseKey, L.name),
      CaseKeyValue: clip(w.caseKeyValue, L.caseKeyValue),
      StageId: w.stageId,
      DurationMicroseconds: micros(w.durationMicroseconds),
      Destination: inertText(w.destination, L.destination),
      CreatedDate: new Date(this.clock.now()),
    });
  }

  enqueueArchiverWarning(w: ArchiverWarningInput): boolean {
    return this.archiverWarning.enqueue({
      EntityAnalysisModelGuid: clip(w.entityAnalysisModelGuid, L.guid),
      EntityAnalysisModelInstanceEntryGuid: inertText(w.entityAnalysisModelInstanceEntryGuid, L.guid),
      StageId: w.stageId,
      DurationMicroseconds: micros(w.durationMicroseconds),
      CreatedDate: new Date(this.clock.now()),
    });
  }

  enqueueCacheConnectionEvent(
    event: string,
    endpoint: string,
    details: string | null,
    occurredAt?: Date,
  ): boolean {
    return this.cacheConnectionEvent.enqueue(this.cacheEvent(event, endpoint, details, occurredAt));
  }

  enqueueCacheSentinelEvent(
    event: string,
    endpoint: string,
    details: string | null,
    occurredAt?: Date,
  ): boolean {
    return this.cacheSentinelEvent.enqueue(this.cacheEvent(event, endpoint, details, occurredAt));
  }

  private cacheEvent(
    event: string,
    endpoint: string,
    details: string | null,
    occurredAt?: Date,
  ): CacheEventEntry {
    const now = new Date(this.clock.now());
    return {
      EventName: clip(event, L.eventName),
      Endpoint: clip(endpoint, L.endpoint),
      Details: inertText(details, L.details),
      OccurredDate: occurredAt ?? now,
      CreatedDate: now,
    };
  }
}
