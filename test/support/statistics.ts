import type { ColumnStatistics } from '../../libs/grid/src/statistics';

/** Two answers' statistics agree: counts exactly, every figure and bucket bound to 1e-9 relative. */
export function expectStatisticsClose(actual: ColumnStatistics, expected: ColumnStatistics): void {
  const rel = (a: number | null, b: number | null) => {
    if (a === null || b === null) return expect(a).toBe(b);
    const scale = Math.max(1, Math.abs(a), Math.abs(b));
    expect(Math.abs(a - b) / scale).toBeLessThanOrEqual(1e-9);
  };
  expect(actual.count).toBe(expected.count);
  for (const k of ['min', 'max', 'mean', 'median', 'standardDeviation'] as const) rel(actual[k], expected[k]);
  expect(actual.histogram.map((b) => b.count)).toEqual(expected.histogram.map((b) => b.count));
  actual.histogram.forEach((b, i) => {
    rel(b.lowerBound, expected.histogram[i].lowerBound);
    rel(b.upperBound, expected.histogram[i].upperBound);
  });
}
