import type { DataSource, QueryRunner } from 'typeorm';
import { isDatabaseUnavailable, SQL_SERVER_REQUEST_TIMEOUT } from '@app/problems';
import { providerOf } from './portable-columns';

/** A statement that only reads (a SELECT or a WITH … SELECT that writes nothing): safe to send twice. */
export function isIdempotentRead(sql: string): boolean {
  return /^\s*(SELECT|WITH)\b/i.test(sql) && !/\b(INTO|INSERT|UPDATE|DELETE|MERGE)\b/i.test(sql);
}

/** Cancelled by the request timeout: sending it again would double the wait, not help. */
function timedOut(err: unknown): boolean {
  const e = err as { code?: unknown; driverError?: { code?: unknown } } | null;
  return e?.code === SQL_SERVER_REQUEST_TIMEOUT || e?.driverError?.code === SQL_SERVER_REQUEST_TIMEOUT;
}

/**
 * SQL Server: a read outside any transaction that fails for a transient reason (deadlock victim,
 * lock time-out, an Azure transient error, a lost connection: isDatabaseUnavailable) is sent once more, on
 * a connection the pool gives again; a second failure, a write, or anything inside a transaction is the
 * caller's (a 503 with Retry-After at the HTTP edge). Wraps the query runners the DataSource's driver makes
 * (every DataSource.query and repository read goes through one). No effect on another database.
 */
export function retryIdempotentSqlServerReads(dataSource: DataSource): void {
  if (providerOf(dataSource.options.type) !== 'mssql') return;
  const driver = dataSource.driver;
  const create = driver.createQueryRunner.bind(driver);
  driver.createQueryRunner = (mode) => {
    const runner = create(mode);
    const query = runner.query.bind(runner) as (...args: unknown[]) => Promise<unknown>;
    runner.query = (async (...args: unknown[]) => {
      try {
        return await query(...args);
      } catch (err) {
        const sql = typeof args[0] === 'string' ? args[0] : '';
        if (
          runner.isTransactionActive ||
          !isIdempotentRead(sql) ||
          timedOut(err) ||
          !isDatabaseUnavailable(err)
        )
          throw err;
        return query(...args);
      }
    }) as QueryRunner['query'];
    return runner;
  };
}
