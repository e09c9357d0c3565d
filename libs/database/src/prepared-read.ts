import type { DataSource } from 'typeorm';
import { providerOf } from './portable-columns';
import { sqliteGateOf } from './sqlite-gate';

/** One read of a hot path: the parameters in the order of the statement's named placeholders, rows as arrays. */
export type PreparedRead = (parameters: Record<string, unknown>) => Promise<unknown[][]>;

interface SqliteStatement {
  raw(toggle: boolean): SqliteStatement;
  all(...parameters: unknown[]): unknown[][];
}

interface SqliteHandle {
  prepare(sql: string): SqliteStatement;
}

interface PgPool {
  query(config: {
    name: string;
    text: string;
    values: unknown[];
    rowMode: 'array';
  }): Promise<{ rows: unknown[][] }>;
}

/** The driver's connection (or pool) under TypeORM; before initialisation or after destruction, the error
 * every other query of a closed DataSource gives (isDatabaseUnavailable reads it as unavailable). */
function connection<T>(dataSource: DataSource, field: 'databaseConnection' | 'master'): T {
  const handle = dataSource.isInitialized
    ? (dataSource.driver as unknown as Record<string, T | undefined>)[field]
    : undefined;
  if (!handle) throw new Error('DataSource is not initialized');
  return handle;
}

/**
 * A parameterised read that runs on EVERY request of some kind (the session check of every JWT request),
 * prepared once instead of going through TypeORM's query runner each time (its query building, logger and
 * subscriber broadcast cost more than the statement itself on SQLite: docs/performance.md):
 *   SQLite      one better-sqlite3 statement, prepared at the first call and kept (rows as arrays), its
 *               answer (or error) handed on as a Promise like every other driver's;
 *   PostgreSQL  a named statement on TypeORM's own pool (pg prepares it once per connection);
 *   SQL Server  TypeORM's query, its rows turned into arrays (not on a hot path anyone can measure here).
 * The SQL is written once with `:name` placeholders and translated by the driver of the DataSource, so the
 * values are always bound, never spliced in. Errors are the driver's own (a database that cannot answer
 * still reads as unavailable: isDatabaseUnavailable).
 */
export function preparedRead(
  dataSource: DataSource,
  name: string,
  sql: string,
  columns: readonly string[],
): PreparedRead {
  const order: string[] = [];
  // The driver's placeholder form and the order it binds in: escaped once with each name standing for itself.
  // (`::` is PostgreSQL's cast, never a placeholder)
  const probe = Object.fromEntries([...sql.matchAll(/(?<!:):(\w+)/g)].map(([, n]) => [n, n]));
  const [text, names] = dataSource.driver.escapeQueryWithParameters(sql, probe);
  for (const n of names as string[]) order.push(n);
  const values = (parameters: Record<string, unknown>) =>
    order.map((n) => {
      if (!(n in parameters)) throw new Error(`preparedRead ${name}: no value for :${n}`);
      return parameters[n];
    });
  switch (providerOf(dataSource.options.type)) {
    case 'sqlite': {
      // prepared on the connection it runs on: a DataSource initialised again has a new one
      let prepared: { on: SqliteHandle; statement: SqliteStatement } | undefined;
      return async (parameters) => {
        // as every statement outside a transaction: never an open transaction's uncommitted writes (SqliteGate)
        const gate = sqliteGateOf(dataSource);
        if (gate?.mustWait()) await gate.turn();
        const db = connection<SqliteHandle>(dataSource, 'databaseConnection');
        if (prepared?.on !== db) prepared = { on: db, statement: db.prepare(text).raw(true) };
        return prepared.statement.all(...values(parameters));
      };
    }
    case 'postgres': {
      return async (parameters) =>
        (
          await connection<PgPool>(dataSource, 'master').query({
            name,
            text,
            values: values(parameters),
            rowMode: 'array',
          })
        ).rows;
    }
    case 'mssql':
      return async (parameters) => {
        const rows: Record<string, unknown>[] = await dataSource.query(text, values(parameters));
        return rows.map((row) => columns.map((c) => row[c]));
      };
  }
}

/** A prepared read's boolean: booleans come back as true/false (PostgreSQL, SQL Server) or 1/0 (SQLite). */
export function rawBoolean(value: unknown): boolean {
  return value === true || value === 1 || value === '1';
}

/**
 * A prepared read's instant (ms): instants come back as Date (PostgreSQL, SQL Server) or as TypeORM's UTC text
 * (SQLite).
 */
export function rawInstant(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'string') {
    const ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value.replace(' ', 'T')}Z`);
    return Number.isNaN(ms) ? null : ms;
  }
  return null;
}
