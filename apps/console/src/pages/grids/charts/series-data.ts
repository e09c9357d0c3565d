import type uPlot from 'uplot';
import type { Schemas } from '../../../api/client';

export type SeriesAnswer = Schemas['GridSeriesDto'];
export type SeriesPoint = Schemas['SeriesPointDto'];

/** What a line draws per bucket: its largest value, or how many rows (warnings) fell in it. */
export type SeriesValue = 'max' | 'count';

/** The telemetry grids write a row per stage or queue about every minute: a longer silence is missing data. */
export const ROW_CADENCE_MS = 60_000;

/**
 * A series answer as aligned uPlot data: x the buckets' starts (seconds), one y per line. A line's y is its
 * value where it has a point, `null` (drawn as a gap, spanGaps false) inside a silence longer than the rows'
 * cadence, and `undefined` (joined over) where only other lines have points.
 */
export interface ChartSeries {
  names: string[];
  data: uPlot.AlignedData;
  /** The points behind each y, to say more about them on hover. */
  points: (SeriesPoint | null)[][];
  /** The largest value drawn, to choose the unit from. */
  max: number;
}

/** One line's y per x: its value, null inside one of its silences, undefined elsewhere. */
function lineValues(
  xs: number[],
  own: Map<number, SeriesPoint>,
  gaps: Set<number>,
  value: SeriesValue,
): (number | null | undefined)[] {
  const times = [...own.keys()].sort((a, b) => a - b);
  let next = 0;
  return xs.map((x) => {
    const p = own.get(x);
    if (p) return value === 'count' ? p.count : p.max;
    while (next < times.length && times[next] < x) next++;
    const inside = next > 0 && next < times.length;
    if (!inside) return undefined;
    // between two of its own points: a gap when they are a silence apart
    return gaps.has(times[next - 1]) ? null : undefined;
  });
}

/**
 * The answer as the chart draws it, each line named by `label` (the measure's column label, not its member
 * name, when the grid has one line).
 */
export function chartSeries(
  answer: SeriesAnswer,
  label: (name: string) => string = (name) => name,
  value: SeriesValue = 'max',
): ChartSeries {
  const step = answer.bucketMilliseconds;
  const owns = answer.series.map((line) => new Map(line.points.map((p) => [Date.parse(p.time), p] as const)));
  // A silence: two points of a line further apart than the rows' cadence and a bucket's rounding. A marker x
  // a bucket after its start draws the gap even where no other line has a point.
  const limit = Math.max(ROW_CADENCE_MS, step) + step;
  const silenceStarts = owns.map((own) => {
    const times = [...own.keys()].sort((a, b) => a - b);
    return new Set(times.filter((t, i) => i + 1 < times.length && times[i + 1] - t > limit));
  });
  const markers = silenceStarts.flatMap((starts) => [...starts].map((t) => t + step));
  const xs = [...new Set([...owns.flatMap((own) => [...own.keys()]), ...markers])].sort((a, b) => a - b);
  const ys = owns.map((own, i) => lineValues(xs, own, silenceStarts[i], value));
  const points = owns.map((own) => xs.map((x) => own.get(x) ?? null));
  const max = Math.max(0, ...ys.flatMap((row) => row.filter((v): v is number => typeof v === 'number')));
  return {
    names: answer.series.map((l) => label(l.name)),
    data: [xs.map((x) => x / 1000), ...ys],
    points,
    max,
  };
}
