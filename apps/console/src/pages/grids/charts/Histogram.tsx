import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { HistogramBucket } from '../grid-types';
import type { ColumnFormat } from '../declarations';
import { chartValue, compactNumber, formatNumber } from '../format';
import type { DurationUnit } from '../units';
import styles from './charts.module.css';
import { boundariesOf, labelledBoundaries } from './histogram-axis';
import { tooltipPlugin } from './tooltip';
import { useWidth } from './use-width';

const BAR = '#3f6fb0';
const BAR_EDGE = '#1d4f91';
const HEIGHT = 170;
/** The y axis's width: counts up to 99.9K fit. */
const Y_AXIS = 48;
const rowsText = (n: number) => `${formatNumber(n, 'number')} ${n === 1 ? 'row' : 'rows'}`;

/**
 * uPlot's options for the ten buckets drawn as bars: bucket i spans x from i − 0.5 to i + 0.5, so the axis
 * labels the boundaries between bars with their values (in the column's unit), as many as fit the width; a
 * tooltip gives each bucket's range and count.
 */
function histogramOptions(
  buckets: HistogramBucket[],
  format: ColumnFormat,
  width: number,
  unit: DurationUnit | undefined,
): { options: uPlot.Options; axis: [number, string][] } {
  const xs = buckets.map((_, i) => i);
  const nonEmpty = xs.filter((i) => buckets[i].count > 0);
  const single = buckets.every(
    (b) => b.lowerBound === buckets[0].lowerBound && b.upperBound === b.lowerBound,
  );
  const labels = boundariesOf(buckets).map((v) => chartValue(v, format, unit));
  // One value for every row (min = max): the service puts them all in the last bucket; only its value is labelled.
  const shown = single ? [buckets.length] : labelledBoundaries(labels, width - Y_AXIS);
  // Room on the right for half of the last label, which is centred on the plot's right edge.
  const right = Math.ceil((labels[labels.length - 1]?.length ?? 0) * 3.5) + 6;
  const options: uPlot.Options = {
    width,
    height: HEIGHT,
    padding: [10, right, 0, 0],
    legend: { show: false },
    cursor: { x: false, y: false, points: { show: false }, drag: { x: false, y: false } },
    scales: {
      x: { time: false, range: [-0.5, buckets.length - 0.5] },
      y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] },
    },
    axes: [
      {
        splits: () => shown.map((i) => i - 0.5),
        values: (_u, splits) => splits.map((s) => labels[Math.round(s + 0.5)] ?? ''),
        size: 30,
        gap: 4,
      },
      {
        size: Y_AXIS,
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
        // A mark on every bucket that holds rows, so a bucket of 1 row beside one of 10 000 (the slow tail an
        // operator looks for) is still seen on a linear scale; empty buckets have none.
        points: { show: true, size: 6, fill: BAR_EDGE, stroke: BAR_EDGE, filter: () => nonEmpty },
      },
    ],
    plugins: [
      tooltipPlugin((i) => {
        const b = buckets[i];
        return b
          ? [
              `${chartValue(b.lowerBound, format, unit)} – ${chartValue(b.upperBound, format, unit)}`,
              rowsText(b.count),
            ]
          : null;
      }),
    ],
  };
  return { options, axis: shown.map((i) => [i, labels[i]]) };
}

interface HistogramProps {
  id: string;
  label: string;
  buckets: HistogramBucket[];
  format: ColumnFormat;
  /** The column's unit on this page (durations): the axis, the hover and the table use it. */
  unit?: DurationUnit;
}

/**
 * The ten-bucket histogram the service computed (equal widths from min to max), drawn with uPlot as bars,
 * the count on the y axis. The buckets are also listed as a table for people who cannot see the chart.
 */
export function Histogram(props: HistogramProps) {
  const { label, buckets, format, unit } = props;
  const box = useRef<HTMLDivElement>(null);
  const width = useWidth(box);

  useEffect(() => {
    const el = box.current;
    if (!el || width === 0) return;
    el.removeAttribute('data-drawn');
    const { options, axis } = histogramOptions(buckets, format, width, unit);
    // The boundaries the axis labels, and their labels: what a test measures for overlap.
    el.setAttribute('data-axis-labels', JSON.stringify(axis));
    options.hooks = { draw: [() => el.setAttribute('data-drawn', String(buckets.length))] };
    // An empty bucket draws nothing (a zero-height bar would still show its edge).
    const plot = new uPlot(
      options,
      [buckets.map((_, i) => i), buckets.map((b) => (b.count > 0 ? b.count : null))],
      el,
    );
    return () => plot.destroy();
  }, [buckets, format, width, unit]);

  const first = buckets[0];
  const last = buckets[buckets.length - 1];
  const range =
    first && last
      ? `from ${chartValue(first.lowerBound, format, unit)} to ${chartValue(last.upperBound, format, unit)}`
      : '';
  const single = first !== undefined && buckets.every((b) => b.upperBound === first.lowerBound);
  return (
    <figure className={styles.figure}>
      {single && (
        <figcaption className={styles.note}>
          Every row holds {formatNumber(first.lowerBound, format, true, unit)}: one bucket.
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
      <BucketTable {...props} />
    </figure>
  );
}

function BucketTable({ id, label, buckets, format, unit }: HistogramProps) {
  return (
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
              <td>{formatNumber(b.lowerBound, format, true, unit)}</td>
              <td>{formatNumber(b.upperBound, format, true, unit)}</td>
              <td>{formatNumber(b.count, 'number')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
