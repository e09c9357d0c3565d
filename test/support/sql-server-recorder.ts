import { EventEmitter } from 'node:events';
import { DataSource, type DataSourceOptions } from 'typeorm';
import {
  dataSourceOptions,
  MIGRATIONS,
  type MssqlModule,
  type MssqlType,
  retryIdempotentSqlServerReads,
} from '@app/database';
import { ALL_ENTITIES } from '../../apps/server/src/entities';

/**
 * A SQL Server DataSource that never connects. No SQL Server can run on this project's machines, so this is
 * the closest the tests get: the real TypeORM SqlServerDriver and SqlServerQueryRunner, the real node-mssql
 * Request (its `input()` decides the type each parameter is bound as, exactly as in production), and only
 * the last step replaced: where node-mssql would send the request over TDS, the statement and its typed
 * parameters are recorded and a scripted answer (default: no rows) comes back. Transactions are recorded
 * as BEGIN / COMMIT / ROLLBACK events. What a server would still decide (whether T-SQL parses, plans,
 * locks, collations) is out of reach: see docs/testing.md, "What is not tested here".
 */

export interface RecordedParameter {
  /** The placeholder without its @: '0', '1' … */
  name: string;
  /** The T-SQL type node-mssql declares it as: 'datetime2', 'nvarchar', 'int', 'bigint', 'float', 'bit' … */
  type: string;
  value: unknown;
}

export interface RecordedStatement {
  sql: string;
  parameters: RecordedParameter[];
  inTransaction: boolean;
}

export type RecordedEvent =
  | ({ kind: 'statement' } & RecordedStatement)
  | { kind: 'begin' | 'commit' | 'rollback'; isolationLevel?: unknown };

type Rows = Record<string, unknown>[];
type Answer = Rows | ((statement: RecordedStatement) => Rows);

interface NodeMssqlParameter {
  name: string;
  type: MssqlType;
  value: unknown;
}

/** The node-mssql Request as the recorder extends it: its own `parameters`, and `query` to replace. */
type RequestClass = new (parent?: unknown) => {
  parameters: Record<string, NodeMssqlParameter>;
  parent: unknown;
};

export class SqlServerRecorder {
  readonly events: RecordedEvent[] = [];
  /** The configuration each connection pool was created with (what tedious would connect with). */
  readonly poolConfigurations: Record<string, unknown>[] = [];
  private answers: { pattern: RegExp; answer: Answer; times: number }[] = [];

  /** Every statement recorded, in order. */
  get statements(): RecordedStatement[] {
    return this.events.filter((e): e is { kind: 'statement' } & RecordedStatement => e.kind === 'statement');
  }

  /** A position in the record; `since(mark)` returns what was recorded after it. */
  mark(): number {
    return this.events.length;
  }

  since(mark: number): RecordedEvent[] {
    return this.events.slice(mark);
  }

  statementsSince(mark: number): RecordedStatement[] {
    return this.since(mark).filter(
      (e): e is { kind: 'statement' } & RecordedStatement => e.kind === 'statement',
    );
  }

  /**
   * Statements matching `pattern` answer `answer` (rows, or a function of the statement), the next
   * `times` times (default: until cleared). The newest matching answer wins.
   */
  answer(pattern: RegExp, answer: Answer, times = Number.POSITIVE_INFINITY): void {
    this.answers.unshift({ pattern, answer, times });
  }

  clearAnswers(): void {
    this.answers = [];
  }

  /** Called by the recording Request in place of sending it. */
  run(sql: string, parameters: Record<string, NodeMssqlParameter>, inTransaction: boolean) {
    const statement: RecordedStatement = {
      sql,
      parameters: Object.values(parameters).map((p) => ({
        name: p.name,
        type: p.type.declaration,
        value: p.value,
      })),
      inTransaction,
    };
    this.events.push({ kind: 'statement', ...statement });
    const found = this.answers.find((a) => a.times > 0 && a.pattern.test(sql));
    let rows: Rows = SYSTEM_ANSWERS.find(([pattern]) => pattern.test(sql))?.[1] ?? [];
    if (found) {
      found.times--;
      rows = typeof found.answer === 'function' ? found.answer(statement) : found.answer;
    }
    // What node-mssql resolves with; rowsAffected as if every statement touched its rows.
    return { recordset: rows, recordsets: [rows], rowsAffected: [rows.length], output: {} };
  }
}

/** What the driver asks on its own while connecting. */
const SYSTEM_ANSWERS: [RegExp, Rows][] = [
  [/SELECT DB_NAME\(\)/i, [{ db_name: 'service' }]],
  [/SELECT SCHEMA_NAME\(\)/i, [{ schema_name: 'dbo' }]],
];

