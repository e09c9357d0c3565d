/** Statistics of one column, as every grid answers them. */
export interface HistogramBucket {
  lowerBound: number;
  upperBound: number;
  count: number;
}

export interface ColumnStatistics {
  count: number;
  min: number | null;
  max: number | null;
  mean: number | null;
  median: number | null;
  /** Sample standard deviation (n − 1); 0 for a single value. */
  standardDeviation: number | null;
  histogram: HistogramBucket[];
}

export const HISTOGRAM_BUCKETS = 10;

/** Bucket of a value: equal widths from min to max; the max falls in the last bucket. Shared with the SQL. */
export function bucketOf(x: number, min: number, max: number): number {
  if (max === min) return HISTOGRAM_BUCKETS - 1;
  const b = Math.floor(((x - min) / (max - min)) * HISTOGRAM_BUCKETS);
  return Math.min(HISTOGRAM_BUCKETS - 1, Math.max(0, b));
}

export function histogramBounds(min: number | null, max: number | null, counts: number[]): HistogramBucket[] {
  const out: HistogramBucket[] = [];
  for (let i = 0; i < HISTOGRAM_BUCKETS; i++) {
    if (min === null || max === null) out.push({ lowerBound: 0, upperBound: 0, count: 0 });
    else {
      const w = (max - min) / HISTOGRAM_BUCKETS;
      out.push({
        lowerBound: min + i * w,
        upperBound: i === HISTOGRAM_BUCKETS - 1 ? max : min + (i + 1) * w,
        count: counts[i] ?? 0,
      });
    }
  }
  return out;
}

export function emptyStatistics(): ColumnStatistics {
  return {
    count: 0,
    min: null,
    max: null,
    mean: null,
    median: null,
    standardDeviation: null,
    histogram: histogramBounds(null, null, []),
  };
}

/**
 * The plain TypeScript reference: what every dialect's SQL must equal (tests compare them on random data).
 * Two-pass deviation, so large values with a small spread keep their precision.
 */
export function referenceStatistics(values: readonly number[]): ColumnStatistics {
  const n = values.length;
  if (n === 0) return emptyStatistics();
  const sorted = [...values].sort((a, b) => a - b);
  const min = sorted[0];
  const max = sorted[n - 1];
  let sum = 0;
  for (const v of values) sum += v;
  const mean = sum / n;
  let ss = 0;
  for (const v of values) ss += (v - mean) * (v - mean);
  const median = n % 2 === 1 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  const counts = new Array<number>(HISTOGRAM_BUCKETS).fill(0);
  for (const v of values) counts[bucketOf(v, min, max)]++;
  return {
    count: n,
    min,
    max,
    mean,
    median,
    standardDeviation: n === 1 ? 0 : Math.sqrt(ss / (n - 1)),
    histogram: histogramBounds(min, max, counts),
  };
}
