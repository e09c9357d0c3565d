import { useEffect, useMemo, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatClock, formatInstant } from '../../../components/time';
import type { ColumnFormat } from '../declarations';
import { chartValue, formatNumber } from '../format';
import styles from './charts.module.css';
import { chartSeries, type ChartSeries, type SeriesAnswer } from './series-data';
import { tooltipPlugin } from './tooltip';
import { useWidth } from './use-width';

/** Line colours, distinguishable and dark enough on white (the legend's swatches: charts.module.css). */
const PALETTE = ['#1d4f91', '#b3541e', '#2e7d32', '#8e24aa', '#00838f', '#c62828', '#5d4037', '#455a64'];
const HEIGHT = 220;
/** A drag narrower than this is a click, not a zoom. */
const MIN_ZOOM_PX = 6;

/** On hover: the bucket's time span, then each line's largest value, mean and rows there. */
function hoverLines(series: ChartSeries, bucketMs: number, format: ColumnFormat) {
  return (i: number): string[] | null => {
    const start = (series.data[0][i] ?? NaN) * 1000;
    if (Number.isNaN(start)) return null;
    const lines = series.points.flatMap((row, s) => {
      const p = row[i];
      return p
        ? [
            `${series.names[s]}: max ${chartValue(p.max, format)} · mean ${chartValue(p.sum / p.count, format)} · ${formatNumber(p.count, 'number')} rows`,
          ]
        : [];
    });
    return [`${formatInstant(start)} – ${formatClock(start + bucketMs)}`, ...lines];
  };
}

function timeSeriesOptions(
  series: ChartSeries,
  answer: SeriesAnswer,
  format: ColumnFormat,
  width: number,
  onZoom: (fromMs: number, toMs: number) => void,
): uPlot.Options {
  return {
    width,
    height: HEIGHT,
    legend: { show: false },
    // Drag across the chart to zoom: the selection becomes the page's window (From and To in the URL).
    cursor: { drag: { x: true, y: false, setScale: false }, points: { size: 6 } },
    select: { show: true, left: 0, top: 0, width: 0, height: 0 },
    scales: {
      x: { time: true, range: [Date.parse(answer.from) / 1000, Date.parse(answer.to) / 1000] },
      y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] },
    },
    axes: [{}, { size: 64, values: (_u, splits) => splits.map((v) => chartValue(v, format)) }],
    series: [
      {},
      ...series.names.map((name, i) => ({
        label: name,
        stroke: PALETTE[i % PALETTE.length],
        width: 1.5,
        spanGaps: true,
        points: { show: true, size: 4 },
      })),
    ],
    hooks: {
      setSelect: [
        (u) => {
          if (u.select.width >= MIN_ZOOM_PX) {
            const from = u.posToVal(u.select.left, 'x') * 1000;
            const to = u.posToVal(u.select.left + u.select.width, 'x') * 1000;
            onZoom(Math.floor(from / 1000) * 1000, Math.ceil(to / 1000) * 1000);
          }
          u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
        },
      ],
    },
    plugins: [tooltipPlugin(hoverLines(series, answer.bucketMilliseconds, format))],
  };
}

/**
 * The grid's main measure over the whole window (GET /api/<Grid>/Series): its largest value per time bucket,
 * one line per stage or queue, times in this browser's zone. Hover for a bucket's figures; drag across to
 * zoom into that span.
 */
export function TimeSeriesChart({
  answer,
  format,
  title,
  onZoom,
}: {
  answer: SeriesAnswer;
  format: ColumnFormat;
  title: string;
  onZoom: (fromMs: number, toMs: number) => void;
}) {
  const box = useRef<HTMLDivElement>(null);
  const width = useWidth(box);
  const series = useMemo(() => chartSeries(answer), [answer]);
  const zoom = useRef(onZoom);
  useEffect(() => {
    zoom.current = onZoom;
  }, [onZoom]);

  useEffect(() => {
    const el = box.current;
    if (!el || width === 0 || series.names.length === 0) return;
    el.removeAttribute('data-drawn');
    const options = timeSeriesOptions(series, answer, format, width, (from, to) => zoom.current(from, to));
    options.hooks!.draw = [() => el.setAttribute('data-drawn', String(series.data[0].length))];
    const plot = new uPlot(options, series.data, el);
    return () => plot.destroy();
  }, [series, answer, format, width]);

  const buckets = series.data[0].length;
  return (
    <figure className={styles.figure}>
      <div
        ref={box}
        className={styles.chart}
        role="img"
        aria-label={`${title}: ${buckets} time buckets of ${answer.bucketMilliseconds / 1000} s, ${series.names.length} series`}
        data-chart="time-series"
        data-bucket-ms={answer.bucketMilliseconds}
      />
      {series.names.length > 0 && (
        <ul className={styles.legend} aria-label="Series">
          {series.names.map((name, i) => (
            <li key={name}>
              <span className={styles.swatch} data-colour={i % PALETTE.length} aria-hidden="true" />
              {name}
            </li>
          ))}
        </ul>
      )}
    </figure>
  );
}
