import { ValueType, type HrTime } from '@opentelemetry/api';
import { emptyResource } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  DataPointType,
  type CollectionResult,
  type HistogramMetricData,
  type MetricProducer,
} from '@opentelemetry/sdk-metrics';

/** One histogram instrument folded in place. */
export interface FoldedHistogramInstrument {
  name: string;
  unit: string;
  description: string;
  /** Explicit bucket upper bounds, ascending. */
  boundaries: readonly number[];
  /** Series kept for this instrument before new ones share the overflow series (default: the instance's). */
  maxSeries?: number;
}

type SeriesAttributes = Readonly<Record<string, string | number | boolean>>;

/**
 * The word Prometheus names carry for a unit (OpenTelemetry's Prometheus compatibility: a histogram in ms is
 * `…_milliseconds`), for the units this service measures in.
 */
const PROMETHEUS_UNIT_WORDS: Readonly<Record<string, string>> = { ms: 'milliseconds', s: 'seconds' };

/** What the SDK does past its cardinality limit: later attribute sets share one overflow series. */
const OVERFLOW_ATTRIBUTES = Object.freeze({ 'otel.metric.overflow': true });

/** Counts, sum, count, min and max of one series over some span of time. */
class Tally {
  readonly counts: number[];
  sum = 0;
  count = 0;
  min = Infinity;
  max = -Infinity;

  constructor(buckets: number) {
    this.counts = new Array<number>(buckets).fill(0);
  }

  addTally(o: Tally): void {
    for (let i = 0; i < this.counts.length; i++) this.counts[i] += o.counts[i];
    this.sum += o.sum;
    this.count += o.count;
    if (o.min < this.min) this.min = o.min;
    if (o.max > this.max) this.max = o.max;
  }

  reset(): void {
    this.counts.fill(0);
    this.sum = 0;
    this.count = 0;
    this.min = Infinity;
    this.max = -Infinity;
  }

  value(boundaries: readonly number[]) {
    return {
      buckets: { boundaries: [...boundaries], counts: [...this.counts] },
      sum: this.sum,
      count: this.count,
      // No value yet: no min or max (OTLP leaves them out; Prometheus never shows them).
      min: this.count ? this.min : undefined,
      max: this.count ? this.max : undefined,
    };
  }
}

/**
 * A series keeps what was recorded since the last DELTA collection (`pending`, which the hot path writes)
 * apart from what earlier DELTA collections already handed out (`folded`). The DELTA view exports `pending`
 * and folds it into `folded`; a CUMULATIVE view exports `folded + pending` and changes nothing. So one
 * record serves both kinds of reader, and neither can disturb the other.
 */
interface Series {
  attributes: SeriesAttributes;
  pending: Tally;
  folded: Tally;
}

interface Instrument {
  spec: FoldedHistogramInstrument;
  series: Map<string, Series>;
}

/** The instrument's name with its unit's word appended, once (`….duration` in ms: `….duration.milliseconds`). */
export function prometheusName(spec: Pick<FoldedHistogramInstrument, 'name' | 'unit'>): string {
  const word = PROMETHEUS_UNIT_WORDS[spec.unit];
  return word && !spec.name.endsWith(`.${word}`) ? `${spec.name}.${word}` : spec.name;
}

function hrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}

/**
 * Histograms folded in place, for hot paths: a record through a bound recorder is a bucket search and five
 * comparisons or additions, where the SDK's Histogram.record hashes its attributes and looks the series up
 * on every call (measured by `npm run bench:invoke`).
 *
 * The same data reaches every MetricReader through MetricProducers: one DELTA producer (the capture reader,
 * which stores each interval) and any number of CUMULATIVE ones (Prometheus and OTLP export). Series are
 * one per (instrument, attribute value) and bounded: past `maxSeries` per instrument, new values share the
 * overflow series, as the SDK does past its cardinality limit.
 */
export class FoldedHistograms {
  private readonly instruments = new Map<string, Instrument>();
  private readonly startTime = Date.now();
  private deltaStart = this.startTime;
  private deltaTaken = false;

  constructor(
    instruments: readonly FoldedHistogramInstrument[],
    private readonly scope: string,
    private readonly attributeKey = 'stage',
    private readonly maxSeries = 256,
  ) {
    for (const spec of instruments) {
      const sorted = spec.boundaries.every((b, i) => i === 0 || b > spec.boundaries[i - 1]);
      if (!sorted) throw new Error(`${spec.name}: bucket boundaries must ascend`);
      this.instruments.set(spec.name, { spec, series: new Map() });
    }
  }

  /** A recorder for one series (`attributeKey` = `attributeValue`), looked up once: the hot path's way in. */
  bind(instrument: string, attributeValue: string): (value: number) => void {
    return this.bindSeries(instrument, attributeValue, { [this.attributeKey]: attributeValue });
  }