class RecordingTransaction {
  constructor(private readonly recorder: SqlServerRecorder) {}
  begin(levelOrCallback: unknown, callback?: (err: Error | null) => void): void {
    const done = typeof levelOrCallback === 'function' ? levelOrCallback : callback;
    this.recorder.events.push({
      kind: 'begin',
      isolationLevel: typeof levelOrCallback === 'function' ? undefined : levelOrCallback,
    });
    setImmediate(() => (done as (err: Error | null) => void)(null));
  }
  commit(callback: (err: Error | null) => void): void {
    this.recorder.events.push({ kind: 'commit' });
    setImmediate(() => callback(null));
  }
  rollback(callback: (err: Error | null) => void): void {
    this.recorder.events.push({ kind: 'rollback' });
    setImmediate(() => callback(null));
  }
}

/**
 * The node-mssql module with its pool and request replaced: `Request` is a subclass of the real one (so
 * `input()` and its type inference are node-mssql's own), the pool a stand-in that never opens a socket.
 */
function recordingDriver(real: MssqlModule, recorder: SqlServerRecorder): MssqlModule {
  const RealRequest = real.Request as unknown as RequestClass;
  class RecordingRequest extends RealRequest {
    query(sql: string): Promise<ReturnType<SqlServerRecorder['run']>> {
      return Promise.resolve(recorder.run(sql, this.parameters, this.parent instanceof RecordingTransaction));
    }
  }
  class RecordingPool extends EventEmitter {
    readonly connected = true;
    constructor(configuration: Record<string, unknown>) {
      super();
      recorder.poolConfigurations.push(configuration);
    }
    connect(callback: (err: Error | null) => void): this {
      setImmediate(() => callback(null));
      return this;
    }
    transaction(): RecordingTransaction {
      return new RecordingTransaction(recorder);
    }
    close(callback: (err: Error | null) => void): void {
      setImmediate(() => callback(null));
    }
  }
  return { ...real, Request: RecordingRequest, ConnectionPool: RecordingPool } as unknown as MssqlModule;
}

/** The URL the recorder's DataSource is built from: the production option code parses it. */
export const RECORDER_URL = 'mssql://service:secret@sql-server.invalid:1433/service?encrypt=true';

/**
 * An initialised SQL Server DataSource over every entity and the migration set, built by the production
 * `dataSourceOptions`, whose statements go to `recorder` instead of a server.
 */
export async function recordingSqlServer(
  url = RECORDER_URL,
): Promise<{ dataSource: DataSource; recorder: SqlServerRecorder }> {
  const recorder = new SqlServerRecorder();
  const options: DataSourceOptions = dataSourceOptions(
    { provider: 'mssql', connectionString: url, dataDirectory: '' },
    ALL_ENTITIES,
    MIGRATIONS,
  );
  const driver = (options as { driver?: MssqlModule }).driver;
  if (!driver) throw new Error('dataSourceOptions gave SQL Server no driver module');
  const dataSource = new DataSource({
    ...options,
    driver: recordingDriver(driver, recorder),
  });
  // As DatabaseModule makes every DataSource (a transient failure of a read is retried once).
  retryIdempotentSqlServerReads(dataSource);
  await dataSource.initialize();
  return { dataSource, recorder };
}

// ---- the gate every recorded statement must pass

/** SQL Server's parameter limit per request, as the code under test must respect it. */
export const SQL_SERVER_MAX_PARAMETERS = 2_098;
export const SQL_SERVER_MAX_VALUES_ROWS = 1_000;

/**
 * The statement with its string literals, quoted and bracketed identifiers and comments blanked out, so
 * the checks below look at SQL keywords and placeholders only.
 */
export function sqlSkeleton(sql: string): string {
  return sql
    .replace(/--[^\n]*/g, ' ')
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/N?'(?:[^']|'')*'/g, "''")
    .replace(/"(?:[^"]|"")*"/g, '""')
    .replace(/\[(?:[^\]]|\]\])*\]/g, '[]');
}

/**
 * PostgreSQL (or SQLite) syntax SQL Server refuses, or SQL Server 2022 syntax while 2019 is supported: a
 * denylist, not a parser (an npm T-SQL parser was tried: it refused valid statements and accepted these).
 */
