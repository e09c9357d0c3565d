import type { Attributes, HrTime } from '@opentelemetry/api';
import { DataPointType, type MetricData, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { inertText } from '@app/input-rules';
import { CAPTURE_LENGTHS } from './capture-queue-id';
import type { OpenTelemetryMetricEntry } from './entities';

type HistogramValue = Extract<
  MetricData,
  { dataPointType: DataPointType.HISTOGRAM }
>['dataPoints'][number]['value'];

interface Series {
  name: string;
  type: string;
  unit: string;
  attributes: string;
  count: number;
  sum: number;
  min: number | null;
  max: number | null;
  boundaries: number[] | null;
  counts: number[] | null;
  startMs: number;
  endMs: number;
}

const hrToMs = (t: HrTime): number => t[0] * 1000 + t[1] / 1e6;

/** The attribute set as JSON with sorted keys, so equal sets give equal series keys. */
export function canonicalAttributes(attributes: Attributes): string {
  const keys = Object.keys(attributes);
  if (keys.length === 0) return '{}';
  keys.sort();
  const out: Record<string, unknown> = {};
  for (const k of keys) out[k] = attributes[k];
  return JSON.stringify(out);
}

function instrumentType(metric: MetricData): string {
  switch (metric.dataPointType) {
    case DataPointType.SUM:
      return metric.isMonotonic ? 'counter' : 'updowncounter';
    case DataPointType.GAUGE:
      return 'gauge';
    case DataPointType.HISTOGRAM:
      return 'histogram';
    case DataPointType.EXPONENTIAL_HISTOGRAM:
      return 'exponentialhistogram';
  }
}

const minOf = (a: number | null, b: number | null | undefined): number | null =>
  b === undefined || b === null ? a : a === null ? b : Math.min(a, b);
const maxOf = (a: number | null, b: number | null | undefined): number | null =>
  b === undefined || b === null ? a : a === null ? b : Math.max(a, b);

/**
 * The OpenTelemetryMetric queue's aggregation (spec: Events, Limits): metric points folded per series
 * (instrument name + attribute set) for the interval, at most `limit` distinct series; a point of a series
 * beyond the limit is dropped and counted.
 */
export class SeriesAggregator {
  private readonly series = new Map<string, Series>();
  private dropped = 0;

  constructor(readonly limit: number) {}

  /** Distinct series held. */
  get size(): number {
    return this.series.size;
  }

  /** Points dropped since the previous call; resets the count. */
  takeDropped(): number {
    const n = this.dropped;
    this.dropped = 0;
    return n;
  }

  /** Folds every data point of one collection. */
  foldCollection(resourceMetrics: ResourceMetrics): void {
    for (const scope of resourceMetrics.scopeMetrics) {
      for (const metric of scope.metrics) this.foldMetric(metric);
    }
  }

  foldMetric(metric: MetricData): void {
    const name = metric.descriptor.name;
    const unit = metric.descriptor.unit;
    const type = instrumentType(metric);
    switch (metric.dataPointType) {
      case DataPointType.SUM:
      case DataPointType.GAUGE:
        for (const p of metric.dataPoints) {
          // A counter's interval with nothing counted (the zero every known series starts with, so that the
          // exporters show it from the first scrape) is not a measurement worth a row.
          if (metric.dataPointType === DataPointType.SUM && metric.isMonotonic && p.value === 0) continue;
          const s = this.seriesFor(name, type, unit, p.attributes, p.startTime, p.endTime);
          if (!s) continue;
          s.count += 1;
          s.sum += p.value;
          s.min = minOf(s.min, p.value);
          s.max = maxOf(s.max, p.value);
        }
        return;
      case DataPointType.HISTOGRAM:
        for (const p of metric.dataPoints) {
          const s = this.seriesFor(name, type, unit, p.attributes, p.startTime, p.endTime);
          if (s) foldHistogram(s, p.value);
        }
        return;
      case DataPointType.EXPONENTIAL_HISTOGRAM:
        // Folded without buckets: exponential scales do not merge by simple addition.
        for (const p of metric.dataPoints) {
          const s = this.seriesFor(name, type, unit, p.attributes, p.startTime, p.endTime);
          if (!s) continue;
          s.count += p.value.count;
          s.sum += p.value.sum ?? 0;
          s.min = minOf(s.min, p.value.min);
          s.max = maxOf(s.max, p.value.max);
        }
        return;
    }
  }

  /** Removes every series as OpenTelemetryMetric entries stamped `createdDate`. */
  drain(createdDate: Date): OpenTelemetryMetricEntry[] {
    const out: OpenTelemetryMetricEntry[] = [];
    for (const s of this.series.values()) {
      out.push({
        InstrumentName: s.name,
        InstrumentType: s.type,
        Unit: s.unit,
        Attributes: s.attributes,
        Count: s.count,
        Sum: s.sum,
        Min: s.min,
        Max: s.max,
        Buckets:
          s.boundaries && s.counts ? JSON.stringify({ boundaries: s.boundaries, counts: s.counts }) : null,
        IntervalStartDate: new Date(Math.floor(s.startMs)),
        IntervalEndDate: new Date(Math.floor(s.endMs)),
        CreatedDate: createdDate,
      });
    }
    this.series.clear();
    return out;
  }

  private seriesFor(
    name: string,
    type: string,
    unit: string,
    attributes: Attributes,
    start: HrTime,
    end: HrTime,
  ): Series | undefined {
    const attributesJson = canonicalAttributes(attributes);
    const key = `${name}\u0000${attributesJson}`;
    let s = this.series.get(key);
    const startMs = hrToMs(start);
    const endMs = hrToMs(end);
    if (!s) {
      if (this.series.size >= this.limit) {
        this.dropped++;
        return undefined;
      }
      s = {
        name: inertText(name, CAPTURE_LENGTHS.instrumentName) ?? '',
        type,
        unit: inertText(unit, CAPTURE_LENGTHS.unit) ?? '',
        attributes: attributesJson,
        count: 0,
        sum: 0,
        min: null,
        max: null,
        boundaries: null,
        counts: null,
        startMs,
        endMs,
      };
      this.series.set(key, s);
    } else {
      s.startMs = Math.min(s.startMs, startMs);
      s.endMs = Math.max(s.endMs, endMs);
    }
    return s;
  }
}

function foldHistogram(s: Series, h: HistogramValue): void {
  s.count += h.count;
  s.sum += h.sum ?? 0;
  s.min = minOf(s.min, h.min);
  s.max = maxOf(s.max, h.max);
  const { boundaries, counts } = h.buckets;
  if (!s.boundaries || !s.counts) {
    s.boundaries = [...boundaries];
    s.counts = [...counts];
  } else if (s.counts.length === counts.length) {
    for (let i = 0; i < counts.length; i++) s.counts[i] += counts[i];
  }
}
