import type uPlot from 'uplot';
import type { Schemas } from '../../../api/client';

export type SeriesAnswer = Schemas['GridSeriesDto'];
export type SeriesPoint = Schemas['SeriesPointDto'];

/** A series answer as aligned uPlot data: x the buckets' starts (seconds), one y per line (its max; null: no rows). */
export interface ChartSeries {
  names: string[];
  data: uPlot.AlignedData;
  /** The points behind each y, to say more about them on hover. */
  points: (SeriesPoint | null)[][];
}

export function chartSeries(answer: SeriesAnswer): ChartSeries {
  const xs = [...new Set(answer.series.flatMap((l) => l.points.map((p) => Date.parse(p.time))))].sort(
    (a, b) => a - b,
  );
  const index = new Map(xs.map((x, i) => [x, i]));
  const points = answer.series.map((line) => {
    const row: (SeriesPoint | null)[] = xs.map(() => null);
    for (const p of line.points) row[index.get(Date.parse(p.time))!] = p;
    return row;
  });
  return {
    names: answer.series.map((l) => l.name),
    data: [xs.map((x) => x / 1000), ...points.map((row) => row.map((p) => (p ? p.max : null)))],
    points,
  };
}
