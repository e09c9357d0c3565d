/** A unit a duration (held in microseconds) is shown in: its symbol and how many microseconds make one. */
export interface DurationUnit {
  symbol: 'µs' | 'ms' | 's' | 'min';
  micros: number;
}

const UNITS: readonly DurationUnit[] = [
  { symbol: 'µs', micros: 1 },
  { symbol: 'ms', micros: 1_000 },
  { symbol: 's', micros: 1_000_000 },
  { symbol: 'min', micros: 60_000_000 },
];

/**
 * The one unit a quantity is shown in everywhere on a page (axis, table, tooltip, statistics), chosen from
 * the largest value of its range: the largest unit in which that value is at least 1 (1 875 529 µs: s). Every
 * other value of the range is then written in it (0 s, 0.2 s, 1.88 s), so nothing reads "0 µs" under "20 s".
 */
export function durationUnit(largest: number): DurationUnit {
  const size = Math.abs(largest);
  let chosen = UNITS[0];
  for (const unit of UNITS) if (size >= unit.micros) chosen = unit;
  return chosen;
}

const digits = [0, 1, 2, 3].map(
  (d) => new Intl.NumberFormat(undefined, { maximumFractionDigits: d, minimumFractionDigits: 0 }),
);

/**
 * A duration in a chosen unit: up to three significant digits below 100 (1.88 s, 12.3 s, 0.25 s), whole above;
 * `precise`: up to three decimals (the table and the statistics keep more of the digits).
 */
export function inUnit(micros: number, unit: DurationUnit, precise = false): string {
  const v = micros / unit.micros;
  const size = Math.abs(v);
  const fraction = precise ? 3 : size === 0 || size >= 100 ? 0 : size >= 10 ? 1 : 2;
  return `${digits[unit.symbol === 'µs' ? 0 : fraction].format(v)} ${unit.symbol}`;
}

/** The unit of each duration column, from the largest value the page has of it (statistics or rows). */
export function columnUnits(
  columns: readonly { key: string; format: string }[],
  largest: (key: string) => number,
): Record<string, DurationUnit> {
  return Object.fromEntries(
    columns.filter((c) => c.format === 'micros').map((c) => [c.key, durationUnit(largest(c.key))]),
  );
}
