import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { HistogramBucket } from '../grid-types';
import type { ColumnFormat } from '../declarations';
import { compactNumber, formatNumber } from '../format';
import styles from './charts.module.css';
import { useWidth } from './use-width';

const BAR = '#3f6fb0';
const BAR_EDGE = '#1d4f91';
const HEIGHT = 170;

/**
 * The ten-bucket histogram the service computed (equal widths from min to max), drawn with uPlot as bars:
 * one bar per bucket, the count on the y axis, each bucket's lower bound under it. The buckets are also
 * listed as a table for people who cannot see the chart.
 */
export function Histogram({
  id,
  label,
  buckets,
  format,
}: {
  id: string;
  label: string;
  buckets: HistogramBucket[];
  format: ColumnFormat;
}) {
  const box = useRef<HTMLDivElement>(null);
  const width = useWidth(box);

  useEffect(() => {
    const el = box.current;
    if (!el || width === 0) return;
    const xs = buckets.map((_, i) => i);
    // An empty bucket draws nothing (a zero-height bar would still show its edge).
    const ys = buckets.map((b) => (b.count > 0 ? b.count : null));
    const nonEmpty = xs.filter((i) => ys[i] !== null);
    const single = buckets.every(
      (b) => b.lowerBound === buckets[0].lowerBound && b.upperBound === b.lowerBound,
    );
    el.removeAttribute('data-drawn');
    const plot = new uPlot(
      {
        width,
        height: HEIGHT,
        legend: { show: false },
        cursor: { show: false },
        scales: {
          x: { time: false, range: [-0.5, buckets.length - 0.5] },
          y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] },
        },
        axes: [
          {
            splits: () => xs,
            // One value for every row (min = max): the service puts them all in the last bucket; only it
            // is labelled, with that value.
            values: (_u, splits) =>
              splits.map((i) =>
                single && i !== buckets.length - 1 ? '' : compactNumber(buckets[i]?.lowerBound ?? 0),
              ),
            size: 30,
            gap: 4,
          },
          {
            size: 48,
            values: (_u, splits) => splits.map((v) => (Number.isInteger(v) ? compactNumber(v) : '')),
          },
        ],
        series: [
          {},
          {
            label: 'rows',
            fill: BAR,
            stroke: BAR_EDGE,
            width: 1,
            paths: uPlot.paths.bars!({ size: [0.86, Infinity], align: 0 }),
            // A mark on every bucket that holds rows, so a bucket of 1 row beside one of 10 000 (the slow
            // tail an operator looks for) is still seen on a linear scale; empty buckets have none.
            points: {
              show: true,
              size: 6,
              fill: BAR_EDGE,
              stroke: BAR_EDGE,
              filter: () => nonEmpty,
            },
          },
        ],
        hooks: { draw: [() => el.setAttribute('data-drawn', String(buckets.length))] },
      },
      [xs, ys],
      el,
    );
    return () => plot.destroy();
  }, [buckets, width]);

  const first = buckets[0];
  const last = buckets[buckets.length - 1];
  const range =
    first && last
      ? `from ${formatNumber(first.lowerBound, format, true)} to ${formatNumber(last.upperBound, format, true)}`
      : '';
  const single = first !== undefined && buckets.every((b) => b.upperBound === first.lowerBound);
  return (
    <figure className={styles.figure}>
      {single && (
        <figcaption className={styles.note}>
          Every row holds {formatNumber(first.lowerBound, format, true)}: one bucket.
        </figcaption>
      )}
      <div
        ref={box}
        className={styles.chart}
        role="img"
        aria-label={`Histogram of ${label}: ${buckets.length} buckets ${range}`}
        data-chart="histogram"
        data-buckets={buckets.length}
        data-nonzero={buckets.filter((b) => b.count > 0).length}
      />
      <details className={styles.details}>
        <summary>The {buckets.length} buckets as a table</summary>
        <table className={styles.buckets} aria-describedby={`${id}-caption`}>
          <caption id={`${id}-caption`}>Rows per bucket of {label}</caption>
          <thead>
            <tr>
              <th scope="col">From</th>
              <th scope="col">To</th>
              <th scope="col">Rows</th>
            </tr>
          </thead>
          <tbody>
            {buckets.map((b, i) => (
              <tr key={i}>
                <td>{formatNumber(b.lowerBound, format, true)}</td>
                <td>{formatNumber(b.upperBound, format, true)}</td>
                <td>{formatNumber(b.count, 'number')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
