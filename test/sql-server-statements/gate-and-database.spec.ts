import 'reflect-metadata';
import type { DataSource } from 'typeorm';
import { loadSettings } from '@app/config';
import {
  assertReadCommittedSnapshot,
  databaseTarget,
  DatabaseStartupCheck,
  dataSourceOptions,
  SQL_SERVER_DEFAULT_TIMEOUTS,
  MIGRATIONS,
  SQL_SERVER_BINARY_COLLATION,
} from '@app/database';
import { isDatabaseUnavailable } from '@app/problems';
import { UserRegistry } from '@app/identity';
import { CaseRepository } from '../../libs/engine/src/case-creation/case.repository';
import {
  RecordedStatement,
  RECORDER_URL,
  SqlServerRecorder,
  sqlServerProblems,
  valuesRowCounts,
  sqlSkeleton,
} from '../support/sql-server-recorder';
import { expectSqlServerAccepts, NOW, recordedSqlServer } from './recorded';

/** The gate itself, the connection, transient errors, the migrations and the start-up checks (recorded.ts). */
describe('SQL Server statements, recorded without a server: the gate and the database module', () => {
  const r = recordedSqlServer();
  const { recording } = r;
  let ds: DataSource;
  let recorder: SqlServerRecorder;
  let get: <T>(type: new (...args: never[]) => T) => T;
  beforeAll(() => {
    ({ ds, recorder, get } = r);
  });

  describe('the gate itself', () => {
    const statement = (sql: string, types: string[] = []): RecordedStatement => ({
      sql,
      parameters: types.map((type, i) => ({ name: String(i), type, value: null })),
      inTransaction: false,
    });

    it('passes plain T-SQL', () => {
      expect(
        sqlServerProblems(
          statement("SELECT TOP (5) [a] FROM [t] WHERE [b] = @0 AND [c] LIKE @1 ESCAPE '\\'", [
            'int',
            'nvarchar',
          ]),
        ),
      ).toEqual([]);
    });

    it('flags each PostgreSQL-ism, the limits and legacy datetime', () => {
      const flagged = (sql: string, types: string[] = []) => sqlServerProblems(statement(sql, types)).length;
      for (const sql of [
        'SELECT a FROM t LIMIT 5',
        'SELECT a::int FROM t',
        'SELECT a FROM t WHERE b = $1',
        'SELECT a FROM t WHERE b ILIKE @0',
        'INSERT INTO t (a) VALUES (@0) RETURNING id',
        'INSERT INTO t SELECT * FROM unnest(@0)',
        'SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY v) AS m FROM s',
        'SELECT GREATEST(a, b) FROM t',
        'SELECT a FROM t WHERE b = TRUE',
      ])
        expect([sql, flagged(sql, sql.includes('@0') ? ['int'] : [])]).toEqual([sql, 1]);
      expect(flagged('SELECT a FROM t WHERE b = @0', ['datetime'])).toBe(1);
      expect(flagged('SELECT a FROM t WHERE b = @0 AND c = @2', ['int', 'int', 'int'])).toBe(1);
      expect(flagged('SELECT a FROM t WHERE b = @0 AND c = @1', ['int'])).toBe(1);
      const many = Array.from({ length: 2099 }, (_, i) => `@${i}`).join(', ');
      expect(
        flagged(
          `SELECT ${many}`,
          Array.from({ length: 2099 }, () => 'int'),
        ),
      ).toBe(1);
      const rows = Array.from({ length: 1001 }, () => '(1)').join(', ');
      expect(flagged(`INSERT INTO t (a) VALUES ${rows}`)).toBe(1);
      // Inside literals and identifiers nothing counts.
      expect(flagged(`SELECT [LIMIT], 'a::b $1 ?' FROM t WHERE "RETURNING" = N'x'`)).toBe(0);
      expect(
        flagged(
          'SELECT DISTINCT PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY CAST(v AS float)) OVER () AS m FROM s',
        ),
      ).toBe(0);
      expect(valuesRowCounts(sqlSkeleton("INSERT INTO t VALUES (1, '(x)'), (2, 'y')"))).toEqual([2]);
    });
  });

  it('connects in UTC, to the database the URL names, encrypted, with the timeouts of the settings', () => {
    const [pool] = recorder.poolConfigurations;
    expect(pool).toMatchObject({
      server: 'sql-server.invalid',
      database: 'service',
      options: { useUTC: true, encrypt: true, trustServerCertificate: false },
      requestTimeout: SQL_SERVER_DEFAULT_TIMEOUTS.requestMs,
      connectionTimeout: SQL_SERVER_DEFAULT_TIMEOUTS.connectionMs,
    });
    // The defaults are the settings' own; migrations get the longer timeout, a set value is used as it is.
    const keys = { JwtKey: 'k'.repeat(48), ApiHmacKey: 'h'.repeat(48) };
    const settings = loadSettings({ DatabaseProvider: 'mssql', ConnectionString: RECORDER_URL, ...keys });
    expect(databaseTarget(settings).sqlServerTimeouts).toEqual(SQL_SERVER_DEFAULT_TIMEOUTS);
    expect(dataSourceOptions(databaseTarget(settings, true), [], [])).toMatchObject({
      requestTimeout: 3_600_000,
      connectionTimeout: 15_000,
    });
    const set = loadSettings({
      DatabaseProvider: 'mssql',
      ConnectionString: RECORDER_URL,
      ...keys,
      SqlServerRequestTimeoutMilliseconds: '5000',
      SqlServerConnectionTimeoutMilliseconds: '2000',
      SqlServerMigrationTimeoutMilliseconds: '900000',
    });
    expect(dataSourceOptions(databaseTarget(set), [], [])).toMatchObject({
      requestTimeout: 5000,
      connectionTimeout: 2000,
    });
    expect(dataSourceOptions(databaseTarget(set, true), [], [])).toMatchObject({ requestTimeout: 900_000 });
  });

  describe('transient errors', () => {
    const sqlError = (number: number) =>
      Object.assign(new Error(`SQL Server error ${number}`), { name: 'RequestError', number });
    const keys = [{ CaseWorkflowId: 1, CaseKey: 'AccountId', CaseKeyValue: 'A-1' }];

    it('deadlock, lock time-out, the Azure transient errors and a lost connection are "database unavailable"', () => {
      for (const number of [1205, 1222, 40613, 40501, 40197, 49918, 4060])
        expect([number, isDatabaseUnavailable({ driverError: sqlError(number) })]).toEqual([number, true]);
      expect(isDatabaseUnavailable({ originalError: { code: 'ECONNCLOSED' } })).toBe(true);
      expect(isDatabaseUnavailable({ driverError: { code: 'ESOCKET', message: 'Connection lost' } })).toBe(
        true,
      );
      // A refusal is not: a unique key (2627), a syntax error (102).
      expect(isDatabaseUnavailable({ driverError: sqlError(2627) })).toBe(false);
      expect(isDatabaseUnavailable({ driverError: sqlError(102) })).toBe(false);
    });

    it.each([1205, 40613])(
      "a read that fails with %i is sent once more; a second failure is the caller's",
      async (n) => {
        recorder.answer(
          /JOIN "Case" c ON/,
          () => {
            throw sqlError(n);
          },
          1,
        );
        const once = await recording(() => get(CaseRepository).findOpen(keys));
        expect(once.map((s) => s.sql.slice(0, 6))).toEqual(['SELECT', 'SELECT']);
        recorder.answer(
          /JOIN "Case" c ON/,
          () => {
            throw sqlError(n);
          },
          2,
        );
        const mark = recorder.mark();
        const failed = await get(CaseRepository)
          .findOpen(keys)
          .catch((err: unknown) => err);
        expect(isDatabaseUnavailable(failed)).toBe(true);
        expect(recorder.statementsSince(mark)).toHaveLength(2);
      },
    );

    it('a write, or a read that timed out, is never sent again', async () => {
      recorder.answer(
        /^MERGE/,
        () => {
          throw sqlError(1205);
        },
        1,
      );
      const mark = recorder.mark();
      const failed = await get(CaseRepository)
        .upsert([
          {
            ...keys[0],
            Guid: '11111111-1111-4111-8111-111111111111',
            CaseWorkflowStatusId: 1,
            Priority: 1,
            EntityAnalysisModelInstanceEntryGuid: '11111111-1111-4111-8111-111111111111',
            At: new Date(NOW),
          },
        ])
        .catch((err: unknown) => err);
      expect(isDatabaseUnavailable(failed)).toBe(true);
      expect(recorder.statementsSince(mark)).toHaveLength(1);
      recorder.answer(
        /JOIN "Case" c ON/,
        () => {
          throw Object.assign(new Error('Timeout: Request failed to complete in 30000ms'), {
            code: 'ETIMEOUT',
          });
        },
        1,
      );
      const timed = recorder.mark();
      await expect(get(CaseRepository).findOpen(keys)).rejects.toBeDefined();
      expect(recorder.statementsSince(timed)).toHaveLength(1);
    });
  });

  it('runs every migration in its own transaction, in T-SQL, with binary collations for exact keys', async () => {
    const mark = recorder.mark();
    const applied = await ds.runMigrations({ transaction: 'each' });
    expect(applied.map((m) => m.name)).toEqual(MIGRATIONS.map((M) => new M().name));
    const events = recorder.since(mark);
    expect(events.filter((e) => e.kind === 'begin')).toHaveLength(MIGRATIONS.length);
    expect(events.filter((e) => e.kind === 'commit')).toHaveLength(MIGRATIONS.length);
    const statements = recorder.statementsSince(mark);
    expectSqlServerAccepts(statements);
    const ddl = statements.map((s) => s.sql).join('\n');
    for (const [table, column] of [
      ['UserRegistry', 'NormalizedName'],
      ['Case', 'CaseKey'],
      ['Case', 'CaseKeyValue'],
    ])
      expect(ddl).toMatch(
        new RegExp(
          `ALTER TABLE \\[${table}\\] ALTER COLUMN \\[${column}\\] nvarchar\\(\\d+\\) COLLATE ${SQL_SERVER_BINARY_COLLATION} NOT NULL`,
        ),
      );
    // The 64-bit ids of the tables never trimmed (audit and engine): the primary key made again.
    for (const table of ['UserLogin', 'UserLogout', 'EntityAnalysisModelArchive', 'Case'])
      expect(ddl).toContain(
        `ALTER TABLE [${table}] DROP CONSTRAINT [PK_${table}]\nALTER TABLE [${table}] ALTER COLUMN [Id] bigint NOT NULL\n` +
          `ALTER TABLE [${table}] ADD CONSTRAINT [PK_${table}] PRIMARY KEY ([Id])`,
      );
    // The row versions: one ALTER per table, its default filling the rows already there.
    for (const table of ['TenantRegistry', 'RoleRegistry', 'UserRegistry', 'EntityAnalysisModel'])
      expect(ddl).toMatch(
        new RegExp(`ALTER TABLE "${table}" ADD "Version" int NOT NULL CONSTRAINT "[^"]+" DEFAULT 1`),
      );
    expect(ds.getMetadata(UserRegistry).findColumnWithPropertyName('NormalizedName')?.collation).toBe(
      SQL_SERVER_BINARY_COLLATION,
    );
    // The filtered unique indexes over them are back after the change.
    expect(ddl).toMatch(
      /CREATE UNIQUE INDEX \[IX_UserRegistry_NormalizedName\][^\n]*WHERE "DeletedDate" IS NULL\s*$/m,
    );
    expect(ddl).toMatch(
      /CREATE UNIQUE INDEX \[IX_Case_Open_Workflow_Key_Value\][^\n]*WHERE "ClosedDate" IS NULL\s*$/m,
    );
  });
  describe('start-up checks', () => {
    const query = (sql: string) => ds.query<{ name?: unknown; on?: unknown }[]>(sql);

    it('refuses a database without READ_COMMITTED_SNAPSHOT, naming the setting and the fix', async () => {
      recorder.answer(/is_read_committed_snapshot_on/, [{ name: 'service', on: false }]);
      await expect(assertReadCommittedSnapshot(query)).rejects.toThrow(
        /service has READ_COMMITTED_SNAPSHOT OFF.*ALTER DATABASE \[service\] SET READ_COMMITTED_SNAPSHOT ON/,
      );
    });

    it('is what the database module runs at start on SQL Server', async () => {
      recorder.answer(/is_read_committed_snapshot_on/, [{ name: 'service', on: false }]);
      await expect(new DatabaseStartupCheck(ds).onModuleInit()).rejects.toThrow(
        /READ_COMMITTED_SNAPSHOT OFF/,
      );
    });

    it('accepts one with it', async () => {
      recorder.answer(/is_read_committed_snapshot_on/, [{ name: 'service', on: true }]);
      await expect(assertReadCommittedSnapshot(query)).resolves.toBeUndefined();
      expectSqlServerAccepts(recorder.statements.slice(-1));
    });
  });
});
