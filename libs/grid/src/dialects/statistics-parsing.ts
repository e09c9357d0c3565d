import { ColumnStatistics, emptyStatistics, HISTOGRAM_BUCKETS, histogramBounds } from '../statistics';
import { textOf, toNumber } from './sql-dialect';

/**
 * Statistics of `count` columns from one row whose aggregates are named n, min<i>, max<i>, mean<i>, med<i>,
 * sd<i> and h<i> (the buckets): the shape PostgreSQL and SQL Server return.
 */
export function parseAggregateRow(row: Record<string, unknown>, count: number): ColumnStatistics[] {
  const n = Number(row.n);
  return Array.from({ length: count }, (_, i) =>
    assembleStatistics(
      n,
      row[`min${i}`],
      row[`max${i}`],
      row[`mean${i}`],
      row[`med${i}`],
      toNumber(row[`sd${i}`]),
      row[`h${i}`],
    ),
  );
}

/** Builds one column's statistics from the aggregate values and [bucket, count] pairs the SQL returned. */
export function assembleStatistics(
  n: number,
  min: unknown,
  max: unknown,
  mean: unknown,
  median: unknown,
  standardDeviation: number | null,
  buckets: unknown,
): ColumnStatistics {
  if (n === 0) return emptyStatistics();
  const lo = toNumber(min);
  const hi = toNumber(max);
  const counts = new Array<number>(HISTOGRAM_BUCKETS).fill(0);
  const pairs = (typeof buckets === 'string' ? JSON.parse(buckets) : (buckets ?? [])) as unknown[];
  for (const pair of pairs) {
    const [b, c]: unknown[] = Array.isArray(pair)
      ? (pair as unknown[])
      : [(pair as { b: unknown }).b, (pair as { c: unknown }).c];
    const bucket =
      b === null || b === undefined
        ? HISTOGRAM_BUCKETS - 1
        : Math.min(HISTOGRAM_BUCKETS - 1, Math.max(0, Number(b)));
    counts[bucket] += Number(c);
  }
  return {
    count: n,
    min: lo,
    max: hi,
    mean: toNumber(mean),
    median: toNumber(median),
    standardDeviation: n === 1 ? 0 : standardDeviation,
    histogram: histogramBounds(lo, hi, counts),
  };
}

/**
 * Numbers written as one comma-separated text (SQLite's group_concat), as a Float64Array. Integers of up to 15
 * digits are read inline (exact: below 2^53); anything else (a fraction, an exponent, a longer integer) through
 * Number(), which reads 17 significant digits back to the same double.
 */
export function numberList(text: unknown): Float64Array {
  if (text === null || text === undefined || text === '') return new Float64Array(0);
  const s = textOf(text);
  let n = 1;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === 44) n++;
  const out = new Float64Array(n);
  let k = 0;
  for (let i = 0; i <= s.length;) {
    let j = i;
    let v = 0;
    let plain = true;
    const negative = s.charCodeAt(j) === 45;
    if (negative) j++;
    for (; j < s.length; j++) {
      const c = s.charCodeAt(j);
      if (c === 44) break;
      if (c >= 48 && c <= 57) v = v * 10 + (c - 48);
      else plain = false;
    }
    out[k++] =
      plain && j - i < 16 && j > i + (negative ? 1 : 0) ? (negative ? -v : v) : Number(s.slice(i, j));
    i = j + 1;
  }
  return out;
}
