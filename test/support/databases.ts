import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@app/database';

export type TestProvider = 'sqlite' | 'postgres' | 'mssql';

/**
 * The databases the database-neutral suites run on: SQLite and PostgreSQL, and SQL Server too when
 * MSSQL_URL names a server to use (none runs on this project's machines: that path is untested here).
 */
export const TEST_PROVIDERS: TestProvider[] = [
  'sqlite',
  'postgres',
  ...(process.env.MSSQL_URL ? (['mssql'] as const) : []),
];

/** For the suites that speak SQLite's or PostgreSQL's own SQL or clients: never SQL Server. */
export const SQLITE_AND_POSTGRES: ('sqlite' | 'postgres')[] = ['sqlite', 'postgres'];

function requireEnv(name: string): string {
  const v = process.env[name];
  if (!v)
    throw new Error(
      `${name} is not set: run the tests through jest (globalSetup starts PostgreSQL and Redis).`,
    );
  return v;
}

/** A fresh PostgreSQL database cloned from the migrated template; returns its URL. */
export async function createPostgresDatabase(): Promise<string> {
  const admin = requireEnv('TEST_PG_ADMIN_URL');
  const template = requireEnv('TEST_PG_TEMPLATE');
  const name = `t_${template}_${randomBytes(6).toString('hex')}`;
  const client = new Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

/** An empty PostgreSQL database (no migrations); returns its URL. */
export async function createEmptyPostgresDatabase(): Promise<string> {
  const admin = requireEnv('TEST_PG_ADMIN_URL');
  const name = `t_${requireEnv('TEST_PG_TEMPLATE')}_${randomBytes(6).toString('hex')}`;
  const client = new Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs `work` on a connection to the server MSSQL_URL names (its own database, e.g. master). */
async function onSqlServer<T>(work: (ds: DataSource) => Promise<T>): Promise<T> {
  const ds = new DataSource(
    dataSourceOptions(
      { provider: 'mssql', connectionString: requireEnv('MSSQL_URL'), dataDirectory: '' },
      [],
      [],
    ),
  );
  await ds.initialize();
  try {
    return await work(ds);
  } finally {
    await ds.destroy();
  }
}

/**
 * A fresh, empty SQL Server database on the MSSQL_URL server, with READ_COMMITTED_SNAPSHOT ON (the service
 * refuses a database without it); the app's start migrates it. Returns its URL. Dropped by globalTeardown.
 */
export async function createSqlServerDatabase(): Promise<string> {
  const name = `${requireEnv('TEST_MSSQL_PREFIX')}${randomBytes(6).toString('hex')}`;
  await onSqlServer(async (ds) => {
    await ds.query(`CREATE DATABASE [${name}]`);
    await ds.query(`ALTER DATABASE [${name}] SET READ_COMMITTED_SNAPSHOT ON WITH ROLLBACK IMMEDIATE`);
  });
  const url = new URL(requireEnv('MSSQL_URL'));
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops every SQL Server database whose name starts with `prefix` (this run's). */
export async function dropSqlServerDatabases(prefix: string): Promise<void> {
  await onSqlServer(async (ds) => {
    const found = await ds.query<{ name: string }[]>(
      `SELECT [name] FROM [sys].[databases] WHERE [name] LIKE @0`,
      [`${prefix.replace(/[[_%]/g, '[$&]')}%`],
    );
    for (const { name } of found) {
      await ds.query(`ALTER DATABASE [${name}] SET SINGLE_USER WITH ROLLBACK IMMEDIATE`);
      await ds.query(`DROP DATABASE [${name}]`);
    }
  });
}

/** A connection URL to a fresh database of `provider` (migrated on PostgreSQL; SQL Server's migrate at start). */
export async function createDatabase(provider: TestProvider): Promise<string | undefined> {
  if (provider === 'postgres') return createPostgresDatabase();
  if (provider === 'mssql') return createSqlServerDatabase();
  return undefined;
}

/** A temp directory for a SQLite database (migrations run when the app or data source starts). */
export function createSqliteDirectory(): string {
  return mkdtempSync(join(tmpdir(), 'sqlite-test-'));
}

export function redisUrl(): string {
  return requireEnv('TEST_REDIS_URL');
}
