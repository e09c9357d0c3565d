import { useQueries, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import { gridNamed, gridPath } from '../grids/declarations';
import { fetchGrid, fetchSeries, type Row } from '../grids/grid-api';
import { statisticsSum } from '../grids/format';
import type { GridResponse } from '../grids/grid-types';
import { DEFAULT_RANGE, isoWithOffset, RANGES } from '../grids/toolbar-state';

/** The figures are read again every minute (and by Refresh), for the chosen span up to then. */
const REFRESH = 60_000;
/** About how many points a sparkline has (the service rounds the width: 6 hours are 24 of 15 minutes). */
export const SPARK_BUCKETS = 30;

export type HomeRange = (typeof RANGES)[number]['value'];

export interface HealthWindow {
  /** The preset (the grids' presets), held in the URL as `range`. */
  range: HomeRange;
  label: string;
  from: string;
  to: string;
  /** Reads the figures again, for the span up to now. */
  refresh: () => void;
  choose: (range: HomeRange) => void;
}

/** The home page's window: the URL's preset (the grids' own), up to the moment it was read. */
export function useHealthWindow(): HealthWindow {
  const [url, setUrl] = useSearchParams();
  const preset =
    RANGES.find((r) => r.value === url.get('range')) ?? RANGES.find((r) => r.value === DEFAULT_RANGE)!;
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), REFRESH);
    return () => clearInterval(timer);
  }, []);
  return {
    range: preset.value,
    label: preset.label,
    from: isoWithOffset(new Date(now - preset.ms)),
    to: isoWithOffset(new Date(now)),
    refresh: () => setNow(Date.now()),
    choose: (range) => {
      setNow(Date.now());
      setUrl(range === DEFAULT_RANGE ? {} : { range }, { replace: false });
    },
  };
}

/**
 * One figure of the home page: a grid's answer for the window (and `filters`), and the link to that grid
 * with the same window and filters, so the grid shows the same rows the figure counts.
 */
export function useGridFigure(name: string, hour: HealthWindow, filters: Record<string, string>) {
  const grid = gridNamed(name);
  const view = new URLSearchParams({ from: hour.from, to: hour.to, ...filters });
  const answer = useQuery({
    queryKey: ['home', name, view.toString()],
    queryFn: ({ signal }) =>
      fetchGrid(grid!, new URLSearchParams({ ...Object.fromEntries(view), take: '1' }), signal),
    enabled: grid !== undefined,
    placeholderData: (previous) => previous,
  });
  return { answer, href: grid ? `${gridPath(grid)}?${view.toString()}` : '/' };
}

/** The rows a stage rollup counted over the window: the sum of invokeCount (its mean times its rows). */
export function invocations(answer: GridResponse<Row> | undefined): number | null {
  const s = answer?.statistics.invokeCount;
  if (!s) return null;
  return statisticsSum(s);
}

/** What a sparkline point is: the largest value (a depth), the rows (warnings) or the sum (invocations). */
export type SparkValue = 'max' | 'count' | 'sum';

/** The bucket starts of a series answer's window, oldest first (buckets are counted from the epoch). */
function bucketStarts(from: number, to: number, width: number): number[] {
  const out: number[] = [];
  for (let t = Math.floor(from / width) * width; t < to; t += width) out.push(t);
  return out;
}

/**
 * A figure's trend from the grid's series (GET /api/<Grid>/Series) over the same window and filters: per
 * bucket the lines' sum (rows, invocations) or largest value (a depth); a bucket without rows is 0 for a
 * count or sum and a gap (null) for a depth, which nothing measured.
 */
export function useSparkline(
  name: string,
  hour: HealthWindow,
  filters: Record<string, string>,
  value: SparkValue,
  measure?: string,
) {
  const grid = gridNamed(name);
  const view = new URLSearchParams({
    from: hour.from,
    to: hour.to,
    ...filters,
    ...(measure ? { measure } : {}),
  });
  return useQuery({
    queryKey: ['home-series', name, view.toString()],
    queryFn: async ({ signal }) => {
      const s = await fetchSeries(grid!, view, SPARK_BUCKETS, signal);
      const starts = bucketStarts(Date.parse(s.from), Date.parse(s.to), s.bucketMilliseconds);
      const at = new Map(starts.map((t, i) => [t, i]));
      const values: (number | null)[] = starts.map(() => (value === 'max' ? null : 0));
      for (const line of s.series)
        for (const p of line.points) {
          const i = at.get(Date.parse(p.time));
          if (i === undefined) continue;
          const v = value === 'max' ? p.max : value === 'sum' ? p.sum : p.count;
          const was = values[i];
          values[i] = value === 'max' ? Math.max(was ?? v, v) : (was ?? 0) + v;
        }
      return values;
    },
    enabled: grid !== undefined,
    placeholderData: (previous) => previous,
  });
}

/**
 * A count's trend where the grid has no series (the sign-in audit): the window cut into equal parts, each
 * part's count (the service's `total`, one row asked for), read together.
 */
export function useCountSparkline(name: string, hour: HealthWindow, filters: Record<string, string>) {
  const grid = gridNamed(name);
  const from = Date.parse(hour.from);
  const step = (Date.parse(hour.to) - from) / 12;
  const parts = Array.from({ length: 12 }, (_, i) => ({
    from: isoWithOffset(new Date(from + i * step)),
    to: isoWithOffset(new Date(from + (i + 1) * step - 1)),
  }));
  return useQueries({
    queries: parts.map((part) => ({
      queryKey: ['home-part', name, part.from, part.to, JSON.stringify(filters)],
      queryFn: ({ signal }: { signal: AbortSignal }) =>
        fetchGrid(grid!, new URLSearchParams({ ...part, ...filters, take: '1' }), signal),
      enabled: grid !== undefined,
    })),
    combine: (answers) => (answers.every((a) => a.data) ? answers.map((a) => a.data!.total) : undefined),
  });
}
