import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { providerOf } from './portable-columns';

/** One table's size from the database's own statistics (never a count): null where the database cannot tell cheaply. */
export interface TableSize {
  table: string;
  rows: number | null;
  bytes: number | null;
}

export interface DatabaseSizes {
  /** The whole database (SQLite: the file and its write-ahead log). */
  bytes: number | null;
  tables: TableSize[];
}

/** Names are checked before they reach the one statement that must name a table (SQLite's ANALYZE). */
const TABLE_NAME = /^[A-Za-z][A-Za-z0-9]{0,127}$/;

const num = (v: unknown): number | null => {
  if (v === null || v === undefined) return null;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : null;
};

/**
 * The sizes of `tables` from each database's statistics: PostgreSQL's pg_class estimate (reltuples, null until
 * the table was first analysed) and pg_total_relation_size (indexes and TOAST included); SQL Server's
 * sys.dm_db_partition_stats; SQLite's rowid span (MAX - MIN + 1: two index look-ups, an overestimate by the rows
 * deleted in between) for rows, and the file's pages for the whole database (a table's own bytes would need a
 * walk of all its pages: null).
 */
@Injectable()
export class DatabaseSizeRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  read(tables: readonly string[]): Promise<DatabaseSizes> {
    return databaseSizes(this.dataSource, tables);
  }
}

async function databaseSizes(ds: DataSource, tables: readonly string[]): Promise<DatabaseSizes> {
  const provider = providerOf(ds.options.type);
  for (const t of tables) if (!TABLE_NAME.test(t)) throw new Error(`${t} is not a plain table name`);
  if (provider === 'postgres') {
    const rows = await ds.query<{ table: string; rows: string; bytes: string }[]>(
      `SELECT c.relname AS "table", c.reltuples AS "rows", pg_total_relation_size(c.oid) AS "bytes"
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND c.relname = ANY($1)`,
      [tables],
    );
    const [db] = await ds.query<{ bytes: string }[]>(
      `SELECT pg_database_size(current_database()) AS "bytes"`,
    );
    return { bytes: num(db?.bytes), tables: ordered(tables, rows) };
  }
  if (provider === 'mssql') {
    const marks = tables.map((_, i) => `@${i}`).join(', ');
    const rows = await ds.query<{ table: string; rows: string; bytes: string }[]>(
      `SELECT t.name AS [table], SUM(CASE WHEN p.index_id IN (0, 1) THEN p.row_count ELSE 0 END) AS [rows],
  SUM(p.used_page_count) * 8192 AS [bytes]
FROM sys.dm_db_partition_stats p JOIN sys.tables t ON t.object_id = p.object_id
WHERE t.name IN (${marks}) GROUP BY t.name`,
      [...tables],
    );
    const [db] = await ds.query<{ bytes: string }[]>(
      'SELECT SUM(CAST(size AS bigint)) * 8192 AS [bytes] FROM sys.database_files',
    );
    return { bytes: num(db?.bytes), tables: ordered(tables, rows) };
  }
  const rows: { table: string; rows: unknown }[] = [];
  for (const t of tables) {
    const [span] = await ds.query<{ rows: number | null }[]>(sqliteRowSpan(t));
    rows.push({ table: t, rows: span?.rows ?? 0 });
  }
  const [pages] = await ds.query<{ page_count: number }[]>('PRAGMA page_count');
  const [size] = await ds.query<{ page_size: number }[]>('PRAGMA page_size');
  return {
    bytes:
      num(pages?.page_count) === null || num(size?.page_size) === null
        ? null
        : pages.page_count * size.page_size,
    tables: ordered(
      tables,
      rows.map((r) => ({ ...r, bytes: null })),
    ),
  };
}

/**
 * SQLite's row estimate of a table (a name TABLE_NAME accepted): the rowid span, two look-ups at the ends of the
 * table's b-tree. Each end in a subquery of its own: SQLite answers a lone MIN() or MAX() of the rowid from the
 * b-tree's end, but `MAX(rowid) - MIN(rowid)` in one SELECT scans the whole table (57 ms a million rows, on the
 * service's one connection, whose driver holds the event loop while it runs). Rows deleted in between (a trim, a
 * purge) make it an overestimate; an empty table reads null. Not ANALYZE: its sqlite_stat1 steers the planner
 * (sampled statistics cut Invoke's capacity on SQLite by more than half).
 */
export function sqliteRowSpan(table: string): string {
  return `SELECT (SELECT MAX(rowid) FROM "${table}") - (SELECT MIN(rowid) FROM "${table}") + 1 AS "rows"`;
}

function ordered(
  tables: readonly string[],
  rows: { table: string; rows: unknown; bytes?: unknown }[],
): TableSize[] {
  const by = new Map(rows.map((r) => [r.table, r]));
  return tables.map((table) => {
    const r = by.get(table);
    return { table, rows: r ? num(r.rows) : null, bytes: r ? num(r.bytes) : null };
  });
}
