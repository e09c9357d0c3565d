import { formatInstant } from '../../components/time';
import type { ColumnFormat } from './declarations';
import { inUnit, type DurationUnit } from './units';

const integer = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
const compact = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 });
const significant = new Intl.NumberFormat(undefined, { maximumSignificantDigits: 3 });

/**
 * A number as the column shows it: a duration in the quantity's unit when the page chose one (units.ts),
 * else in microseconds; counts whole.
 */
export function formatNumber(
  value: number,
  format: ColumnFormat,
  precise = false,
  unit?: DurationUnit,
): string {
  if (format === 'micros' && unit) return inUnit(value, unit, precise);
  const text = (precise || !Number.isInteger(value) ? decimal : integer).format(value);
  return format === 'micros' ? `${text} µs` : text;
}

/** Short axis labels (12.3K). */
export function compactNumber(value: number): string {
  return compact.format(value);
}

/** Durations in the unit that reads best, to three significant digits: 850 µs, 318 ms, 12.3 s, 4.5 min. */
export function formatDuration(micros: number): string {
  const size = Math.abs(micros);
  if (size < 1_000) return `${significant.format(micros)} µs`;
  if (size < 1_000_000) return `${significant.format(micros / 1_000)} ms`;
  if (size < 60_000_000) return `${significant.format(micros / 1_000_000)} s`;
  return `${significant.format(micros / 60_000_000)} min`;
}

/**
 * A value of a chart's axis or tooltip: durations in the quantity's unit (else each in its best unit), other
 * numbers short (12.3K).
 */
export function chartValue(value: number, format: ColumnFormat, unit?: DurationUnit): string {
  if (format === 'micros') return unit ? inUnit(value, unit) : formatDuration(value);
  return compactNumber(value);
}

/** Any value of a row as text (rows are JSON: strings, numbers, booleans, null). */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return value === null || value === undefined ? '' : JSON.stringify(value);
}

/** One cell of the table. Nothing is ever rendered as HTML: React escapes every value. */
export function formatCell(value: unknown, format: ColumnFormat, unit?: DurationUnit): string {
  if (value === null || value === undefined || value === '') return '—';
  switch (format) {
    case 'instant': {
      const ms = Date.parse(textOf(value));
      return Number.isNaN(ms) ? textOf(value) : formatInstant(ms);
    }
    case 'number':
    case 'micros':
      return typeof value === 'number' ? formatNumber(value, format, true, unit) : textOf(value);
    case 'boolean':
      return value === true ? 'Yes' : value === false ? 'No' : textOf(value);
    default:
      return textOf(value);
  }
}

/**
 * A column's sum over the window from the service's statistics (mean × count, rounded: the columns summed
 * are counts), the same on the grid page and on the home page's figure it checks.
 */
export function statisticsSum(s: { count: number; mean: number | null }): number {
  return s.count === 0 || s.mean === null ? 0 : Math.round(s.mean * s.count);
}
