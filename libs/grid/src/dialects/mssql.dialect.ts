import { ColumnStatistics } from '../statistics';
import { SAMPLE_ID_FOLD, SAMPLE_MODULUS, SAMPLE_MULTIPLIER } from '../sampling';
import {
  Params,
  SqlDialect,
  textOf,
  type ValuePieces,
  type ValueQuery,
  type WindowValues,
} from './sql-dialect';
import { numberList, parseAggregateRow } from './statistics-parsing';

/**
 * SQL Server. The statistics read the sampled window ONCE (readValues: its values as text in one statement,
 * the statistics computed as on the other databases); `statistics` (PERCENTILE_CONT … OVER () for the median,
 * STDEV, FOR JSON for the buckets) stays for a grid the compact path does not take. Checked by the offline
 * statement test; no SQL Server runs on this project's machines.
 */
export class MssqlDialect implements SqlDialect {
  readonly provider = 'mssql' as const;
  readonly quietSnapshot = null;
  readonly nullsSortLow = true;
  quote(id: string): string {
    return `[${id}]`;
  }
  params(): Params {
    return new Params((i) => `@${i - 1}`);
  }
  instant(d: Date): unknown {
    return d;
  }
  selectLimited(columns: string, from: string, where: string, orderBy: string, n: number): string {
    return `SELECT TOP (${Math.trunc(n)}) ${columns} FROM ${from} WHERE ${where} ORDER BY ${orderBy}`;
  }
  like(column: string, p: string): string {
    return `LOWER(${column}) LIKE ${p} ESCAPE '\\'`;
  }
  sample(id: string, seed: string, threshold: string): string {
    return `((CAST(${id} AS bigint) % ${SAMPLE_ID_FOLD}) * ${SAMPLE_MULTIPLIER} + CAST(${seed} AS bigint)) % ${SAMPLE_MODULUS} < CAST(${threshold} AS bigint)`;
  }
  statistics(inner: string, count: number, extras: readonly string[]): string {
    const aggs: string[] = ['COUNT(*) AS n'];
    const meds: string[] = [];
    const hists: string[] = [];
    for (let i = 0; i < count; i++) {
      const v = `CAST(v${i} AS float)`;
      aggs.push(
        `MIN(${v}) AS min${i}`,
        `MAX(${v}) AS max${i}`,
        `AVG(${v}) AS mean${i}`,
        `STDEV(${v}) AS sd${i}`,
      );
      meds.push(`PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY ${v}) OVER () AS med${i}`);
      hists.push(
        `(SELECT b, COUNT(*) AS c FROM (SELECT CASE WHEN a.max${i} = a.min${i} THEN 9 ELSE CASE WHEN FLOOR((${v} - a.min${i}) / (a.max${i} - a.min${i}) * 10) > 9 THEN 9 ELSE CAST(FLOOR((${v} - a.min${i}) / (a.max${i} - a.min${i}) * 10) AS int) END END AS b FROM s) x GROUP BY b FOR JSON PATH) AS h${i}`,
      );
    }
    return `WITH s AS (${inner}), a AS (SELECT ${aggs.join(', ')} FROM s), m AS (SELECT DISTINCT ${meds.join(', ')} FROM s) SELECT a.*, m.*, ${[...hists, ...extras].join(', ')} FROM a LEFT JOIN m ON 1 = 1`;
  }
  parseStatistics(row: Record<string, unknown>, count: number): ColumnStatistics[] {
    return parseAggregateRow(row, count);
  }

  /**
   * Each column's values of the newest `cap` rows of the window, as one comma-separated text (STRING_AGG over
   * varchar(max), CONVERT style 3: the 17 digits that give the same float back), the window's total and the
   * extras beside them: ONE statement, so one snapshot (READ_COMMITTED_SNAPSHOT) and one read of the window,
   * where `statistics` read it again for every aggregate, median and histogram. A column's NULLs
   * are left out, as on the other databases.
   */
  async readValues(query: ValueQuery, pieces: ValuePieces, count: number): Promise<WindowValues> {
    const p = this.params();
    const packed = Array.from(
      { length: count },
      (_, i) =>
        `STRING_AGG(CAST(CONVERT(varchar(30), CAST(v${i} AS float), 3) AS varchar(max)), ',') AS a${i}`,
    );
    const extras = pieces.extras(p, true);
    const sql = `SELECT ${[...packed, ...extras].join(', ')} FROM (${pieces.capped(p)}) s`;
    const [row = {}] = await query(sql, p.values);
    return { columns: packed.map((_, i) => numberList(row[`a${i}`])), extras: row };
  }

  timeBucket(column: string, origin: string, width: string): string {
    // whole milliseconds in a bigint (DATEDIFF's int would overflow past 24 days), integer division
    return `DATEDIFF_BIG(millisecond, ${origin}, ${column}) / ${width}`;
  }

  readDate(value: unknown): string | null {
    if (value === null || value === undefined) return null;
    return (value instanceof Date ? value : new Date(textOf(value))).toISOString();
  }
}
