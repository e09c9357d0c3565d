/**
 * True when an error means the database could not be reached or answered (as opposed to a query that was
 * refused). Such a failure becomes a 503 problem, never a 500 and never a silent success.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  let e: unknown = error;
  while (e && typeof e === 'object' && !seen.has(e)) {
    seen.add(e);
    const rec = e as {
      code?: unknown;
      name?: unknown;
      message?: unknown;
      driverError?: unknown;
      cause?: unknown;
    };
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
        'ETIMEOUT',
        // node-mssql: the pool's connection closed, not open yet, or the login refused
        'ECONNCLOSED',
        'ENOTOPEN',
        'ELOGIN',
      ].includes(code)
    )
      return true;
    // PostgreSQL: class 08 connection exception, 57P01-57P03 shutdown / cannot connect now, 53300 too many connections
    if (/^(08...|57P0[123]|53300)$/.test(code)) return true;
    // SQLite: database locked/busy past the busy timeout
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return true;
    const message = typeof rec.message === 'string' ? rec.message : '';
    if (
      /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection is not established|DataSource is not initialized|pool is (draining|ending)|Cannot use a pool after calling end/i.test(
        message,
      )
    )
      return true;
    if (rec.name === 'DatabaseTimeoutError') return true;
    e = rec.driverError ?? rec.cause;
  }
  return false;
}

/** True for a unique-constraint violation on any of the three databases. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as {
    code?: unknown;
    number?: unknown;
    driverError?: { code?: unknown; number?: unknown };
  } | null;
  const codes = [e?.code, e?.driverError?.code, e?.number, e?.driverError?.number];
  return codes.some((c) => c === '23505' || c === 'SQLITE_CONSTRAINT_UNIQUE' || c === 2601 || c === 2627);
}
