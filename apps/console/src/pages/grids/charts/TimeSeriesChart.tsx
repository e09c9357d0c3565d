import { useEffect, useMemo, useRef, useState, type RefObject } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatAxisTime, formatClock, formatInstant } from '../../../components/time';
import type { ColumnFormat } from '../declarations';
import { chartValue, formatNumber } from '../format';
import { offsetOf } from '../toolbar-state';
import { durationUnit, type DurationUnit } from '../units';
import styles from './charts.module.css';
import { chartSeries, type ChartSeries, type SeriesAnswer, type SeriesValue } from './series-data';
import { tooltipPlugin } from './tooltip';
import { useWidth } from './use-width';

/** Line colours, distinguishable and dark enough on white (the legend's swatches: charts.module.css). */
const PALETTE = ['#1d4f91', '#b3541e', '#2e7d32', '#8e24aa', '#00838f', '#c62828', '#5d4037', '#455a64'];
const HEIGHT = 220;
/** A drag narrower than this is a click, not a zoom. */
const MIN_ZOOM_PX = 6;
/** The least room between two time labels, in CSS pixels: "12 Nov 18:45" is about 80 px wide. */
const TIME_LABEL_SPACE = 110;
/** Whole steps only for counts (a depth of 0.2 is not a depth). */
const COUNT_STEPS = [
  1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 1e6, 1e7,
];
const DAY_MS = 86_400_000;

/** How a value of this chart is written: durations in the chart's one unit, counts whole. */
function valueText(format: ColumnFormat, unit: DurationUnit | undefined) {
  return (v: number) => (format === 'micros' ? chartValue(v, format, unit) : formatNumber(v, 'number'));
}

/** On hover: the bucket's time span, then each line's value there (the largest, its mean and rows; or the count). */
function hoverLines(series: ChartSeries, bucketMs: number, text: (v: number) => string, value: SeriesValue) {
  return (i: number): string[] | null => {
    const start = (series.data[0][i] ?? NaN) * 1000;
    if (Number.isNaN(start)) return null;
    const lines = series.points.flatMap((row, s) => {
      const p = row[i];
      if (!p) return [];
      return value === 'count'
        ? [`${series.names[s]}: ${formatNumber(p.count, 'number')}`]
        : [
            `${series.names[s]}: max ${text(p.max)} · mean ${text(p.sum / p.count)} · ${formatNumber(p.count, 'number')} rows`,
          ];
    });
    return [`${formatInstant(start)} – ${formatClock(start + bucketMs)}`, ...lines];
  };
}

interface ChartOptions {
  series: ChartSeries;
  answer: SeriesAnswer;
  format: ColumnFormat;
  unit: DurationUnit | undefined;
  value: SeriesValue;
  width: number;
  hidden: ReadonlySet<number>;
  onZoom: (fromMs: number, toMs: number) => void;
}

/** The ticks last drawn (their values and labels): what a test reads to check the axes. */
interface DrawnTicks {
  x: { at: number[]; labels: string[] };
  y: string[];
}

function timeSeriesOptions(o: ChartOptions, ticks: DrawnTicks): uPlot.Options {
  const { series, answer, format, unit, value, width } = o;
  const from = Date.parse(answer.from);
  const to = Date.parse(answer.to);
  const withDay = to - from > DAY_MS || new Date(from).getDate() !== new Date(to).getDate();
  const text = valueText(value === 'count' ? 'number' : format, unit);
  const counts = value === 'count' || format === 'number';
  return {
    width,
    height: HEIGHT,
    legend: { show: false },
    // Drag across the chart to zoom: the selection becomes the page's window (From and To in the URL).
    cursor: { drag: { x: true, y: false, setScale: false }, points: { size: 6 } },
    select: { show: true, left: 0, top: 0, width: 0, height: 0 },
    scales: {
      x: { time: true, range: [from / 1000, to / 1000] },
      y: { range: (_u, _min, max) => [0, Math.max(counts ? 1 : 0, max * 1.1) || 1] },
    },
    axes: [
      {
        space: TIME_LABEL_SPACE,
        values: (_u, splits) => {
          const labels = splits.map((s) => formatAxisTime(s * 1000, withDay));
          ticks.x = { at: splits, labels };
          return labels;
        },
      },
      {
        size: 64,
        ...(counts ? { incrs: COUNT_STEPS } : {}),
        values: (_u, splits) =>
          (ticks.y = splits.map((v) => (counts && !Number.isInteger(v) ? '' : text(v)))),
      },
    ],
    series: [
      {},
      ...series.names.map((name, i) => ({
        label: name,
        stroke: PALETTE[i % PALETTE.length],
        width: 1.5,
        // A silence longer than the rows' cadence is drawn as a gap, never as a line across it.
        spanGaps: false,
        show: !o.hidden.has(i),
        points: { show: true, size: 4 },
      })),
    ],
    hooks: {
      setSelect: [
        (u) => {
          if (u.select.width >= MIN_ZOOM_PX) {
            const a = u.posToVal(u.select.left, 'x') * 1000;
            const b = u.posToVal(u.select.left + u.select.width, 'x') * 1000;
            o.onZoom(Math.floor(a / 1000) * 1000, Math.ceil(b / 1000) * 1000);
          }
          u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
        },
      ],
    },
    plugins: [tooltipPlugin(hoverLines(series, answer.bucketMilliseconds, text, value))],
  };
}

