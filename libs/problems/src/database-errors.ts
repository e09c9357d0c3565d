/**
 * True when an error means the database could not be reached or answered (as opposed to a query that was
 * refused). Such a failure becomes a 503 problem, never a 500 and never a silent success.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  const pending: unknown[] = [error];
  while (pending.length) {
    const e = pending.pop();
    if (!e || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    if (unavailableItself(e)) return true;
    // TypeORM's QueryFailedError keeps the driver's error; node-mssql's keeps tedious's (originalError).
    const rec = e as { driverError?: unknown; cause?: unknown; originalError?: unknown };
    pending.push(rec.driverError, rec.cause, rec.originalError);
  }
  return false;
}

/**
 * SQL Server errors that mean "try again shortly" (a busy server, not a refused row): 1205 deadlock victim, 1222 lock request time-out,
 * and Azure SQL's transient errors 40613 (database not currently available), 40501 (service busy), 40197
 * (error processing the request, a failover), 49918 (not enough resources), 4060 (cannot open the database).
 */
export const SQL_SERVER_TRANSIENT_ERRORS: readonly number[] = [1205, 1222, 40613, 40501, 40197, 49918, 4060];

/** node-mssql's code for a statement cancelled by its request timeout. */
export const SQL_SERVER_REQUEST_TIMEOUT = 'ETIMEOUT';

function unavailableItself(e: object): boolean {
  const rec = e as { code?: unknown; name?: unknown; message?: unknown; number?: unknown };
  const code = typeof rec.code === 'string' ? rec.code : '';
  if (
    [
      'ECONNREFUSED',
      'ECONNRESET',
      'ETIMEDOUT',
      'EPIPE',
      'ENOTFOUND',
      'EHOSTUNREACH',
      'ESOCKET',
      SQL_SERVER_REQUEST_TIMEOUT,
      // node-mssql: the pool's connection closed, not open yet, or the login refused
      'ECONNCLOSED',
      'ENOTOPEN',
      'ELOGIN',
    ].includes(code)
  )
    return true;
  if (typeof rec.number === 'number' && SQL_SERVER_TRANSIENT_ERRORS.includes(rec.number)) return true;
  // PostgreSQL: class 08 connection exception, 57P01-57P03 shutdown / cannot connect now, 53300 too many connections
  if (/^(08...|57P0[123]|53300)$/.test(code)) return true;
  // SQLite: database locked/busy past the busy timeout
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return true;
  const message = typeof rec.message === 'string' ? rec.message : '';
  if (
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection is not established|DataSource is not initialized|pool is (draining|ending)|Cannot use a pool after calling end|Connection lost/i.test(
      message,
    )
  )
    return true;
  return rec.name === 'DatabaseTimeoutError';
}

/** True for a unique-constraint (or primary-key) violation on any of the three databases. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as {
    code?: unknown;
    number?: unknown;
    driverError?: { code?: unknown; number?: unknown };
  } | null;
  const codes = [e?.code, e?.driverError?.code, e?.number, e?.driverError?.number];
  // SQLite names a primary key's refusal apart from a unique index's; the others give both one code.
  return codes.some(
    (c) =>
      c === '23505' ||
      c === 'SQLITE_CONSTRAINT_UNIQUE' ||
      c === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
      c === 2601 ||
      c === 2627,
  );
}
