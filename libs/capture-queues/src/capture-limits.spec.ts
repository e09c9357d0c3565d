import 'reflect-metadata';
import { FactoryProvider, Logger } from '@nestjs/common';
import { MODULE_METADATA } from '@nestjs/common/constants';
import { ValueType } from '@opentelemetry/api';
import {
  AggregationTemporality,
  DataPointType,
  MeterProvider,
  type MetricData,
} from '@opentelemetry/sdk-metrics';
import type { EntityTarget, ObjectLiteral } from 'typeorm';
import { CAPTURE_QUEUE_SETTINGS, loadSettings, sliceValues } from '@app/config';
import { Clock, ManualClock } from '@app/runtime';
import { CaptureFlusher, type FlushReport } from './capture-flusher';
import { CaptureQueueId } from './capture-queue-id';
import { CaptureMetricReader } from './capture-metric-reader';
import { CaptureQueues } from './capture-queues.service';
import { CaptureQueuesModule } from './capture-queues.module';
import { CaptureWriter } from './capture.repository';
import { OpenTelemetryMetric, type OpenTelemetryMetricEntry } from './entities';

/**
 * The spec's capture-queue numbers stated as literals (spec: Events, queue mechanics; Limits), observed
 * through the code the service runs: the CaptureQueues the module provides, the flush and its
 * CaptureQueueHealth rows, and the flusher as the module's own factory builds it from the settings.
 */
const CAPACITY = 20_000;
const SERIES = 10_000;
const ONE_MINUTE = 60_000;

/** Keeps what the flush writes, in memory. */
class MemoryWriter extends CaptureWriter {
  readonly tables = new Map<EntityTarget<ObjectLiteral>, object[]>();
  insert(table: EntityTarget<ObjectLiteral>, rows: readonly object[]): Promise<void> {
    this.tables.set(table, [...(this.tables.get(table) ?? []), ...rows]);
    return Promise.resolve();
  }
  landed(): Promise<boolean> {
    return Promise.resolve(false);
  }
  rows<T>(table: EntityTarget<ObjectLiteral>): T[] {
    return (this.tables.get(table) ?? []) as T[];
  }
}

const clock = new ManualClock(Date.UTC(2026, 0, 1));
const healthOf = (report: FlushReport, queueId: CaptureQueueId) =>
  report.health.find((h) => h.QueueId === queueId);

/** One producer per warning/event queue: its queueId and the enqueue a producer calls. */
const PRODUCERS: [string, CaptureQueueId, (q: CaptureQueues, i: number) => boolean][] = [
  [
    'ModelInvokeWarning',
    1,
    (q, i) =>
      q.enqueueModelInvokeWarning({
        entityAnalysisModelGuid: 'g',
        entityAnalysisModelName: 'm',
        entityAnalysisModelInstanceEntryGuid: 'e',
        message: `m${i}`,
        elapsedMicroseconds: i,
        sinceLastEntryMicroseconds: i,
      }),
  ],
  [
    'CaseCreationWarning',
    2,
    (q, i) =>
      q.enqueueCaseCreationWarning({
        caseWorkflowGuid: 'w',
        caseWorkflowName: 'W',
        caseKey: 'AccountId',
        caseKeyValue: `v${i}`,
        stageId: 1,
        durationMicroseconds: i,
      }),
  ],
  [
    'ArchiverWarning',
    3,
    (q, i) =>
      q.enqueueArchiverWarning({
        entityAnalysisModelGuid: 'g',
        entityAnalysisModelInstanceEntryGuid: null,
        stageId: 4,
        durationMicroseconds: i,
      }),
  ],
  ['CacheSentinelEvent', 4, (q, i) => q.enqueueCacheSentinelEvent('+sdown', `h:${i}`, null)],
  ['CacheConnectionEvent', 5, (q, i) => q.enqueueCacheConnectionEvent('error', `h:${i}`, null)],
];

/** A counter's points, one per attribute set, as the SDK hands them to a reader. */
function counter(name: string, attributeSets: Record<string, number>[]): MetricData {
  return {
    descriptor: { name, description: '', unit: '1', valueType: ValueType.INT },
    aggregationTemporality: AggregationTemporality.DELTA,
    dataPointType: DataPointType.SUM,
    isMonotonic: true,
    dataPoints: attributeSets.map((attributes) => ({
      attributes,
      startTime: [1, 0],
      endTime: [2, 0],
      value: 1,
    })),
  };
}

