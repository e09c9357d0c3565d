import type { DatabaseProvider } from '@app/config';

/**
 * Bind parameters one statement may carry: SQLite's SQLITE_MAX_VARIABLE_NUMBER (32766 since 3.32),
 * PostgreSQL's wire protocol (65535), SQL Server's 2100 per request less the two sp_executesql takes for
 * its own arguments. Every multi-row statement is sized from this one table.
 */
export const PARAMETER_LIMITS: Readonly<Record<DatabaseProvider, number>> = {
  sqlite: 32_766,
  postgres: 65_535,
  mssql: 2_098,
};

/** Row constructors one INSERT … VALUES may carry: SQL Server refuses more than 1000. */
export const VALUES_ROW_LIMITS: Readonly<Record<DatabaseProvider, number>> = {
  sqlite: Number.MAX_SAFE_INTEGER,
  postgres: Number.MAX_SAFE_INTEGER,
  mssql: 1_000,
};

/** Rows one multi-row INSERT … VALUES may carry for a table of `columns` bound columns. */
export function rowsPerStatement(provider: DatabaseProvider, columns: number): number {
  return Math.max(1, Math.min(Math.floor(PARAMETER_LIMITS[provider] / columns), VALUES_ROW_LIMITS[provider]));
}

/**
 * Values one `IN (…)` list may carry on every dialect: well inside SQL Server's limit, so the rest of the
 * statement's parameters (a tenant, a deleted-date test, a guid) always fit beside it.
 */
export const IN_LIST_CHUNK = 1_000;

/** `values` cut into consecutive slices of at most `size`. */
export function chunked<T>(values: readonly T[], size: number): T[][] {
  if (!Number.isInteger(size) || size < 1)
    throw new RangeError(`chunk size ${size} is not a positive integer`);
  const out: T[][] = [];
  for (let from = 0; from < values.length; from += size) out.push(values.slice(from, from + size));
  return out;
}

/**
 * A lookup by a list of values, one statement per IN_LIST_CHUNK values (one after another, never in
 * parallel: a transaction has one connection); the results concatenated in chunk order. Duplicates are
 * removed first. No statement at all for an empty list.
 */
export async function findInChunks<T, R>(
  values: readonly T[],
  find: (chunk: T[]) => Promise<R[]>,
): Promise<R[]> {
  const out: R[] = [];
  for (const chunk of chunked([...new Set(values)], IN_LIST_CHUNK)) out.push(...(await find(chunk)));
  return out;
}