const NOT_T_SQL: [RegExp, string][] = [
  [/\bLIMIT\b/i, 'LIMIT (T-SQL: TOP or OFFSET … FETCH)'],
  [/::/, ':: cast (T-SQL: CAST)'],
  [/\$\d/, '$n placeholder (SQL Server binds @n)'],
  [/\?/, '? placeholder (SQL Server binds @n)'],
  [/\bILIKE\b/i, 'ILIKE'],
  [/\bRETURNING\b/i, 'RETURNING (T-SQL: OUTPUT)'],
  [/\bunnest\s*\(/i, 'unnest()'],
  [/\bON\s+CONFLICT\b/i, 'ON CONFLICT'],
  [/\bNULLS\s+(FIRST|LAST)\b/i, 'NULLS FIRST/LAST'],
  [/\bFILTER\s*\(\s*WHERE\b/i, 'aggregate FILTER'],
  [/\bAS\s+MATERIALIZED\b/i, 'WITH … AS MATERIALIZED'],
  [/\b(json_agg|json_build_array|json_group_array|stddev_samp|pg_\w+)\s*\(/i, 'a PostgreSQL/SQLite function'],
  [/\b(GREATEST|LEAST)\s*\(/i, 'GREATEST/LEAST (SQL Server 2022 only; 2019 is supported)'],
  [/(=|<>|\bIS|\bTHEN|\bELSE)\s*(TRUE|FALSE)\b/i, 'a boolean literal (T-SQL has none: bit 1/0)'],
  [/\bBOOLEAN\b/i, 'the BOOLEAN type (T-SQL: bit)'],
];

/** PERCENTILE_CONT/DISC is only an analytic function in T-SQL: WITHIN GROUP (…) must be followed by OVER. */
const PERCENTILE_WITHOUT_OVER =
  /\bPERCENTILE_(CONT|DISC)\s*\([^()]*\)\s*WITHIN\s+GROUP\s*\((?:[^()]|\([^()]*\))*\)(?!\s*OVER\b)/i;

/** Row constructors of each INSERT … VALUES list in the skeleton. */
export function valuesRowCounts(skeleton: string): number[] {
  const counts: number[] = [];
  const re = /\bVALUES\b/gi;
  for (let m = re.exec(skeleton); m; m = re.exec(skeleton)) {
    let depth = 0;
    let rows = 0;
    let i = m.index + m[0].length;
    for (; i < skeleton.length; i++) {
      const c = skeleton[i];
      if (c === '(') {
        if (depth === 0) rows++;
        depth++;
      } else if (c === ')') depth--;
      else if (depth === 0 && !/[\s,]/.test(c)) break;
    }
    counts.push(rows);
  }
  return counts;
}

/** What would make SQL Server refuse (or silently mistreat) this statement; empty when nothing. */
export function sqlServerProblems(statement: RecordedStatement): string[] {
  const problems: string[] = [];
  const { sql, parameters } = statement;
  const skeleton = sqlSkeleton(sql);
  if (parameters.length > SQL_SERVER_MAX_PARAMETERS)
    problems.push(`${parameters.length} parameters (at most ${SQL_SERVER_MAX_PARAMETERS})`);
  const used = new Set([...skeleton.matchAll(/@(\d+)\b/g)].map((m) => Number(m[1])));
  const bound = parameters.map((p) => Number(p.name));
  const expected = parameters.map((_, i) => i);
  if (bound.some((n, i) => n !== expected[i]))
    problems.push(`parameters bound as ${bound.join(',')} instead of @0…@${parameters.length - 1}`);
  const unbound = [...used].filter((n) => !(n >= 0 && n < parameters.length));
  if (unbound.length) problems.push(`placeholders without a bound value: @${unbound.join(', @')}`);
  const unused = expected.filter((n) => !used.has(n));
  if (unused.length) problems.push(`bound parameters no placeholder uses: @${unused.join(', @')}`);
  for (const rows of valuesRowCounts(skeleton))
    if (rows > SQL_SERVER_MAX_VALUES_ROWS)
      problems.push(`${rows} rows in one VALUES list (at most ${SQL_SERVER_MAX_VALUES_ROWS})`);
  for (const p of parameters)
    if (p.type === 'datetime' || p.type === 'smalldatetime')
      problems.push(
        `@${p.name} bound as legacy ${p.type} (3.33 ms ticks, nothing before 1753): bind datetime2`,
      );
  for (const [pattern, what] of NOT_T_SQL) if (pattern.test(skeleton)) problems.push(`not T-SQL: ${what}`);
  if (PERCENTILE_WITHOUT_OVER.test(skeleton))
    problems.push('not T-SQL: PERCENTILE_CONT as an aggregate (it needs OVER (…))');
  return problems;
}
