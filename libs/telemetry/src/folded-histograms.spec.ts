import {
  AggregationTemporality,
  DataPointType,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type CollectionResult,
  type HistogramMetricData,
} from '@opentelemetry/sdk-metrics';
import { FoldedHistograms } from './folded-histograms';

const NAME = 'service.engine.stage.duration';

function folded(maxSeries = 256): FoldedHistograms {
  return new FoldedHistograms(
    [{ name: NAME, unit: 'ms', description: 'gaps', boundaries: [1, 10] }],
    'test-scope',
    'stage',
    maxSeries,
  );
}

function histograms(result: CollectionResult): HistogramMetricData[] {
  return result.resourceMetrics.scopeMetrics
    .flatMap((s) => s.metrics)
    .filter((m): m is HistogramMetricData => m.dataPointType === DataPointType.HISTOGRAM);
}

function point(result: CollectionResult, stage: string) {
  return histograms(result)
    .flatMap((m) => m.dataPoints)
    .find((p) => p.attributes.stage === stage)?.value;
}

/** A reader of the given temporality holding the producer, on its own MeterProvider. */
function reader(
  temporality: AggregationTemporality,
  producer: ReturnType<FoldedHistograms['deltaProducer']>,
) {
  const r = new PeriodicExportingMetricReader({
    exporter: new InMemoryMetricExporter(temporality),
    exportIntervalMillis: 3_600_000,
    metricProducers: [producer],
  });
  const provider = new MeterProvider({ readers: [r] });
  return { r, provider };
}

describe('FoldedHistograms', () => {
  it('folds values into buckets per series, with count, sum, min and max, through a real SDK reader', async () => {
    const h = folded();
    for (const v of [0.5, 1, 5, 50]) h.record(NAME, 'Parse', v);
    h.record(NAME, 'Activation', 2);
    h.bind(NAME, 'Parse')(3);
    const { r, provider } = reader(AggregationTemporality.DELTA, h.deltaProducer());
    try {
      const first = await r.collect();
      const [metric] = histograms(first);
      expect(metric.descriptor).toEqual(
        expect.objectContaining({ name: NAME, unit: 'ms', description: 'gaps' }),
      );
      expect(metric.aggregationTemporality).toBe(AggregationTemporality.DELTA);
      expect(first.resourceMetrics.scopeMetrics.map((s) => s.scope.name)).toContain('test-scope');
      // Upper bounds are inclusive, as in OpenTelemetry: 1 falls in the first bucket.
      expect(point(first, 'Parse')).toEqual({
        buckets: { boundaries: [1, 10], counts: [2, 2, 1] },
        sum: 59.5,
        count: 5,
        min: 0.5,
        max: 50,
      });
      expect(point(first, 'Activation')).toMatchObject({ count: 1, sum: 2, min: 2, max: 2 });
      // DELTA: nothing new, nothing exported.
      expect(histograms(await r.collect())).toEqual([]);
    } finally {
      await provider.shutdown();
    }
  });

  it('serves a DELTA reader and CUMULATIVE readers from the same records without one disturbing the other', async () => {
    const h = folded();
    const record = h.bind(NAME, 'Parse');
    const delta = h.deltaProducer();
    const cumulative = h.cumulativeProducer();
    const other = h.cumulativeProducer();

    record(2);
    record(20);
    expect(point(await cumulative.collect(), 'Parse')).toMatchObject({ count: 2, sum: 22, min: 2, max: 20 });
    const d1 = await delta.collect();
    expect(histograms(d1)[0].aggregationTemporality).toBe(AggregationTemporality.DELTA);
    expect(point(d1, 'Parse')).toMatchObject({ count: 2, sum: 22, min: 2, max: 20 });

    record(5);
    // The DELTA collection moved nothing out of the totals.
    const c2 = await cumulative.collect();
    expect(histograms(c2)[0].aggregationTemporality).toBe(AggregationTemporality.CUMULATIVE);
    expect(point(c2, 'Parse')).toEqual({
      buckets: { boundaries: [1, 10], counts: [0, 2, 1] },
      sum: 27,
      count: 3,
      min: 2,
      max: 20,
    });
    expect(point(await other.collect(), 'Parse')).toMatchObject({ count: 3, sum: 27 });
    // Nor did the CUMULATIVE collections take anything from the next interval: min and max are its own.
    expect(point(await delta.collect(), 'Parse')).toEqual({
      buckets: { boundaries: [1, 10], counts: [0, 1, 0] },
      sum: 5,
      count: 1,
      min: 5,
      max: 5,
    });
    // Totals start when the process did; each DELTA interval starts where the previous one ended.
    const c3 = histograms(await cumulative.collect())[0].dataPoints[0];
    expect(c3.startTime).toEqual(histograms(c2)[0].dataPoints[0].startTime);
  });

  it('keeps series bounded: past the limit, new attribute values share the overflow series', async () => {
    const h = folded(2);
    h.record(NAME, 'a', 1);
    h.record(NAME, 'b', 1);
    h.record(NAME, 'c', 1);
    h.record(NAME, 'd', 1);
    h.record(NAME, 'a', 1);
    const points = histograms(await h.cumulativeProducer().collect())[0].dataPoints;
    expect(points.map((p) => [p.attributes, p.value.count])).toEqual([
      [{ stage: 'a' }, 2],
      [{ stage: 'b' }, 1],
      [{ 'otel.metric.overflow': true }, 2],
    ]);
  });

  it('drops negative and NaN values as the SDK histogram does, and refuses unknown instruments and a second DELTA reader', async () => {
    const h = folded();
    h.record(NAME, 'Parse', -1);
    h.record(NAME, 'Parse', Number.NaN);
    h.record(NAME, 'Parse', 0);
    expect(point(await h.cumulativeProducer().collect(), 'Parse')).toMatchObject({ count: 1, sum: 0 });
    expect(() => h.record('service.other', 'Parse', 1)).toThrow(/unknown instrument/);
    h.deltaProducer();
    expect(() => h.deltaProducer()).toThrow(/already taken/);
    expect(
      () =>
        new FoldedHistograms([{ name: NAME, unit: 'ms', description: '', boundaries: [5, 1] }], 'test-scope'),
    ).toThrow(/ascend/);
  });
});

describe('FoldedHistograms: known series from the start', () => {
  it('a bound series is in every CUMULATIVE collection at count 0, never in a DELTA one until recorded', async () => {
    const h = folded();
    const delta = h.deltaProducer();
    const record = h.bind(NAME, 'Parse');
    const zero = point(await h.cumulativeProducer().collect(), 'Parse');
    expect(zero).toMatchObject({ count: 0, sum: 0, min: undefined, max: undefined });
    expect(zero?.buckets.counts).toEqual([0, 0, 0]);
    expect(histograms(await delta.collect())).toEqual([]);
    record(5);
    expect(point(await delta.collect(), 'Parse')).toMatchObject({ count: 1, min: 5, max: 5 });
    expect(point(await h.cumulativeProducer().collect(), 'Parse')).toMatchObject({ count: 1, sum: 5 });
  });
});