/** Draws the chart into `box` (again when its data, unit or width change); the plot, for the legend's toggles. */
function usePlot(
  box: RefObject<HTMLDivElement | null>,
  o: Omit<ChartOptions, 'onZoom' | 'hidden'>,
  hidden: ReadonlySet<number>,
  onZoom: ChartOptions['onZoom'],
) {
  const plot = useRef<uPlot | null>(null);
  const zoom = useRef(onZoom);
  useEffect(() => {
    zoom.current = onZoom;
  }, [onZoom]);
  const hiddenNow = useRef(hidden);
  useEffect(() => {
    hiddenNow.current = hidden;
  }, [hidden]);
  const { series, answer, format, unit, value, width } = o;
  useEffect(() => {
    const el = box.current;
    if (!el || width === 0 || series.names.length === 0) return;
    el.removeAttribute('data-drawn');
    const ticks: DrawnTicks = { x: { at: [], labels: [] }, y: [] };
    const options = timeSeriesOptions(
      {
        series,
        answer,
        format,
        unit,
        value,
        width,
        hidden: hiddenNow.current,
        onZoom: (from, to) => zoom.current(from, to),
      },
      ticks,
    );
    options.hooks!.draw = [
      (u) => {
        // the time labels with their centres (CSS px from the plot's left), and the value labels
        const x = ticks.x.labels.map((label, i) => [u.valToPos(ticks.x.at[i], 'x'), label]);
        el.setAttribute('data-x-ticks', JSON.stringify(x));
        el.setAttribute('data-y-ticks', JSON.stringify(ticks.y));
        el.setAttribute('data-drawn', String(series.data[0].length));
      },
    ];
    plot.current = new uPlot(options, series.data, el);
    return () => {
      plot.current?.destroy();
      plot.current = null;
    };
  }, [box, series, answer, format, unit, value, width]);
  return plot;
}

/** The lines' names, each a toggle that shows or hides its line; a line that is 0 throughout says so. */
function SeriesLegend({
  series,
  value,
  hidden,
  onToggle,
}: {
  series: ChartSeries;
  value: SeriesValue;
  hidden: ReadonlySet<number>;
  onToggle: (i: number) => void;
}) {
  const zero = (i: number) =>
    series.points[i].every((p) => p === null || (value === 'count' ? p.count : p.max) === 0);
  return (
    <ul className={styles.legend} aria-label="Series: choose to show or hide">
      {series.names.map((name, i) => (
        <li key={name}>
          <button
            type="button"
            className={styles.legendButton}
            aria-pressed={!hidden.has(i)}
            onClick={() => onToggle(i)}
          >
            <span className={styles.swatch} data-colour={i % PALETTE.length} aria-hidden="true" />
            {name}
            {zero(i) && <span className={styles.muted}> (0 throughout)</span>}
          </button>
        </li>
      ))}
    </ul>
  );
}

/**
 * The grid's main measure over the whole window (GET /api/<Grid>/Series): per time bucket its largest value,
 * or (`value="count"`) how many rows fell in it, one line per stage or queue, times in 24-hour form in this
 * browser's zone (stated under the chart). Missing minutes are gaps; durations are in one unit chosen from
 * the range (the page's unit for the column when it has one); counts have whole ticks. The legend shows
 * and hides lines; hover for a bucket's figures; drag across to zoom into that span.
 */
export function TimeSeriesChart({
  answer,
  format,
  title,
  onZoom,
  unit: pageUnit,
  label,
  value = 'max',
}: {
  answer: SeriesAnswer;
  format: ColumnFormat;
  title: string;
  onZoom: (fromMs: number, toMs: number) => void;
  /** The unit the page shows this quantity in elsewhere (table, statistics). */
  unit?: DurationUnit;
  /** A line's readable name from the service's (a measure's member name becomes its column label). */
  label?: (name: string) => string;
  value?: SeriesValue;
}) {
  const box = useRef<HTMLDivElement>(null);
  const width = useWidth(box);
  const series = useMemo(() => chartSeries(answer, label, value), [answer, label, value]);
  const unit = format === 'micros' && value === 'max' ? (pageUnit ?? durationUnit(series.max)) : undefined;
  const [hidden, setHidden] = useState<ReadonlySet<number>>(new Set());
  const plot = usePlot(box, { series, answer, format, unit, value, width }, hidden, onZoom);

  function toggle(i: number) {
    const next = new Set(hidden);
    if (next.has(i)) next.delete(i);
    else next.add(i);
    setHidden(next);
    plot.current?.setSeries(i + 1, { show: !next.has(i) });
  }

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
        data-unit={unit?.symbol}
      />
      <figcaption className={styles.note}>
        Times in 24-hour form, in this browser&apos;s zone (UTC{offsetOf(new Date(Date.parse(answer.to)))})
        {unit ? `; durations in ${unit.symbol}` : ''}. A break in a line: no rows in that time.
      </figcaption>
      {series.names.length > 0 && (
        <SeriesLegend series={series} value={value} hidden={hidden} onToggle={toggle} />
      )}
    </figure>
  );
}
