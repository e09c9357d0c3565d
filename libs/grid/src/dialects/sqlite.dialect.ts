import { SQLITE_UNICODE_LOWER } from '@app/database';
import { ColumnStatistics } from '../statistics';
import { SAMPLE_ID_FOLD, SAMPLE_MODULUS, SAMPLE_MULTIPLIER } from '../sampling';
import {
  Params,
  SqlDialect,
  textOf,
  toNumber,
  ValueQuery,
  ValuePieces,
  type WindowValues,
} from './sql-dialect';
import { assembleStatistics, numberList } from './statistics-parsing';

/** An instant as TypeORM stores it in SQLite: `YYYY-MM-DD HH:MM:SS.SSS`, UTC. */
const STORED_INSTANT = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}$/;

/**
 * SQLite has no percentile or deviation aggregates: the median comes from the ordered middle rows and the
 * deviation from a second pass over the differences to the mean (sum of squares), in the same statement.
 */
export class SqliteDialect implements SqlDialect {
  readonly provider = 'sqlite' as const;
  /** One writer at a time, each transaction whole: ids are never committed out of order. */
  readonly quietSnapshot = '1 = 1';
  readonly nullsSortLow = true;
  quote(id: string): string {
    return `"${id}"`;
  }
  params(): Params {
    return new Params(() => '?');
  }
  instant(d: Date): unknown {
    // TypeORM stores SQLite datetimes as UTC text 'YYYY-MM-DD HH:MM:SS.SSS'; compare like with like.
    return d.toISOString().replace('T', ' ').replace('Z', '');
  }
  selectLimited(columns: string, from: string, where: string, orderBy: string, n: number): string {
    return `SELECT ${columns} FROM ${from} WHERE ${where} ORDER BY ${orderBy} LIMIT ${Math.trunc(n)}`;
  }
  like(column: string, p: string): string {
    // LOWER() folds ASCII only: the connection's own Unicode lower case (registered in dataSourceOptions).
    return `${SQLITE_UNICODE_LOWER}(${column}) LIKE ${p} ESCAPE '\\'`;
  }
  sample(id: string, seed: string, threshold: string): string {
    return `((${id} % ${SAMPLE_ID_FOLD}) * ${SAMPLE_MULTIPLIER} + ${seed}) % ${SAMPLE_MODULUS} < ${threshold}`;
  }
  statistics(inner: string, count: number, extras: readonly string[]): string {
    const aggs: string[] = ['count(*) AS n'];
    const extra: string[] = [];
    for (let i = 0; i < count; i++) {
      const v = `CAST(v${i} AS REAL)`;
      aggs.push(`min(${v}) AS min${i}`, `max(${v}) AS max${i}`, `avg(${v}) AS mean${i}`);
      extra.push(
        `(SELECT sum((${v} - a.mean${i}) * (${v} - a.mean${i})) FROM s) AS ss${i}`,
        `(SELECT avg(x) FROM (SELECT ${v} AS x, row_number() OVER (ORDER BY ${v}) AS r FROM s) WHERE r IN ((a.n + 1) / 2, (a.n + 2) / 2)) AS med${i}`,
        `(SELECT json_group_array(json_array(b, c)) FROM (SELECT MIN(9, CAST((${v} - a.min${i}) / NULLIF(a.max${i} - a.min${i}, 0) * 10 AS INTEGER)) AS b, count(*) AS c FROM s GROUP BY 1)) AS h${i}`,
      );
    }
    return `WITH s AS MATERIALIZED (${inner}), a AS (SELECT ${aggs.join(', ')} FROM s) SELECT a.*, ${[...extra, ...extras].join(', ')} FROM a`;
  }
  parseStatistics(row: Record<string, unknown>, count: number): ColumnStatistics[] {
    const n = Number(row.n);
    return Array.from({ length: count }, (_, i) => {
      const ss = toNumber(row[`ss${i}`]);
      const sd = n > 1 && ss !== null ? Math.sqrt(ss / (n - 1)) : null;
      return assembleStatistics(
        n,
        row[`min${i}`],
        row[`max${i}`],
        row[`mean${i}`],
        row[`med${i}`],
        sd,
        row[`h${i}`],
      );
    });
  }
  /**
   * Each column's values as one comma-separated text (group_concat, built in SQLite's C with no call into
   * JavaScript per row), parsed by a tight loop: integers as they are, any other number written with 17
   * significant digits, so every double reads back exactly. One statement, so one snapshot with the extras.
   * SQLite's index on the time column ends with the rowid (the id), so the newest `cap` rows come in index
   * order with no sort; but reading them through the capped subquery (a co-routine) costs twice the plain
   * scan. So, as on PostgreSQL, the window's count decides: within the cap, the values are aggregated
   * straight from the table; past it, from the capped subquery. Both branches are aggregates (one row
   * each, the other's empty): `branch` says which one ran.
   */
  async readValues(query: ValueQuery, pieces: ValuePieces, count: number): Promise<WindowValues> {
    const p = this.params();
    const packed = (column: (i: number) => string) =>
      Array.from(
        { length: count },
        (_, i) =>
          `group_concat(CASE WHEN typeof(${column(i)}) = 'integer' THEN ${column(i)} ELSE printf('%!.17g', ${column(i)}) END) AS a${i}`,
      );
    const cap = Math.trunc(pieces.cap);
    // `?` placeholders number in textual order: each piece is rendered where it stands in the statement
    let sql = `WITH c AS MATERIALIZED (${pieces.count(p)}) `;
    sql += `SELECT 0 AS branch, ${[...packed((i) => pieces.columns[i]), '(SELECT n FROM c) AS total', ...pieces.extras(p, false)].join(', ')}`;
    sql += ` FROM ${pieces.table} WHERE ${pieces.where(p)} AND (SELECT n FROM c) <= ${cap}`;
    sql += ` UNION ALL SELECT 1 AS branch, ${[...packed((i) => `v${i}`), '(SELECT n FROM c) AS total', ...pieces.extras(p, false)].join(', ')}`;
    // the gate inside the capped query: outside it, SQLite would read the newest rows first and then drop them
    sql += ` FROM (${pieces.capped(p, `(SELECT n FROM c) > ${cap}`)}) s`;
    const rows = await query(sql, p.values);
    const within = Number(rows[0]?.total ?? 0) <= cap;
    const row = rows.find((r) => Number(r.branch) === (within ? 0 : 1));
    if (!row) throw new Error('the statistics statement answered no row for its branch');
    return { columns: Array.from({ length: count }, (_, i) => numberList(row[`a${i}`])), extras: row };
  }

  timeBucket(column: string, origin: string, width: string): string {
    // julianday() reads TypeORM's UTC text; the difference in days to whole milliseconds, then the bucket.
    return `CAST(ROUND((julianday(${column}) - julianday(${origin})) * 86400000.0) / ${width} AS INTEGER)`;
  }

  readDate(value: unknown): string | null {
    if (value === null || value === undefined) return null;
    if (value instanceof Date) return value.toISOString();
    const s = textOf(value);
    // what TypeORM writes (UTC, milliseconds) reads as ISO 8601 by moving two characters, no Date made
    if (STORED_INSTANT.test(s)) return `${s.slice(0, 10)}T${s.slice(11)}Z`;
    return new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(s) ? s : `${s.replace(' ', 'T')}Z`).toISOString();
  }
}
