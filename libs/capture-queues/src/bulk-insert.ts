import type { DatabaseProvider } from '@app/config';

/** `(p, p, p), (p, p, p)` for `rows` rows of `columns` columns, numbered from 0 in the dialect's style. */
export function valuesList(provider: DatabaseProvider, rows: number, columns: number): string {
  const tuples = new Array<string>(rows);
  let n = 0;
  for (let r = 0; r < rows; r++) {
    const marks = new Array<string>(columns);
    for (let c = 0; c < columns; c++, n++) {
      marks[c] = provider === 'postgres' ? `$${n + 1}` : provider === 'mssql' ? `@${n}` : '?';
    }
    tuples[r] = `(${marks.join(', ')})`;
  }
  return tuples.join(', ');
}

/** A row whose values could not even be turned into parameters (a malformed entry): refused, never retried. */
export class CaptureRowError extends Error {
  readonly code = 'CAPTURE_ROW_INVALID';
}

/**
 * A number a numeric capture column must not take: NaN and ±Infinity. PostgreSQL would store them in a
 * double column (and every statistic over it would be NaN), SQL Server refuses them (8023) and SQLite
 * turns NaN into NULL: refused as the row's fault on every dialect, before anything is sent.
 */
export function assertFiniteNumber(value: unknown, column: string): void {
  if (typeof value === 'number' && !Number.isFinite(value))
    throw new CaptureRowError(`${column} is ${value}, not a finite number`);
}

/**
 * True when the database refused the rows themselves (a value too long, out of range, a constraint), as
 * opposed to not being reachable: such a batch is split to find the row at fault instead of being retried
 * for ever. Anything else keeps the rows for the next flush.
 */
export function isRowRefused(error: unknown): boolean {
  const seen = new Set<unknown>();
  let e: unknown = error;
  while (e && typeof e === 'object' && !seen.has(e)) {
    seen.add(e);
    if (e instanceof CaptureRowError) return true;
    const rec = e as { code?: unknown; number?: unknown; driverError?: unknown; cause?: unknown };
    // PostgreSQL SQLSTATE class 22 (data exception) and 23 (integrity constraint violation).
    if (typeof rec.code === 'string' && /^2[23][0-9A-Z]{3}$/.test(rec.code)) return true;
    if (typeof rec.code === 'string' && /^SQLITE_(CONSTRAINT|MISMATCH|TOOBIG|RANGE)/.test(rec.code))
      return true;
    // SQL Server: NULL into NOT NULL, truncation, conversion, overflow, constraints, a float that is not
    // one (8023: NaN or ±Infinity sent as float), dates out of range or unparseable (241, 242).
    if (
      typeof rec.number === 'number' &&
      [515, 547, 2601, 2627, 2628, 8152, 8114, 245, 220, 8115, 8023, 241, 242].includes(rec.number)
    )
      return true;
    // node-mssql/tedious refusing a value before sending it (a bigint at or past 2^63, a date outside the
    // type's range, a number that is none): the row's fault, never the connection's.
    if (rec.code === 'EPARAM') return true;
    e = rec.driverError ?? rec.cause;
  }
  return false;
}
