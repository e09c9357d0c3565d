import { useEffect, useMemo, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Row } from '../grid-api';
import { compactNumber, textOf } from '../format';
import styles from './charts.module.css';
import { useWidth } from './use-width';

/** Line colours, distinguishable and dark enough on white. */
const PALETTE = ['#1d4f91', '#b3541e', '#2e7d32', '#8e24aa', '#00838f', '#c62828', '#5d4037', '#455a64'];
const HEIGHT = 220;

interface Series {
  name: string;
  /** seconds since the epoch → value */
  points: Map<number, number>;
}

/** The rows shown, as aligned uPlot data: one x (seconds, sorted), one y array per series (null: no row). */
export function seriesOf(
  rows: Row[],
  time: string,
  measure: string,
  seriesBy: string | undefined,
): { names: string[]; data: uPlot.AlignedData } {
  const groups = new Map<string, Series>();
  const xs = new Set<number>();
  for (const row of rows) {
    const t = Date.parse(textOf(row[time]));
    const v = row[measure];
    if (Number.isNaN(t) || typeof v !== 'number') continue;
    const name = seriesBy ? textOf(row[seriesBy]) || '—' : measure;
    let g = groups.get(name);
    if (!g) groups.set(name, (g = { name, points: new Map() }));
    const x = t / 1000;
    // Two rows of one series at the same instant (two nodes): the larger is what an operator watches.
    g.points.set(x, Math.max(v, g.points.get(x) ?? -Infinity));
    xs.add(x);
  }
  const x = [...xs].sort((a, b) => a - b);
  const names = [...groups.keys()].sort();
  const data: uPlot.AlignedData = [
    x,
    ...names.map((n) => {
      const points = groups.get(n)!.points;
      return x.map((at) => points.get(at) ?? null);
    }),
  ];
  return { names, data };
}

/**
 * A time series of the grid's main measure over the rows shown (not the whole window: the statistics are
 * for that), one line per stage or queue, times in this browser's zone.
 */
export function TimeSeriesChart({
  rows,
  time,
  measure,
  seriesBy,
  title,
}: {
  rows: Row[];
  time: string;
  measure: string;
  seriesBy?: string;
  title: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const width = useWidth(box);
  const { names, data } = useMemo(
    () => seriesOf(rows, time, measure, seriesBy),
    [rows, time, measure, seriesBy],
  );

  useEffect(() => {
    const el = box.current;
    if (!el || width === 0) return;
    el.removeAttribute('data-drawn');
    const plot = new uPlot(
      {
        width,
        height: HEIGHT,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] } },
        axes: [{}, { size: 56, values: (_u, splits) => splits.map((v) => compactNumber(v)) }],
        series: [
          {},
          ...names.map((name, i) => ({
            label: name,
            stroke: PALETTE[i % PALETTE.length],
            width: 1.5,
            spanGaps: true,
            points: { show: true, size: 4 },
          })),
        ],
        hooks: { draw: [() => el.setAttribute('data-drawn', String(data[0].length))] },
      },
      data,
      el,
    );
    return () => plot.destroy();
  }, [names, data, width]);

  return (
    <figure className={styles.figure}>
      <figcaption className={styles.caption}>{title}</figcaption>
      <div
        ref={box}
        className={styles.chart}
        role="img"
        aria-label={`${title}: ${data[0].length} instants, ${names.length} series`}
        data-chart="time-series"
      />
      {names.length > 0 && (
        <ul className={styles.legend} aria-label="Series">
          {names.map((name, i) => (
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
