import type { DatabaseProvider } from '@app/config';

/**
 * Bind-parameter limits per statement: SQLite's SQLITE_MAX_VARIABLE_NUMBER (32766 since 3.32), PostgreSQL's
 * wire protocol (65535), SQL Server's 2100 less the two sp_executesql uses for itself.
 */
export const PARAMETER_LIMITS: Readonly<Record<DatabaseProvider, number>> = {
  sqlite: 32_766,
  postgres: 65_535,
  mssql: 2_098,
};

/** SQL Server also refuses more than 1000 row constructors in one VALUES list. */
const ROW_LIMITS: Readonly<Record<DatabaseProvider, number>> = {
  sqlite: Number.MAX_SAFE_INTEGER,
  postgres: Number.MAX_SAFE_INTEGER,
  mssql: 1_000,
};

/** Rows one multi-row INSERT may carry for a table of `columns` columns. */
export function rowsPerStatement(provider: DatabaseProvider, columns: number): number {
  return Math.max(1, Math.min(Math.floor(PARAMETER_LIMITS[provider] / columns), ROW_LIMITS[provider]));
}

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
    // SQL Server: NULL into NOT NULL, truncation, conversion, overflow, constraints.
    if (
      typeof rec.number === 'number' &&
      [515, 547, 2601, 2627, 2628, 8152, 8114, 245, 220, 8115].includes(rec.number)
    )
      return true;
    e = rec.driverError ?? rec.cause;
  }
  return false;
}