  /** A recorder for the series of these attributes, known by `key` (one key per distinct attribute set). */
  bindSeries(instrument: string, key: string, attributes: SeriesAttributes): (value: number) => void {
    const { spec, series } = this.instrument(instrument);
    let s = series.get(key);
    if (!s) {
      const overflow = series.size >= (spec.maxSeries ?? this.maxSeries);
      const seriesKey = overflow ? '\u0000overflow' : key;
      s = series.get(seriesKey);
      if (!s) {
        const buckets = spec.boundaries.length + 1;
        s = {
          attributes: overflow ? OVERFLOW_ATTRIBUTES : Object.freeze({ ...attributes }),
          pending: new Tally(buckets),
          folded: new Tally(buckets),
        };
        series.set(seriesKey, s);
      }
    }
    const tally = s.pending;
    const b = spec.boundaries;
    return (value: number) => {
      if (!(value >= 0)) return; // negative or NaN: the SDK's histogram drops these too
      let i = 0;
      while (i < b.length && value > b[i]) i++;
      tally.counts[i]++;
      tally.sum += value;
      tally.count++;
      if (value < tally.min) tally.min = value;
      if (value > tally.max) tally.max = value;
    };
  }

  /** Records one value; binds on every call, so hot paths should keep a bound recorder instead. */
  record(instrument: string, attributeValue: string, value: number): void {
    this.bind(instrument, attributeValue)(value);
  }

  /**
   * The producer for the one DELTA reader: each collection holds what was recorded since the previous one.
   * A second DELTA reader would see only what the first left, so asking twice is a programming error.
   */
  deltaProducer(): MetricProducer {
    if (this.deltaTaken) throw new Error('FoldedHistograms: the DELTA producer is already taken');
    this.deltaTaken = true;
    return { collect: () => Promise.resolve(this.collectDelta()) };
  }

  /**
   * A producer for a CUMULATIVE reader: totals since the process started; any number of them. Every bound
   * series is in it, also at count 0 (a series exists from the first scrape, so Prometheus'
   * increase() sees its first value).
   */
  cumulativeProducer(options: { prometheusNames?: boolean } = {}): MetricProducer {
    return { collect: () => Promise.resolve(this.collectCumulative(options.prometheusNames === true)) };
  }

  private instrument(name: string): Instrument {
    const found = this.instruments.get(name);
    if (!found) throw new Error(`FoldedHistograms: unknown instrument ${name}`);
    return found;
  }

  private collectDelta(): CollectionResult {
    const now = Date.now();
    const startTime = hrTime(this.deltaStart);
    const endTime = hrTime(now);
    this.deltaStart = now;
    return this.result(AggregationTemporality.DELTA, false, (s, boundaries) => {
      if (s.pending.count === 0) return null;
      const value = s.pending.value(boundaries);
      s.folded.addTally(s.pending);
      s.pending.reset();
      return { startTime, endTime, attributes: s.attributes, value };
    });
  }

  /** `prometheusNames`: each name ends with its unit's word (the exporter writes the name as it is given). */
  private collectCumulative(prometheusNames: boolean): CollectionResult {
    const startTime = hrTime(this.startTime);
    const endTime = hrTime(Date.now());
    return this.result(AggregationTemporality.CUMULATIVE, prometheusNames, (s, boundaries) => {
      const total = new Tally(boundaries.length + 1);
      total.addTally(s.folded);
      total.addTally(s.pending);
      return { startTime, endTime, attributes: s.attributes, value: total.value(boundaries) };
    });
  }

  private result(
    temporality: AggregationTemporality,
    prometheusNames: boolean,
    point: (s: Series, boundaries: readonly number[]) => HistogramMetricData['dataPoints'][number] | null,
  ): CollectionResult {
    const metrics: HistogramMetricData[] = [];
    for (const { spec, series } of this.instruments.values()) {
      const dataPoints: HistogramMetricData['dataPoints'] = [];
      for (const s of series.values()) {
        const p = point(s, spec.boundaries);
        if (p) dataPoints.push(p);
      }
      if (!dataPoints.length) continue;
      metrics.push({
        descriptor: {
          name: prometheusNames ? prometheusName(spec) : spec.name,
          description: spec.description,
          unit: spec.unit,
          valueType: ValueType.DOUBLE,
        },
        aggregationTemporality: temporality,
        dataPointType: DataPointType.HISTOGRAM,
        dataPoints,
      });
    }
    return {
      // A reader keeps the MeterProvider's own resource when it merges producers' scope metrics.
      resourceMetrics: {
        resource: emptyResource(),
        scopeMetrics: [{ scope: { name: this.scope }, metrics }],
      },
      errors: [],
    };
  }
}