describe('capture queue limits (spec: Limits — 20000 entries, 10000 distinct series)', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it.each(PRODUCERS)(
    '%s (queueId %d) holds 20000 entries: the 20001st is dropped and counted in DroppedCount',
    async (_name, queueId, produce) => {
      const queues = new CaptureQueues(clock);
      const writer = new MemoryWriter();
      const flusher = new CaptureFlusher(queues, writer, null, clock, { instance: 'n', intervalMs: 10 });
      let accepted = 0;
      for (let i = 0; i < CAPACITY; i++) if (produce(queues, i)) accepted++;
      expect(accepted).toBe(CAPACITY);
      expect(queues.queue(queueId).depth).toBe(CAPACITY);
      expect(produce(queues, CAPACITY)).toBe(false);
      expect(queues.queue(queueId).depth).toBe(CAPACITY);

      const report = await flusher.flush();
      expect(report.written[queueId]).toBe(CAPACITY);
      expect(healthOf(report, queueId)).toMatchObject({ QueueDepth: 0, DroppedCount: 1 });
      // The count is per interval: the next flush starts again from zero.
      expect(healthOf(await flusher.flush(), queueId)).toMatchObject({ DroppedCount: 0 });
    },
  );

  it('OpenTelemetryMetric folds at most 10000 distinct series an interval: the 10001st is dropped and counted, a known series still folds', async () => {
    const queues = new CaptureQueues(clock);
    const writer = new MemoryWriter();
    const flusher = new CaptureFlusher(queues, writer, null, clock, { instance: 'n', intervalMs: 10 });
    const sets = Array.from({ length: SERIES }, (_, i) => ({ i }));
    queues.openTelemetrySeries.foldMetric(counter('spec.series', sets));
    expect(queues.openTelemetrySeries.size).toBe(SERIES);
    // One more distinct series, and one more point of the first.
    queues.openTelemetrySeries.foldMetric(counter('spec.series', [{ i: SERIES }, { i: 0 }]));
    expect(queues.openTelemetrySeries.size).toBe(SERIES);

    const report = await flusher.flush();
    expect(healthOf(report, 6)).toMatchObject({ DroppedCount: 1 });
    const rows = writer.rows<OpenTelemetryMetricEntry>(OpenTelemetryMetric);
    expect(rows).toHaveLength(SERIES);
    expect(rows.find((r) => r.Attributes === '{"i":0}')?.Sum).toBe(2);
    expect(rows.find((r) => r.Attributes === `{"i":${SERIES}}`)).toBeUndefined();
  });

  it('through the metric SDK and the capture reader: 10001 distinct series measured, 10000 written, 1 dropped', async () => {
    const queues = new CaptureQueues(clock);
    const writer = new MemoryWriter();
    const reader = new CaptureMetricReader();
    const provider = new MeterProvider({ readers: [reader] });
    try {
      const flusher = new CaptureFlusher(queues, writer, reader, clock, { instance: 'n', intervalMs: 10 });
      const measured = provider.getMeter('spec').createCounter('spec.sdk.series');
      for (let i = 0; i <= SERIES; i++) measured.add(1, { i });
      const report = await flusher.flush();
      const rows = writer
        .rows<OpenTelemetryMetricEntry>(OpenTelemetryMetric)
        .filter((r) => r.InstrumentName === 'spec.sdk.series');
      expect(rows).toHaveLength(SERIES);
      expect(healthOf(report, 6)).toMatchObject({ DroppedCount: 1 });
    } finally {
      await provider.shutdown();
    }
  });
});

describe('capture flush once a minute (spec: Limits — capture queue flush once a minute)', () => {
  afterEach(() => jest.useRealTimers());

  /** The flusher exactly as CaptureQueuesModule's factory makes it, from settings given no environment. */
  function flusherFromModule(queues: CaptureQueues, writer: CaptureWriter): CaptureFlusher {
    const providers = Reflect.getMetadata(MODULE_METADATA.PROVIDERS, CaptureQueuesModule) as unknown[];
    const factory = providers.find(
      (p): p is FactoryProvider<CaptureFlusher> =>
        typeof p === 'object' && p !== null && 'provide' in p && p.provide === CaptureFlusher,
    );
    if (!factory) throw new Error('CaptureQueuesModule provides no CaptureFlusher factory');
    const settings = loadSettings({});
    const instances = new Map<unknown, unknown>([
      [CaptureQueues, queues],
      [CaptureWriter, writer],
      [CaptureMetricReader, null],
      [Clock, clock],
      [CAPTURE_QUEUE_SETTINGS.token, sliceValues(settings, CAPTURE_QUEUE_SETTINGS)],
    ]);
    const args = (factory.inject ?? []).map((token) => {
      if (!instances.has(token)) throw new Error('CaptureFlusher injects something this test does not give');
      return instances.get(token);
    });
    return factory.useFactory(...args) as CaptureFlusher;
  }

  it('CaptureQueueFlushIntervalMilliseconds defaults to 60000, and the module flusher writes every 60000 ms', async () => {
    expect(loadSettings({}).CaptureQueueFlushIntervalMilliseconds).toBe(ONE_MINUTE);
    jest.useFakeTimers({
      doNotFake: [
        'nextTick',
        'queueMicrotask',
        'setImmediate',
        'clearImmediate',
        'Date',
        'hrtime',
        'performance',
      ],
    });
    const queues = new CaptureQueues(clock);
    const writer = new MemoryWriter();
    const flusher = flusherFromModule(queues, writer);
    const reports: FlushReport[] = [];
    let flushed: () => void = () => undefined;
    flusher.onFlushed((r) => {
      reports.push(r);
      flushed();
    });
    const nextFlush = () => new Promise<void>((resolve) => (flushed = resolve));
    /** Lets every settled promise run (setImmediate is real here): what a flush started would have done. */
    const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

    flusher.start();
    for (const minute of [1, 2]) {
      // The next flush is scheduled when the previous one has ended (its finally): let it be.
      await settle();
      await jest.advanceTimersByTimeAsync(ONE_MINUTE - 1);
      await settle();
      expect(reports).toHaveLength(minute - 1);
      const next = nextFlush();
      await jest.advanceTimersByTimeAsync(1);
      await next;
      expect(reports).toHaveLength(minute);
      expect(reports[minute - 1].health).toHaveLength(6);
    }
    await flusher.stop();
  });
});
