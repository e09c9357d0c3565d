import { ColumnStatistics } from '../statistics';
import { SAMPLE_ID_FOLD, SAMPLE_MODULUS, SAMPLE_MULTIPLIER } from '../sampling';
import { Params, SqlDialect, textOf, ValueQuery, ValuePieces, type WindowValues } from './sql-dialect';
import { parseAggregateRow } from './statistics-parsing';

export class PostgresDialect implements SqlDialect {
  readonly provider = 'postgres' as const;
  readonly quietSnapshot =
    'pg_snapshot_xmin(pg_current_snapshot()) = pg_snapshot_xmax(pg_current_snapshot())';
  readonly nullsSortLow = false;
  statementTimeout(ms: number): { set: string; reset: string } {
    return { set: `SET statement_timeout = ${Math.trunc(ms)}`, reset: 'RESET statement_timeout' };
  }
  quote(id: string): string {
    return `"${id}"`;
  }
  params(): Params {
    return new Params((i) => `$${i}`);
  }
  instant(d: Date): unknown {
    return d;
  }
  selectLimited(columns: string, from: string, where: string, orderBy: string, n: number): string {
    return `SELECT ${columns} FROM ${from} WHERE ${where} ORDER BY ${orderBy} LIMIT ${Math.trunc(n)}`;
  }
  /** ICU's root collation when the server has it: LOWER() then folds all of Unicode whatever the database's ctype. */
  private icu = false;

  async prepare(query: (sql: string) => Promise<unknown[]>): Promise<void> {
    this.icu = (await query(`SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu'`)).length > 0;
  }

  like(column: string, p: string): string {
    const folded = this.icu ? `LOWER(${column} COLLATE "und-x-icu")` : `LOWER(${column})`;
    return `${folded} LIKE ${p} ESCAPE '\\'`;
  }
  sample(id: string, seed: string, threshold: string): string {
    return `((${id} % ${SAMPLE_ID_FOLD}) * ${SAMPLE_MULTIPLIER} + ${seed}::bigint) % ${SAMPLE_MODULUS} < ${threshold}::bigint`;
  }
  statistics(inner: string, count: number, extras: readonly string[]): string {
    const aggs: string[] = ['count(*) AS n'];
    const hists: string[] = [];
    for (let i = 0; i < count; i++) {
      const v = `v${i}::float8`;
      aggs.push(
        `min(${v}) AS min${i}`,
        `max(${v}) AS max${i}`,
        `avg(${v}) AS mean${i}`,
        `stddev_samp(${v}) AS sd${i}`,
        `percentile_cont(0.5) WITHIN GROUP (ORDER BY ${v}) AS med${i}`,
      );
      hists.push(
        `(SELECT json_agg(json_build_array(b, c)) FROM (SELECT LEAST(9, FLOOR((${v} - a.min${i}) / NULLIF(a.max${i} - a.min${i}, 0) * 10))::int AS b, count(*) AS c FROM s GROUP BY 1) h) AS h${i}`,
      );
    }
    return `WITH s AS MATERIALIZED (${inner}), a AS (SELECT ${aggs.join(', ')} FROM s) SELECT a.*, ${[...hists, ...extras].join(', ')} FROM a`;
  }
  parseStatistics(row: Record<string, unknown>, count: number): ColumnStatistics[] {
    return parseAggregateRow(row, count);
  }

  /**
   * Each column's values as one bytea of big-endian float8s (float8send, concatenated by string_agg): no number
   * is formatted as text or parsed back, and the whole window arrives in one row beside the extras.
   * The newest `cap` rows need ORDER BY time DESC, id DESC: PostgreSQL's index on the time column does not
   * order by id within one instant, so it sorts them (on disk past work_mem). When the window holds at most
   * `cap` rows they are all of it and no order is needed: the window's count (needed for `total` anyway)
   * decides, in the statement, which of the two branches runs (a one-time filter: the other is never
   * executed). The statistics do not depend on the values' order.
   */
  async readValues(query: ValueQuery, pieces: ValuePieces, count: number): Promise<WindowValues> {
    const p = this.params();
    const packed = Array.from(
      { length: count },
      (_, i) => `string_agg(float8send(v${i}::float8), ''::bytea) AS a${i}`,
    );
    const cap = Math.trunc(pieces.cap);
    const sql =
      `WITH c AS MATERIALIZED (${pieces.count(p)}) ` +
      `SELECT ${[...packed, '(SELECT n FROM c) AS total', ...pieces.extras(p, false)].join(', ')} FROM (` +
      `SELECT * FROM (${pieces.window(p)}) w WHERE (SELECT n FROM c) <= ${cap} ` +
      `UNION ALL SELECT * FROM (${pieces.capped(p)}) newest WHERE (SELECT n FROM c) > ${cap}) s`;
    const [row] = await query(sql, p.values);
    return { columns: packed.map((_, i) => float8s(row[`a${i}`])), extras: row };
  }

  timeBucket(column: string, origin: string, width: string): string {
    return `FLOOR(EXTRACT(EPOCH FROM (${column} - ${origin}::timestamptz)) * 1000 / ${width}::float8)::bigint`;
  }

  readDate(value: unknown): string | null {
    if (value === null || value === undefined) return null;
    return (value instanceof Date ? value : new Date(textOf(value))).toISOString();
  }
}

/** Big-endian float8s (bytea, which node-postgres hands over as a Buffer) as a Float64Array. */
function float8s(bytes: unknown): Float64Array {
  if (bytes === null || bytes === undefined) return new Float64Array(0);
  if (!Buffer.isBuffer(bytes)) throw new Error('expected a bytea column');
  const n = bytes.length >> 3;
  const out = new Float64Array(n);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < n; i++) out[i] = view.getFloat64(i << 3);
  return out;
}
