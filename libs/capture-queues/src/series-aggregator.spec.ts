import type { HrTime } from '@opentelemetry/api';
import { AggregationTemporality, DataPointType, type MetricData } from '@opentelemetry/sdk-metrics';
import { ValueType } from '@opentelemetry/api';
import { canonicalAttributes, SeriesAggregator } from './series-aggregator';

const t = (s: number): HrTime => [s, 0];
const descriptor = (name: string) => ({ name, description: '', unit: 'ms', valueType: ValueType.DOUBLE });

function sum(
  name: string,
  points: { attributes: Record<string, string | number>; value: number }[],
): MetricData {
  return {
    descriptor: descriptor(name),
    aggregationTemporality: AggregationTemporality.DELTA,
    dataPointType: DataPointType.SUM,
    isMonotonic: true,
    dataPoints: points.map((p) => ({ startTime: t(100), endTime: t(160), ...p })),
  };
}

function histogram(name: string, counts: number[], min: number, max: number, total: number): MetricData {
  return {
    descriptor: descriptor(name),
    aggregationTemporality: AggregationTemporality.DELTA,
    dataPointType: DataPointType.HISTOGRAM,
    dataPoints: [
      {
        startTime: t(100),
        endTime: t(160),
        attributes: { stage: 'BuildArchiveJson' },
        value: {
          buckets: { boundaries: [1, 10], counts },
          count: counts.reduce((a, b) => a + b, 0),
          sum: total,
          min,
          max,
        },
      },
    ],
  };
}

describe('SeriesAggregator', () => {
  it("keeps no row for a counter's interval with nothing counted (the zero every known series starts at)", () => {
    const a = new SeriesAggregator(10);
    a.foldMetric(sum('c', [{ attributes: { stage: 'Parse' }, value: 0 }]));
    expect(a.drain(new Date(0))).toEqual([]);
    a.foldMetric(
      sum('c', [
        { attributes: { stage: 'Parse' }, value: 0 },
        { attributes: { stage: 'x' }, value: 2 },
      ]),
    );
    expect(a.drain(new Date(0)).map((r) => [r.Attributes, r.Sum])).toEqual([['{"stage":"x"}', 2]]);
  });

  it('folds points of the same series (name + attribute set in any key order)', () => {
    const a = new SeriesAggregator(10);
    a.foldMetric(sum('c', [{ attributes: { x: '1', y: 2 }, value: 3 }]));
    a.foldMetric(sum('c', [{ attributes: { y: 2, x: '1' }, value: 4 }]));
    a.foldMetric(sum('c', [{ attributes: {}, value: 1 }]));
    const rows = a.drain(new Date(0));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({
      InstrumentName: 'c',
      InstrumentType: 'counter',
      Unit: 'ms',
      Attributes: '{"x":"1","y":2}',
      Count: 2,
      Sum: 7,
      Min: 3,
      Max: 4,
      Buckets: null,
      IntervalStartDate: new Date(100_000),
      IntervalEndDate: new Date(160_000),
    });
    expect(rows[1].Attributes).toBe('{}');
    expect(a.size).toBe(0);
  });

  it('merges histogram buckets, count, sum, min and max', () => {
    const a = new SeriesAggregator(10);
    a.foldMetric(histogram('h', [1, 2, 0], 0.5, 9, 12));
    a.foldMetric(histogram('h', [0, 1, 3], 2, 40, 90));
    const [row] = a.drain(new Date(0));
    expect(row).toMatchObject({ InstrumentType: 'histogram', Count: 7, Sum: 102, Min: 0.5, Max: 40 });
    expect(JSON.parse(row.Buckets ?? '')).toEqual({ boundaries: [1, 10], counts: [1, 3, 3] });
  });

  it('holds at most `limit` distinct series: the next series is dropped and counted, known ones still fold', () => {
    const limit = 10_000;
    const a = new SeriesAggregator(limit);
    a.foldMetric(
      sum(
        's',
        Array.from({ length: limit + 1 }, (_, i) => ({ attributes: { i }, value: 1 })),
      ),
    );
    a.foldMetric(sum('s', [{ attributes: { i: 0 }, value: 1 }]));
    a.foldMetric(sum('other', [{ attributes: {}, value: 1 }]));
    expect(a.size).toBe(limit);
    expect(a.takeDropped()).toBe(2);
    expect(a.takeDropped()).toBe(0);
    const rows = a.drain(new Date(0));
    expect(rows).toHaveLength(limit);
    expect(rows.find((r) => r.Attributes === '{"i":0}')?.Sum).toBe(2);
    expect(rows.some((r) => r.Attributes === `{"i":${limit}}`)).toBe(false);
  });

  it('writes attribute sets canonically', () => {
    expect(canonicalAttributes({ b: 1, a: 'x' })).toBe('{"a":"x","b":1}');
    expect(canonicalAttributes({})).toBe('{}');
  });
});
