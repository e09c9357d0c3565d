import {
  Column,
  ColumnOptions,
  Generated,
  getMetadataArgsStorage,
  TableColumnOptions,
  VersionColumn,
} from 'typeorm';
import type { DatabaseProvider } from '@app/config';
import { SQL_SERVER_BINARY_COLLATION } from './sql-server';

/**
 * Column kinds that mean the same on SQLite, PostgreSQL and SQL Server. Entities and migrations both name
 * a kind, and this file alone decides the concrete type per dialect, so one migration set serves all three.
 */
export type PortableKind =
  | 'string'
  | 'binaryString'
  | 'text'
  | 'integer'
  | 'bigint'
  | 'boolean'
  | 'timestamp'
  | 'double'
  | 'identity64';

const TYPES: Record<
  PortableKind,
  Record<DatabaseProvider, { type: string; length?: string; collation?: string }>
> = {
  string: { postgres: { type: 'varchar' }, sqlite: { type: 'varchar' }, mssql: { type: 'nvarchar' } },
  // A string compared code point by code point, as PostgreSQL and SQLite compare every string; SQL Server's
  // default collation would fold case (and often accents). Set on SQL Server by a migration of its own.
  binaryString: {
    postgres: { type: 'varchar' },
    sqlite: { type: 'varchar' },
    mssql: { type: 'nvarchar', collation: SQL_SERVER_BINARY_COLLATION },
  },
  text: { postgres: { type: 'text' }, sqlite: { type: 'text' }, mssql: { type: 'nvarchar', length: 'MAX' } },
  integer: { postgres: { type: 'integer' }, sqlite: { type: 'integer' }, mssql: { type: 'int' } },
  bigint: { postgres: { type: 'bigint' }, sqlite: { type: 'bigint' }, mssql: { type: 'bigint' } },
  boolean: { postgres: { type: 'boolean' }, sqlite: { type: 'boolean' }, mssql: { type: 'bit' } },
  // UTC instants: timestamptz keeps the offset on PostgreSQL; TypeORM stores SQLite datetimes as UTC text.
  timestamp: {
    postgres: { type: 'timestamptz' },
    sqlite: { type: 'datetime' },
    mssql: { type: 'datetime2' },
  },
  double: {
    postgres: { type: 'double precision' },
    sqlite: { type: 'double precision' },
    mssql: { type: 'float' },
  },
  // A 64-bit generated key for append-heavy tables (telemetry). SQLite only autoincrements an INTEGER
  // PRIMARY KEY, which is 64-bit there anyway.
  identity64: { postgres: { type: 'bigint' }, sqlite: { type: 'integer' }, mssql: { type: 'bigint' } },
};

/** bigint comes back from pg as a string; counters here stay well inside 2^53. */
const bigintTransformer = {
  to: (v: number | null | undefined) => v,
  from: (v: string | number | null) => (v === null || v === undefined ? v : Number(v)),
};

const registered = new Map<object, Map<string, PortableKind>>();

export function providerOf(type: string): DatabaseProvider {
  if (type === 'postgres') return 'postgres';
  if (type === 'mssql') return 'mssql';
  if (type === 'better-sqlite3' || type === 'sqlite') return 'sqlite';
  throw new Error(`Unsupported database type ${type}`);
}

/** Entity column of a portable kind. `length` applies to 'string'. */
/** Remembers the portable kind of an entity's column, for applyPortableColumnTypes. */
function register(target: object, propertyKey: string | symbol, kind: PortableKind): void {
  let byProp = registered.get(target.constructor);
  if (!byProp) registered.set(target.constructor, (byProp = new Map<string, PortableKind>()));
  byProp.set(String(propertyKey), kind);
}

export function PortableColumn(
  kind: PortableKind,
  options: Omit<ColumnOptions, 'type'> = {},
): PropertyDecorator {
  return (target: object, propertyKey: string | symbol) => {
    register(target, propertyKey, kind);
    const extra: ColumnOptions =
      kind === 'bigint' || kind === 'identity64' ? { transformer: bigintTransformer } : {};
    Column({ ...options, ...extra, type: TYPES[kind].postgres.type as ColumnOptions['type'] })(
      target,
      propertyKey,
    );
  };
}

/**
 * The row version `Version` (integer, 1 for a new row) of a record that clients edit concurrently: TypeORM adds
 * 1 to it in every UPDATE it builds for the entity (its VersionColumn), so no write can forget it. It is the
 * record's ETag, and the `WHERE "Version" = :v` of an If-Match write (docs/api-contract.md).
 */
export function PortableVersionColumn(): PropertyDecorator {
  return (target: object, propertyKey: string | symbol) => {
    register(target, propertyKey, 'integer');
    VersionColumn({
      name: 'Version',
      type: TYPES.integer.postgres.type as ColumnOptions['type'],
      default: 1,
    })(target, propertyKey);
  };
}

/**
 * 64-bit generated primary key named Id (constraint PK_<table>), for tables that only grow and are trimmed
 * (telemetry): read back as a number.
 */
export function PortableIdentityColumn(table: string): PropertyDecorator {
  return (target: object, propertyKey: string | symbol) => {
    PortableColumn('identity64', { name: 'Id', primary: true, primaryKeyConstraintName: `PK_${table}` })(
      target,
      propertyKey,
    );
    Generated('increment')(target, propertyKey);
  };
}

/**
 * Rewrites the column types of every portable column for one dialect. Call right before a DataSource is
 * initialised: TypeORM copies the types into its own metadata then, so DataSources of different dialects
 * may be initialised one after another in one process.
 */
export function applyPortableColumnTypes(provider: DatabaseProvider): void {
  for (const column of getMetadataArgsStorage().columns) {
    const target = column.target;
    if (typeof target !== 'function') continue;
    const kind = registered.get(target)?.get(column.propertyName);
    if (!kind) continue;
    const t = TYPES[kind][provider];
    column.options.type = t.type as ColumnOptions['type'];
    if (t.length) column.options.length = t.length;
    else if (kind === 'text') delete column.options.length;
    if (t.collation) column.options.collation = t.collation;
    else delete column.options.collation;
  }
}

/** Migration column of a portable kind, for the dialect of the running query runner. */
export function portableColumn(
  provider: DatabaseProvider,
  kind: PortableKind,
  name: string,
  options: Omit<TableColumnOptions, 'name' | 'type'> = {},
): TableColumnOptions {
  const t = TYPES[kind][provider];
  return {
    ...options,
    name,
    type: t.type,
    ...(t.length ? { length: t.length } : {}),
    ...(t.collation ? { collation: t.collation } : {}),
  };
}
