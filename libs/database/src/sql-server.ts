import { createRequire } from 'node:module';

/**
 * The part of the `mssql` package (node-mssql over tedious) this service touches itself, typed here: the
 * package ships no type declarations. TypeORM drives the rest.
 */
export interface MssqlType {
  (...args: unknown[]): { type: MssqlType };
  /** The T-SQL type name node-mssql declares the parameter as: 'datetime2', 'nvarchar', 'int' … */
  readonly declaration: string;
}

export interface MssqlModule {
  /** node-mssql's JavaScript type → SQL type table, used for every parameter bound without a type. */
  readonly map: { register(jsType: unknown, sqlType: MssqlType): void };
  readonly DateTime2: MssqlType;
  readonly Request: new (parent?: unknown) => object;
  readonly ConnectionPool: new (config: unknown) => object;
}

/** A variable, so that only a SQL Server start loads the package (and tedious) at all. */
const PACKAGE = 'mssql';
let loaded: MssqlModule | undefined;

/**
 * node-mssql, set up once for this service: a JavaScript Date bound without a column type (every raw-SQL
 * parameter, every QueryBuilder `:parameter`) is sent as `datetime2`, not node-mssql's default legacy
 * `datetime`, which rounds to 3.33 ms ticks (so `"LastLoginDate" = @0` against a datetime2 column rarely
 * matches) and refuses instants before 1753. The one place this mapping is made; every SQL Server
 * DataSource gets this module as its driver.
 */
export function sqlServerDriver(): MssqlModule {
  if (!loaded) {
    const mssql = createRequire(__filename)(PACKAGE) as MssqlModule;
    mssql.map.register(Date, mssql.DateTime2);
    loaded = mssql;
  }
  return loaded;
}

/**
 * The collation of SQL Server columns whose values must compare exactly as on PostgreSQL and SQLite (code
 * point by code point): the default case- and accent-insensitive collation would make a normalised user
 * name or a case key collide with a different one. BIN2 on nvarchar compares UTF-16 code units, whatever
 * the Latin1 code page says (that only applies to varchar).
 */
export const SQL_SERVER_BINARY_COLLATION = 'Latin1_General_100_BIN2';

/** The query that tells whether the connected database reads committed rows from row versions. */
export const READ_COMMITTED_SNAPSHOT_SQL =
  'SELECT DB_NAME() AS [name], [is_read_committed_snapshot_on] AS [on] FROM [sys].[databases] WHERE [database_id] = DB_ID()';

/**
 * Refuses a SQL Server database without READ_COMMITTED_SNAPSHOT: without it a statement reads no single
 * snapshot (a grid's rows, total and statistics could disagree, and its cache check relies on one) and
 * every grid read waits for the capture writers' locks, and they for it. Throws one line naming the
 * setting and the statement that fixes it.
 */
export async function assertReadCommittedSnapshot(
  query: (sql: string) => Promise<{ name?: unknown; on?: unknown }[]>,
): Promise<void> {
  const [row] = await query(READ_COMMITTED_SNAPSHOT_SQL);
  if (row && (row.on === true || row.on === 1)) return;
  const name = typeof row?.name === 'string' ? row.name : undefined;
  const target = name === undefined ? 'CURRENT' : `[${name.replace(/]/g, ']]')}]`;
  throw new Error(
    `SQL Server database ${name ?? '(current)'} has READ_COMMITTED_SNAPSHOT OFF; the service needs it ON (one ` +
      `snapshot per statement, readers never blocking writers): run ALTER DATABASE ${target} SET ` +
      `READ_COMMITTED_SNAPSHOT ON WITH ROLLBACK IMMEDIATE, then start again`,
  );
}
