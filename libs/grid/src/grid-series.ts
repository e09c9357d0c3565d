import { Problems } from '@app/problems';
import type { Params, SqlDialect } from './dialects';
import type { GridDefinition, GridSeries } from './grid-definition';
import type { GridQuery } from './grid-query';

/** Buckets a series answer holds at most, and by default (about one per 6 px of a wide chart). */
export const MAX_SERIES_BUCKETS = 1_000;
export const DEFAULT_SERIES_BUCKETS = 200;
/** 0001-01-01T00:00:00Z: the earliest instant every database stores (SQL Server's datetime2). */
const EARLIEST_STORED = Date.parse('0001-01-01T00:00:00.000Z');

/** Bucket widths a series uses: the smallest that keeps the window within the buckets asked for. */
const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WIDTHS = [
  1,
  2,
  5,
  10,
  20,
  50,
  100,
  200,
  500,
  SECOND,
  2 * SECOND,
  5 * SECOND,
  10 * SECOND,
  15 * SECOND,
  30 * SECOND,
  MINUTE,
  2 * MINUTE,
  5 * MINUTE,
  10 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  DAY,
];

/** One time bucket of one series: the measure's rows in it. */
export interface SeriesPoint {
  /** The bucket's start (ISO 8601, UTC). */
  time: string;
  count: number;
  min: number;
  max: number;
  sum: number;
}

export interface SeriesLine {
  /** The value of the grid's series column (stageId, queueId), or null for a grid with one series. */
  key: number | null;
  name: string;
  /** Non-empty buckets only, oldest first. */
  points: SeriesPoint[];
}

/** GET /api/<Grid>/Series: the grid's main measure per time bucket over the whole filtered window. */
export interface SeriesResponse {
  from: string;
  to: string;
  bucketMilliseconds: number;
  measure: string;
  series: SeriesLine[];
}

/** `measure`: the series' own measure (absent or empty) or one of the columns it declares it may measure instead. */
export function parseMeasure(series: GridSeries, raw: unknown): string {
  if (raw === undefined || raw === '') return series.measure;
  const allowed = [series.measure, ...(series.also ?? [])];
  if (typeof raw !== 'string' || !allowed.includes(raw))
    throw Problems.badParameter('measure', `measure must be one of ${allowed.join(', ')} (given once).`);
  return raw;
}

/** `buckets`: a whole number from 1 to MAX_SERIES_BUCKETS (default DEFAULT_SERIES_BUCKETS). */
export function parseBuckets(raw: unknown): number {
  if (raw === undefined || raw === '') return DEFAULT_SERIES_BUCKETS;
  if (typeof raw !== 'string' || !/^\s*\d{1,7}\s*$/.test(raw))
    throw Problems.badParameter('buckets', 'buckets must be a whole number (given once).');
  const n = Number(raw);
  if (n < 1 || n > MAX_SERIES_BUCKETS)
    throw Problems.badParameter('buckets', `buckets must be from 1 to ${MAX_SERIES_BUCKETS}.`);
  return n;
}

/**
 * The bucket width for a window and a number of buckets: a round width (1 s, 5 s, 1 min, 15 min, 1 h, …,
 * whole days beyond) at least the window divided by the buckets, so buckets start on whole minutes or hours
 * of the clock (they are counted from the epoch) and hold the stage rollups' minutes evenly.
 */
export function seriesWidth(spanMs: number, buckets: number): number {
  const least = Math.max(1, Math.ceil((spanMs + 1) / buckets));
  return WIDTHS.find((w) => w >= least) ?? Math.ceil(least / DAY) * DAY;
}

/** The statement of a series: per bucket (and series column) the count, min, max and sum of the measure. */
export function seriesStatement(
  d: SqlDialect,
  def: GridDefinition,
  series: GridSeries,
  where: (p: Params) => string,
  origin: Date,
  width: number,
): { sql: string; params: unknown[] } {
  const p = d.params();
  const measure = def.columns.find((c) => c.name === series.measure)!.column;
  const bucket = d.timeBucket(d.quote(def.timeColumn), p.add(d.instant(origin)), p.add(width));
  const by = series.by ? `${d.quote(series.by.column)} AS g, ` : '';
  // A derived table, so GROUP BY names the bucket once: SQL Server groups by no ordinal and would not match
  // the select list's expression with its own parameters.
  const inner = `SELECT ${bucket} AS b, ${by}${d.quote(measure)} AS v FROM ${d.quote(def.table)} WHERE ${where(p)}`;
  const sql =
    `SELECT b, ${series.by ? 'g, ' : ''}COUNT(*) AS n, MIN(v) AS lo, MAX(v) AS hi, SUM(v * 1.0) AS total ` +
    `FROM (${inner}) x GROUP BY b${series.by ? ', g' : ''}`;
  return { sql, params: p.values };
}

/** The statement's rows as the answer: series by key, points by time. */
export function seriesAnswer(
  def: GridDefinition,
  series: GridSeries,
  q: GridQuery,
  origin: Date,
  width: number,
  rows: Record<string, unknown>[],
): SeriesResponse {
  const lines = new Map<number | null, SeriesLine>();
  for (const r of rows) {
    const key = series.by ? Number(r.g) : null;
    let line = lines.get(key);
    if (!line) {
      const name = key === null ? series.measure : (series.by!.name(key) ?? String(key));
      lines.set(key, (line = { key, name, points: [] }));
    }
    line.points.push({
      time: new Date(origin.getTime() + Number(r.b) * width).toISOString(),
      count: Number(r.n),
      min: Number(r.lo),
      max: Number(r.hi),
      sum: Number(r.total),
    });
  }
  for (const line of lines.values()) line.points.sort((a, b) => a.time.localeCompare(b.time));
  return {
    from: q.from.toISOString(),
    to: q.to.toISOString(),
    bucketMilliseconds: width,
    measure: series.measure,
    series: [...lines.values()].sort((a, b) => (a.key ?? 0) - (b.key ?? 0)),
  };
}

/** The first bucket's start: `from` rounded down to a multiple of the width since the epoch. */
export function seriesOrigin(from: Date, width: number): Date {
  const aligned = Math.floor(from.getTime() / width) * width;
  // A window of centuries from near year 1 would align before what the databases store: start at from.
  return new Date(aligned < EARLIEST_STORED ? from.getTime() : aligned);
}
