import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DataSourceOptions, MixedList, EntitySchema, MigrationInterface } from 'typeorm';
import type { DatabaseProvider } from '@app/config';
import { applyPortableColumnTypes } from './portable-columns';
import { sqlServerDriver } from './sql-server';
import { restrictSqliteFiles } from './sqlite-files';

export interface DatabaseTarget {
  provider: DatabaseProvider;
  /** postgres:// or mssql:// URL; unused for sqlite. */
  connectionString?: string;
  /** Folder of the SQLite file. */
  dataDirectory: string;
  /** Full path of the SQLite file; default DataDirectory/service.sqlite. */
  sqliteFile?: string;
  /** SQL Server: statement and connection timeouts (the settings; their defaults when absent). */
  sqlServerTimeouts?: SqlServerTimeouts;
}

export interface SqlServerTimeouts {
  /** SqlServerRequestTimeoutMilliseconds (or SqlServerMigrationTimeoutMilliseconds for migrations). */
  requestMs: number;
  /** SqlServerConnectionTimeoutMilliseconds. */
  connectionMs: number;
}

/** The settings' defaults (libs/config), for a target that names none (tools, tests). */
export const SQL_SERVER_DEFAULT_TIMEOUTS: SqlServerTimeouts = { requestMs: 30_000, connectionMs: 15_000 };

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
type EntityList = MixedList<Function | string | EntitySchema>;
type MigrationList = MixedList<(new () => MigrationInterface) | string>;

/** An SQL function on every SQLite connection: Unicode lower case (JavaScript's toLowerCase). */
export const SQLITE_UNICODE_LOWER = 'service_lower';

interface SqliteConnection {
  pragma(source: string): unknown;
  function(name: string, options: { deterministic: boolean }, fn: (value: unknown) => unknown): unknown;
}

/** TypeORM options for one of the three databases. Never logs the connection string. */
export function dataSourceOptions(
  target: DatabaseTarget,
  entities: EntityList,
  migrations: MigrationList,
): DataSourceOptions {
  applyPortableColumnTypes(target.provider);
  const common = { entities, migrations, migrationsRun: false, synchronize: false, logging: false as const };
  switch (target.provider) {
    case 'sqlite': {
      const file = target.sqliteFile ?? join(resolve(target.dataDirectory), 'service.sqlite');
      mkdirSync(resolve(file, '..'), { recursive: true, mode: 0o700 });
      return {
        ...common,
        type: 'better-sqlite3',
        database: file,
        // WAL lets readers (grids) run while the flushes write; busy_timeout waits out short write locks.
        prepareDatabase: (db: SqliteConnection) => {
          db.pragma('journal_mode = WAL');
          db.pragma('synchronous = NORMAL');
          db.pragma('busy_timeout = 5000');
          // SQLite's LOWER() folds ASCII only; searches need the same Unicode folding as the pattern's.
          db.function(SQLITE_UNICODE_LOWER, { deterministic: true }, (v: unknown) =>
            typeof v === 'string' ? v.toLowerCase() : v,
          );
          // Owner only, as the embedded secrets beside them: better-sqlite3 created the file 0644.
          restrictSqliteFiles(file);
        },
      };
    }
    case 'postgres':
      return {
        ...common,
        type: 'postgres',
        url: target.connectionString,
        extra: { max: 10, connectionTimeoutMillis: 5000, idleTimeoutMillis: 30000 },
      };
    case 'mssql': {
      const url = new URL(target.connectionString ?? '');
      const timeouts = target.sqlServerTimeouts ?? SQL_SERVER_DEFAULT_TIMEOUTS;
      return {
        ...common,
        type: 'mssql',
        // node-mssql's 15 s defaults would apply to every statement, migrations included.
        requestTimeout: timeouts.requestMs,
        connectionTimeout: timeouts.connectionMs,
        // node-mssql with JavaScript dates bound as datetime2 (see sqlServerDriver).
        driver: sqlServerDriver(),
        host: url.hostname,
        port: url.port ? Number(url.port) : 1433,
        username: decodeURIComponent(url.username),
        password: decodeURIComponent(url.password),
        database: decodeURIComponent(url.pathname.replace(/^\//, '')),
        options: {
          encrypt: url.searchParams.get('encrypt') !== 'false',
          trustServerCertificate: url.searchParams.get('trustServerCertificate') === 'true',
          // TypeORM defaults tedious to useUTC: false, which stores the host's local wall time in datetime2
          // (wrong across a daylight-saving fall-back, and between nodes in different zones). Instants are UTC.
          useUTC: true,
        },
        pool: { max: 10 },
      };
    }
  }
}
