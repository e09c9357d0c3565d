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

/**
 * The same statistics over a typed array, for the dialects that fetch a window's values compactly: one pass
 * for count, min, max and the sum; a second for the squared differences (two-pass deviation, as the
 * reference) and the histogram; the median by selection (O(n)) on a copy. Equal to referenceStatistics up to
 * the order of summation.
 */
export function typedStatistics(values: Float64Array): ColumnStatistics {
  const n = values.length;
  if (n === 0) return emptyStatistics();
  let min = values[0];
  let max = values[0];
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v < min) min = v;
    else if (v > max) max = v;
    sum += v;
  }
  const mean = sum / n;
  let ss = 0;
  const counts = new Array<number>(HISTOGRAM_BUCKETS).fill(0);
  const span = max - min;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    ss += (v - mean) * (v - mean);
    if (span === 0) counts[HISTOGRAM_BUCKETS - 1]++;
    else {
      const b = Math.floor(((v - min) / span) * HISTOGRAM_BUCKETS);
      counts[b >= HISTOGRAM_BUCKETS ? HISTOGRAM_BUCKETS - 1 : b < 0 ? 0 : b]++;
    }
  }
  return {
    count: n,
    min,
    max,
    mean,
    median: medianOf(values),
    standardDeviation: n === 1 ? 0 : Math.sqrt(ss / (n - 1)),
    histogram: histogramBounds(min, max, counts),
  };
}

/** Median by selection on a copy (the input is left as it is): the middle value, or the mean of the two. */
export function medianOf(values: Float64Array): number {
  const n = values.length;
  const a = values.slice();
  const upper = n >> 1;
  select(a, upper);
  if (n % 2 === 1) return a[upper];
  // after selection every value left of `upper` is <= a[upper]: the lower middle is their maximum
  let lower = a[0];
  for (let i = 1; i < upper; i++) if (a[i] > lower) lower = a[i];
  return (lower + a[upper]) / 2;
}

/** Rearranges `a` so a[k] holds the k-th smallest value, smaller ones left of it (Hoare, median of three). */
function select(a: Float64Array, k: number): void {
  let lo = 0;
  let hi = a.length - 1;
  for (let rounds = 0; hi > lo; rounds++) {
    if (rounds > 64) {
      // an input that defeats the pivot choice (never seen in telemetry): sort what is left, O(n log n)
      a.subarray(lo, hi + 1).sort();
      return;
    }
    const mid = (lo + hi) >> 1;
    // median of three as the pivot, which also guards the sorted and reversed inputs against O(n²)
    if (a[mid] < a[lo]) swap(a, mid, lo);
    if (a[hi] < a[lo]) swap(a, hi, lo);
    if (a[hi] < a[mid]) swap(a, hi, mid);
    const pivot = a[mid];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        swap(a, i, j);
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return;
  }
}

function swap(a: Float64Array, i: number, j: number): void {
  const t = a[i];
  a[i] = a[j];
  a[j] = t;
}
