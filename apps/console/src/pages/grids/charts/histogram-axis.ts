import type { HistogramBucket } from '../grid-types';

/** Roughly how wide a label of the axis font is per character, and the room kept between two labels. */
const CHARACTER_PX = 7;
const LABEL_GAP_PX = 16;

/**
 * The bucket boundaries an axis of `plotWidth` pixels can label without overlap: every boundary (lower bound
 * of each bucket, and the last upper bound), or every 2nd, 5th or 10th of them, the first and last always
 * among them. Returned as boundary indexes (0 … buckets).
 */
export function labelledBoundaries(labels: readonly string[], plotWidth: number): number[] {
  const widest = Math.max(...labels.map((l) => l.length)) * CHARACTER_PX + LABEL_GAP_PX;
  const last = labels.length - 1;
  for (const step of [1, 2, 5, 10]) {
    if (last % step !== 0 && step !== 10) continue;
    const count = Math.floor(last / step) + 1;
    if (count * widest <= plotWidth || step === 10)
      return Array.from({ length: last + 1 }, (_, i) => i).filter((i) => i % step === 0 || i === last);
  }
  return [0, last];
}

/** The boundaries of the buckets: each lower bound, then the last upper bound. */
export function boundariesOf(buckets: readonly HistogramBucket[]): number[] {
  return buckets.length ? [...buckets.map((b) => b.lowerBound), buckets[buckets.length - 1].upperBound] : [];
}
