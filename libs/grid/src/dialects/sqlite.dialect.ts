import { SQLITE_UNICODE_LOWER } from '@app/database';
import { ColumnStatistics } from '../statistics';
import { SAMPLE_ID_FOLD, SAMPLE_MODULUS, SAMPLE_MULTIPLIER } from '../sampling';
import { Params, SqlDialect, textOf, toNumber, ValueQuery, ValuePieces } from './sql-dialect';
import { assembleStatistics, numberList } from './statistics-parsing';

/**
 * SQLite has no percentile or deviation aggregates: the median comes from the ordered middle rows and the
 * deviation from a second pass over the differences to the mean (sum of squares), in the same statement.
 */
export class SqliteDialect implements SqlDialect {
  readonly provider = 'sqlite' as const;
  /** One writer at a time, each transaction whole: ids are never committed out of order. */
  readonly quietSnapshot = '1 = 1';
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
   */
  async readValues(
    query: ValueQuery,
    pieces: ValuePieces,
    count: number,
  ): Promise<{ columns: Float64Array[]; extras: Record<string, unknown> }> {
    const pi = this.params();
    const pe = this.params();
    // SQLite's index on the time column ends with the rowid (the id), so the capped query reads it in order:
    // no sort to avoid
    const inner = pieces.capped(pi);
    const extras = pieces.extras(pe, true);
    const packed = Array.from(
      { length: count },
      (_, i) =>
        `group_concat(CASE WHEN typeof(v${i}) = 'integer' THEN v${i} ELSE printf('%!.17g', v${i}) END) AS a${i}`,
    );
    // `?` placeholders number in textual order: the select list (the extras) comes before FROM (the values)
    const [row] = await query(`SELECT ${[...packed, ...extras].join(', ')} FROM (${inner}) s`, [
      ...pe.values,
      ...pi.values,
    ]);
    return { columns: packed.map((_, i) => numberList(row[`a${i}`])), extras: row };
  }

  readDate(value: unknown): string | null {
    if (value === null || value === undefined) return null;
    if (value instanceof Date) return value.toISOString();
    const s = textOf(value);
    return new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(s) ? s : `${s.replace(' ', 'T')}Z`).toISOString();
  }
}
