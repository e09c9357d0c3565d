import 'reflect-metadata';
import { Test } from '@nestjs/testing';
import { getDataSourceToken, getRepositoryToken } from '@nestjs/typeorm';
import type { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';
import {
  CAPTURE_ENTITIES,
  CaptureBatch,
  CaptureRepository,
  isRowRefused,
  OpenTelemetryMetric,
  RETENTION_BATCH,
  TelemetryRetention,
} from '@app/capture-queues';
import { loadSettings } from '@app/config';
import {
  assertReadCommittedSnapshot,
  databaseTarget,
  DatabaseStartupCheck,
  dataSourceOptions,
  SQL_SERVER_DEFAULT_TIMEOUTS,
  inTransaction,
  MIGRATIONS,
  rowsPerStatement,
  SQL_SERVER_BINARY_COLLATION,
} from '@app/database';
import {
  GridDefinition,
  GridEngine,
  parseGridQuery,
  ADMIN_EVENT_GRID,
  TELEMETRY_GRIDS,
  USER_LOGIN_GRID,
  USER_LOGOUT_GRID,
} from '@app/grid';
import { AdminEvent, UserLogin, UserLogout } from '@app/audit';
import { AdminEventRepository } from '../libs/audit/src/admin-events/admin-event.repository';
import { ALL_PERMISSIONS, isDatabaseUnavailable } from '@app/common';
import { ActorService, UserRegistry } from '@app/identity';
import { ApiKeyRepository } from '../libs/api-keys/src/api-key.repository';
import { AuditRepository } from '../libs/audit/src/audit.repository';
import { ArchiveRepository, type ArchiveRow } from '../libs/engine/src/archiver/archive.repository';
import { CaseRepository } from '../libs/engine/src/case-creation/case.repository';
import { ConfigurationRepository } from '../libs/engine/src/model/configuration.repository';
import { StageRollupRepository } from '../libs/engine/src/rollups/stage-rollup.repository';
import { IdentityRepository } from '../libs/identity/src/identity.repository';
import { SessionUserRepository } from '../libs/identity/src/session-user.repository';
import { UserSecurityRepository } from '../libs/identity/src/user-security.repository';
import { ALL_ENTITIES } from '../apps/server/src/entities';
import {
  RecordedStatement,
  RECORDER_URL,
  recordingSqlServer,
  SqlServerRecorder,
  sqlServerProblems,
  valuesRowCounts,
  sqlSkeleton,
} from './support/sql-server-recorder';

/**
 * The SQL Server path, checked without a server: the real migrations, repositories and grid builder run
 * against a SQL Server DataSource whose statements are recorded with the type node-mssql binds each
 * parameter as (test/support/sql-server-recorder.ts). Every statement must pass the gate
 * (sqlServerProblems): at most 2098 parameters, @0…@n-1 all bound and used, at most 1000 rows per VALUES
 * list, no legacy datetime parameter, no PostgreSQL-only syntax. The grids' SQL is snapshotted, so a dialect
 * change is reviewed. What only a real server can prove is listed in docs/testing.md, "What is not tested here".
 */

const NOW = Date.parse('2026-11-22T10:00:00.000Z');

/** Fails with every problem of every statement, each with the start of its SQL. */
function expectSqlServerAccepts(statements: readonly RecordedStatement[]): void {
  expect(statements.length).toBeGreaterThan(0);
  const problems = statements.flatMap((s) =>
    sqlServerProblems(s).map((p) => `${p} — in: ${s.sql.slice(0, 160)}`),
  );
  expect(problems).toEqual([]);
}

/** A plausible value for every column the table binds (what the column's type accepts). */
function sampleRow(ds: DataSource, table: EntityTarget<ObjectLiteral>, i: number): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const c of ds.getMetadata(table).columns) {
    if (c.isGenerated) continue;
    const type = String(c.type);
    row[c.propertyName] =
      type === 'datetime2'
        ? new Date(NOW - i)
        : type === 'int' || type === 'bigint'
          ? i + 1
          : type === 'float'
            ? i + 0.5
            : type === 'bit'
              ? i % 2 === 0
              : `v${i}`;
  }
  return row;
}

/** Bound columns of a table (its INSERT's parameters per row). */
const boundColumns = (ds: DataSource, table: EntityTarget<ObjectLiteral>) =>
  ds.getMetadata(table).columns.filter((c) => !c.isGenerated).length;

const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('SQL Server statements, recorded without a server', () => {
  let ds: DataSource;
  let recorder: SqlServerRecorder;
  let get: <T>(type: new (...args: never[]) => T) => T;

  beforeAll(async () => {
    ({ dataSource: ds, recorder } = await recordingSqlServer());
    const moduleRef = await Test.createTestingModule({
      providers: [
        { provide: getDataSourceToken(), useValue: ds },
        ...ALL_ENTITIES.map((e) => ({ provide: getRepositoryToken(e), useValue: ds.getRepository(e) })),
        IdentityRepository,
        UserSecurityRepository,
        SessionUserRepository,
        ActorService,
        ApiKeyRepository,
        AuditRepository,
        AdminEventRepository,
        ArchiveRepository,
        CaseRepository,
        ConfigurationRepository,
        StageRollupRepository,
        CaptureRepository,
      ],
    }).compile();
    get = (type) => moduleRef.get(type);
  });

  afterAll(() => ds.destroy());
  afterEach(() => recorder.clearAnswers());

  /** Runs `work` and returns what it recorded. */
  const recording = async (work: () => Promise<unknown>): Promise<RecordedStatement[]> => {
    const mark = recorder.mark();
    await work();
    return recorder.statementsSince(mark);
  };

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

  describe('transient errors (issue 36)', () => {
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
    // The 64-bit ids of the tables never trimmed (audit, issue 15; engine, issue 36): the primary key made again.
    for (const table of ['UserLogin', 'UserLogout', 'EntityAnalysisModelArchive', 'Case'])
      expect(ddl).toContain(
        `ALTER TABLE [${table}] DROP CONSTRAINT [PK_${table}]\nALTER TABLE [${table}] ALTER COLUMN [Id] bigint NOT NULL\n` +
          `ALTER TABLE [${table}] ADD CONSTRAINT [PK_${table}] PRIMARY KEY ([Id])`,
      );
    // The row versions (issue 38): one ALTER per table, its default filling the rows already there.
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

  describe('identity', () => {
    it('binds every instant of the sign-in updates as datetime2, exactly', async () => {
      const repo = get(IdentityRepository);
      const security = get(UserSecurityRepository);
      const lastLogin = new Date('2026-11-22T09:59:58.123Z');
      const now = new Date(NOW);
      const statements = await recording(async () => {
        await security.countFailedPassword(7, 3, now);
        await security.completeSignIn(7, 'hash', now, lastLogin);
        await security.completeSignIn(7, 'hash', now, null);
        await security.completeSignIn(7, 'hash', now);
        await security.completeExternalSignIn(7, now, lastLogin);
        await security.replacePassword(7, 'old', 'new', now, 'admin');
        await security.moveTokensValidFrom(7, now);
        await get(SessionUserRepository).findSessionUser('11111111-1111-4111-8111-111111111111');
        // The administrator's column-only writes and the forward-only password reset (issue 13).
        await security.resetPassword(
          7,
          { passwordHash: 'new', expired: true, wirePasswordHash: false, updatedUser: 'admin' },
          now,
        );
        await repo.updateUser(7, {
          Email: 'a@example.com',
          Active: false,
          UpdatedDate: now,
          UpdatedUser: 'admin',
        });
        await security.unlockUser(7, now, 'admin');
        // A deactivation ends the sessions in its own statement (issue 37); the users a change concerns.
        await security.deactivateUser(
          7,
          { Email: 'a@example.com', UpdatedDate: now, UpdatedUser: 'admin' },
          now,
        );
        await repo.userIdsOf({ roleId: 3 });
        await repo.userIdsOf({ tenantId: 2 });
        await repo.softDeleteUser(7, now, 'admin');
        await repo.updateTenant(2, { Name: 'T', UpdatedDate: now, UpdatedUser: 'admin' });
        await repo.softDeleteTenant(2, now, 'admin');
        await repo.updateRole(3, { Name: 'R', UpdatedDate: now, UpdatedUser: 'admin' });
        await repo.softDeleteRole(3, now, 'admin');
        await repo.countUsers();
      });
      // TokensValidFrom moves forward with a CASE (no GREATEST: SQL Server 2019 lacks it).
      expect(
        statements.some((s) => /"TokensValidFrom" = CASE WHEN "TokensValidFrom" IS NULL OR/.test(s.sql)),
      ).toBe(true);
      expectSqlServerAccepts(statements);
      // The single-use condition of the passcode step: the expected LastLoginDate, to the millisecond.
      const completing = statements.filter((s) => /AND "LastLoginDate" = @\d+/.test(s.sql));
      expect(completing).toHaveLength(2);
      for (const s of completing) {
        const [, n] = /AND "LastLoginDate" = @(\d+)/.exec(s.sql)!;
        expect(s.parameters[Number(n)]).toEqual({ name: n, type: 'datetime2', value: lastLogin });
      }
    });

    it('reads the actors of 2 100 users (an API key cache reload) in chunks within the limit', async () => {
      // Rows as TypeORM reads them back: each column aliased <Table>_<Column>.
      const aliased = (table: string, row: Record<string, unknown>) =>
        Object.fromEntries(Object.entries(row).map(([k, v]) => [`${table}_${k}`, v]));
      const user = (Id: number) => ({
        Id,
        Guid: `g${Id}`,
        Name: `u${Id}`,
        TenantRegistryId: 1,
        RoleRegistryId: Id,
        Active: true,
        PasswordLocked: false,
        DeletedDate: null,
      });
      const inList = (s: RecordedStatement) => s.parameters.map((p) => Number(p.value));
      recorder.answer(/FROM "UserRegistry"/, (s) => inList(s).map((id) => aliased('UserRegistry', user(id))));
      recorder.answer(/FROM "RoleRegistryPermission"/, (s) =>
        inList(s).map((RoleRegistryId) =>
          aliased('RoleRegistryPermission', { Id: RoleRegistryId, RoleRegistryId, PermissionId: 1 }),
        ),
      );
      recorder.answer(/FROM "TenantRegistry"/, [
        aliased('TenantRegistry', { Id: 1, Guid: 't', Name: 't', Landlord: true, DeletedDate: null }),
      ]);
      let actors = new Map<number, unknown>();
      const statements = await recording(async () => {
        actors = await get(ActorService).actorsFor(ids(2100), 'api-key');
      });
      expectSqlServerAccepts(statements);
      expect(actors.size).toBe(2100);
    });

    it("writes an administrator's change and its AdminEvent row in one transaction", async () => {
      const mark = recorder.mark();
      await inTransaction(ds, async () => {
        await get(IdentityRepository).updateRole(
          3,
          { Name: 'Auditors', UpdatedDate: new Date(NOW), UpdatedUser: 'a' },
          2,
        );
        await get(AdminEventRepository).insert(sampleRow(ds, AdminEvent, 1) as never);
      });
      const events = recorder.since(mark);
      expect(events.map((e) => e.kind)).toEqual(['begin', 'statement', 'statement', 'commit']);
      const statements = recorder.statementsSince(mark);
      expect(statements[1].sql).toMatch(/INSERT INTO "AdminEvent"/);
      expectSqlServerAccepts(statements);
    });

    it("replaces a role's permissions in one transaction", async () => {
      const mark = recorder.mark();
      await get(IdentityRepository).transaction((tx) => tx.replacePermissions(3, [...ALL_PERMISSIONS]));
      const events = recorder.since(mark);
      expect(events.map((e) => e.kind)).toEqual(['begin', 'statement', 'statement', 'commit']);
      expectSqlServerAccepts(recorder.statementsSince(mark));
    });

    it('reads the permissions of 2 100 roles in chunks within the limit', async () => {
      const statements = await recording(() => get(IdentityRepository).permissionsOf(ids(2100)));
      expectSqlServerAccepts(statements);
      expect(statements.length).toBeGreaterThan(1);
    });
  });

  it('configuration: every id list of 2 100 is read in chunks within the limit', async () => {
    const repo = get(ConfigurationRepository);
    const statements = await recording(async () => {
      await repo.findWorkflowsByIds(ids(2100));
      await repo.findStatusesByIds(ids(2100));
      await repo.listStatuses(ids(2100));
      await repo.findStatus(ids(2100), '11111111-1111-4111-8111-111111111111');
    });
    expectSqlServerAccepts(statements);
  });

  it('the lists page by keyset (OFFSET … FETCH, Id above the cursor), a user search escapes [ and uses ESCAPE', async () => {
    const page = { limit: 10, after: 5 };
    const identity = get(IdentityRepository);
    const statements = await recording(async () => {
      await identity.pageUsers(7, 'a[b%_', page);
      await identity.pageUsers(undefined, null, null);
      await identity.pageRoles(7, page);
      await identity.pageTenants(page);
      await identity.findTenantsByIds(ids(2100));
      await identity.findRolesByIds(ids(2100));
      await get(ConfigurationRepository).listModels(7, page);
      await get(ApiKeyRepository).listForUser(7, page);
    });
    expectSqlServerAccepts(statements);
    const paged = statements.filter((s) => /FETCH NEXT/.test(s.sql));
    expect(paged.length).toBe(5);
    for (const s of paged) expect(s.sql).toMatch(/"Id" > @\d+.* OFFSET 0 ROWS FETCH NEXT 11 ROWS ONLY$/);
    const search = statements.find((s) => /LIKE/.test(s.sql))!;
    expect(search.sql).toMatch(/"NormalizedName" LIKE @\d+ ESCAPE '\\'/);
    expect(search.parameters.map((p) => p.value)).toContain('%a\\[b\\%\\_%');
  });

  it('API keys, audit rows and cases: the ORM statements are T-SQL with datetime2 instants', async () => {
    const statements = await recording(async () => {
      await get(ApiKeyRepository).listActive();
      await get(ApiKeyRepository).revoke('11111111-1111-4111-8111-111111111111', new Date(NOW), 'admin');
      await get(AuditRepository).insertLogin(sampleRow(ds, UserLogin, 1) as never);
      await get(AuditRepository).insertLogout(sampleRow(ds, UserLogout, 1) as never);
      await get(ArchiveRepository).updateInPlace(1, '{}', new Date('1600-01-01T00:00:00Z'), new Date(NOW));
      await get(ArchiveRepository).findByEntryGuid(1, '11111111-1111-4111-8111-111111111111');
    });
    expectSqlServerAccepts(statements);
  });

  it('case creation in batches: the open-case look-up and the MERGE upsert (UPDLOCK, HOLDLOCK), within the limits', async () => {
    const repo = get(CaseRepository);
    const keys = ids(600).map((i) => ({ CaseWorkflowId: 1, CaseKey: 'AccountId', CaseKeyValue: `A-${i}` }));
    const per = rowsPerStatement('mssql', 8);
    const statements = await recording(async () => {
      await repo.findOpen(keys);
      await repo.upsert(
        keys.slice(0, per + 1).map((k, i) => ({
          ...k,
          Guid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
          CaseWorkflowStatusId: 2,
          Priority: 3,
          EntityAnalysisModelInstanceEntryGuid: '11111111-1111-4111-8111-111111111111',
          At: new Date(NOW),
        })),
      );
    });
    expectSqlServerAccepts(statements);
    const lookups = statements.filter((s) => s.sql.startsWith('SELECT'));
    expect(lookups.map((s) => s.parameters.length)).toEqual([1500, 300]);
    for (const s of lookups)
      expect(s.sql).toMatch(
        /^SELECT c\."Id", .* FROM \(VALUES \(@0, @1, @2\), .*\) AS k \(w, k, v\) JOIN "Case" c ON .*c\."ClosedDate" IS NULL$/s,
      );
    const merges = statements.filter((s) => s.sql.startsWith('MERGE'));
    expect(merges.map((s) => s.parameters.length / 8)).toEqual([per, 1]);
    for (const s of merges) {
      expect(s.sql).toMatch(/^MERGE "Case" WITH \(UPDLOCK, HOLDLOCK\) AS t/);
      expect(s.sql).toMatch(/WHEN MATCHED AND t."Priority" > s."Priority" THEN UPDATE SET/);
      expect(s.sql).toMatch(
        /OUTPUT inserted."Guid", inserted."CaseWorkflowId", inserted."CaseKey", inserted."CaseKeyValue";$/,
      );
      expect(s.parameters.filter((p) => p.type.startsWith('datetime2'))).toHaveLength(
        s.parameters.length / 8,
      );
    }
  });

  describe('capture tables', () => {
    const tables = CAPTURE_ENTITIES.filter((e) => e !== CaptureBatch);

    it.each(tables.map((t) => [t.name, t] as const))(
      '%s: N and N+1 rows per statement, with the ledger row, in one transaction',
      async (_name, table) => {
        const repo = get(CaptureRepository);
        const per = rowsPerStatement('mssql', boundColumns(ds, table));
        for (const [rows, inserts] of [
          [per, 1],
          [per + 1, 2],
        ]) {
          const mark = recorder.mark();
          await repo.insert(
            table,
            ids(rows).map((i) => sampleRow(ds, table, i)),
            { Instance: 'node-a' },
            `batch-${rows}`,
          );
          const events = recorder.since(mark);
          expect(events.map((e) => e.kind)).toEqual([
            'begin',
            ...Array<string>(inserts + 1).fill('statement'),
            'commit',
          ]);
          const statements = recorder.statementsSince(mark);
          expectSqlServerAccepts(statements);
          expect(statements.every((s) => s.inTransaction)).toBe(true);
          expect(statements.slice(0, inserts).reduce((n, s) => n + valuesRowCounts(s.sql)[0], 0)).toBe(rows);
        }
      },
    );

    it('refuses NaN and ±Infinity in a numeric column before sending anything, as a refused row', async () => {
      const repo = get(CaptureRepository);
      for (const bad of [NaN, Infinity, -Infinity]) {
        const row = { ...sampleRow(ds, OpenTelemetryMetric, 1), Sum: bad };
        const mark = recorder.mark();
        const error = await repo.insert(OpenTelemetryMetric, [row], { Instance: 'node-a' }, 'b').then(
          () => null,
          (e: unknown) => e,
        );
        expect(isRowRefused(error)).toBe(true);
        expect(recorder.since(mark)).toEqual([]);
      }
    });

    it('checks whether a batch landed, and trims the oldest rows, in T-SQL', async () => {
      recorder.answer(/ORDER BY/, [{ Id: 5000 }], 1);
      const statements = await recording(async () => {
        await get(CaptureRepository).landed('11111111-1111-4111-8111-111111111111');
        await get(CaptureRepository).trimOldest(OpenTelemetryMetric, 100_000, 4_000);
      });
      expectSqlServerAccepts(statements);
      expect(statements.map((s) => s.sql).join('\n')).toMatch(/DELETE TOP \(@1\)/);
    });
  });

  it('retention deletes in batches below SQL Server lock escalation (5000 locks on one table)', async () => {
    const retention = new TelemetryRetention(get(CaptureRepository), loadSettings({}));
    recorder.answer(/ORDER BY/, [{ Id: 200_000 }]);
    const statements = await recording(() => retention.trimAll());
    expectSqlServerAccepts(statements);
    const deletes = statements.filter((s) => s.sql.startsWith('DELETE TOP'));
    expect(deletes).toHaveLength(CAPTURE_ENTITIES.length);
    for (const d of deletes)
      expect(d.parameters[1]).toMatchObject({ type: 'int', value: RETENTION_BATCH.mssql });
    expect(RETENTION_BATCH.mssql).toBeLessThan(5000);
  });

  it('archive: N and N+1 rows per statement, an instant before 1753 bound as datetime2', async () => {
    const repo = get(ArchiveRepository);
    const row = (i: number): ArchiveRow => ({
      EntityAnalysisModelInstanceEntryGuid: `entry-${i}`,
      EntityAnalysisModelId: 1,
      EntryReference: `ref-${i}`,
      Json: '{}',
      ReferenceDate: new Date(i === 1 ? '1600-01-01T00:00:00.001Z' : NOW - i),
      CreatedDate: new Date(NOW),
      UpdatedDate: null,
    });
    const per = rowsPerStatement('mssql', 7);
    for (const [rows, inserts] of [
      [per, 1],
      [per + 1, 2],
    ]) {
      const statements = await recording(() => repo.bulkInsert(ids(rows).map(row)));
      expect(statements).toHaveLength(inserts);
      expectSqlServerAccepts(statements);
    }
  });

  it('stage rollups: 60 models × 4 stages in statements within the limit', async () => {
    const archiver = ids(240).map((i) => ({
      EntityAnalysisModelGuid: `model-${Math.ceil(i / 4)}`,
      StageId: (i % 4) + 1,
      StageName: 'Stage',
      TotalMicroseconds: 1000 * i,
      MinMicroseconds: 1,
      MaxMicroseconds: 2 ** 40,
      InvokeCount: i,
      CreatedDate: new Date(NOW),
      Instance: 'node-a',
    }));
    const caseCreation = ids(240).map((i) => {
      const { EntityAnalysisModelGuid: _model, ...rest } = archiver[i - 1];
      return rest;
    });
    const mark = recorder.mark();
    await get(StageRollupRepository).insert(archiver, caseCreation);
    const statements = recorder.statementsSince(mark);
    expectSqlServerAccepts(statements);
    expect(recorder.since(mark)[0].kind).toBe('begin');
    expect(recorder.since(mark).at(-1)!.kind).toBe('commit');
    const inserted = (table: string) =>
      statements
        .filter((s) => s.sql.includes(`INSERT INTO "${table}"`))
        .reduce((n, s) => n + valuesRowCounts(sqlSkeleton(s.sql))[0], 0);
    expect(inserted('ArchiverStagePerformanceCounter')).toBe(240);
    expect(inserted('CaseCreationStagePerformanceCounter')).toBe(240);
  });

  describe('grids', () => {
    const grids: GridDefinition[] = [...TELEMETRY_GRIDS, USER_LOGIN_GRID, USER_LOGOUT_GRID, ADMIN_EVENT_GRID];
    /** Every option a grid takes, at its edges. */
    const fullQuery = (def: GridDefinition) => ({
      from: '0001-01-01T00:00:00Z',
      to: '9999-12-31T23:59:59.999Z',
      ...Object.fromEntries(
        def.filters.map((f) => [
          f.param,
          f.type === 'integer'
            ? String(f.max)
            : f.type === 'boolean'
              ? 'true'
              : '11111111-1111-4111-8111-111111111111',
        ]),
      ),
      beforeTime: '2026-11-22T09:59:59.123Z',
      beforeId: '42',
      search: 'a[b]%_\\',
      take: '100000',
      samplePercentage: '10',
      sampleSeed: '42',
      sortField: def.columns.at(-1)!.name,
      sortDirection: 'asc',
    });
    const scopeOf = (def: GridDefinition) =>
      [USER_LOGIN_GRID, USER_LOGOUT_GRID, ADMIN_EVENT_GRID].includes(def)
        ? [{ column: 'TenantRegistryId', value: 7 }]
        : [];
    const summaryRow = { n: 0, total: 0, mx: null, mn: null, wc: 0 };

    it.each(grids.map((g) => [g.name, g] as const))('%s: default and full options', async (_name, def) => {
      const engine = new GridEngine(ds);
      for (const [label, raw] of [
        ['default', {}],
        ['full', fullQuery(def)],
      ] as const) {
        recorder.answer(/AS total/, [summaryRow]);
        recorder.answer(/AS mx/, [summaryRow]);
        const q = parseGridQuery(def, raw, NOW);
        // Twice: the second answer comes through the cache's change check.
        const statements = await recording(async () => {
          await engine.query(def, q, scopeOf(def));
          await engine.query(def, q, scopeOf(def));
        });
        expectSqlServerAccepts(statements);
        expect(
          statements.map((s) => ({ sql: s.sql, types: s.parameters.map((p) => p.type) })),
        ).toMatchSnapshot(`${def.name} ${label}`);
      }
    });

    it.each(TELEMETRY_GRIDS.filter((g) => g.statistics.length).map((g) => [g.name, g] as const))(
      '%s: the statistics read the sampled window once, in one statement with the total (issue 36)',
      async (_name, def) => {
        const values = Object.fromEntries(def.statistics.map((_, i) => [`a${i}`, '4,1,3,2,1E+300']));
        recorder.answer(/STRING_AGG/, [{ ...summaryRow, ...values, total: 5 }]);
        let answer: Awaited<ReturnType<GridEngine['query']>> | undefined;
        const statements = await recording(async () => {
          answer = await new GridEngine(ds).query(
            def,
            parseGridQuery(def, fullQuery(def), NOW),
            scopeOf(def),
          );
        });
        expectSqlServerAccepts(statements);
        const reads = statements.filter((s) => /STRING_AGG/.test(s.sql));
        expect(reads).toHaveLength(1);
        // The window (TOP of the capped rows) appears once; no per-column aggregate, median or histogram.
        expect(reads[0].sql.match(/SELECT TOP \(/g)).toHaveLength(1);
        expect(statements.some((s) => /PERCENTILE_CONT|STDEV|FOR JSON/.test(s.sql))).toBe(false);
        expect(reads[0].sql).toMatch(/ AS total, /);
        const first = Object.values(answer!.statistics)[0] as { min: number; max: number; median: number };
        expect(first).toMatchObject({ min: 1, max: 1e300, median: 3 });
      },
    );

    it.each(TELEMETRY_GRIDS.map((g) => [g.name, g] as const))(
      '%s/Series: one grouped statement, the bucket in whole milliseconds (DATEDIFF_BIG)',
      async (_name, def) => {
        const statements = await recording(() =>
          new GridEngine(ds).series(def, parseGridQuery(def, fullQuery(def), NOW), 1_000),
        );
        expectSqlServerAccepts(statements);
        expect(statements.length).toBe(1);
        expect(statements[0].sql).toMatch(/DATEDIFF_BIG\(millisecond, @0, \[\w+\]\) \/ @1 AS b/);
        // the origin as datetime2; the width a whole number (bigint here: the full window spans ten millennia)
        expect(statements[0].parameters.slice(0, 2).map((p) => p.type)).toEqual(['datetime2', 'bigint']);
        expect(
          statements.map((s) => ({ sql: s.sql, types: s.parameters.map((p) => p.type) })),
        ).toMatchSnapshot(`${def.name} series`);
      },
    );

    it('counts an export’s window in one statement', async () => {
      const def = USER_LOGIN_GRID;
      recorder.answer(/AS n FROM/, [{ n: 3 }]);
      const statements = await recording(async () =>
        expect(
          await new GridEngine(ds).count(def, parseGridQuery(def, fullQuery(def), NOW), scopeOf(def)),
        ).toBe(3),
      );
      expectSqlServerAccepts(statements);
      expect(statements.map((s) => s.sql)).toEqual([
        expect.stringMatching(/^SELECT COUNT\(\*\) AS n FROM \[UserLogin\] WHERE /),
      ]);
    });

    it('exports an audit grid in keyset batches of TOP (n), the next batch below the last row', async () => {
      const def = USER_LOGIN_GRID;
      const last = { export_key_time: new Date('2026-11-22T09:59:59.123Z'), export_key_id: 42 };
      recorder.answer(/export_key_time/, [{ ...last }, { ...last }]);
      const statements = await recording(async () => {
        const batches = new GridEngine(ds).exportRows(def, parseGridQuery(def, {}, NOW), scopeOf(def), 4, 2);
        for await (const _rows of batches) {
          /* read them all */
        }
      });
      expectSqlServerAccepts(statements);
      expect(statements.map((s) => s.sql)).toEqual([
        expect.stringMatching(/^SELECT TOP \(2\) .* ORDER BY \[CreatedDate\] DESC, \[Id\] DESC$/),
        expect.stringMatching(
          /AND \(\[CreatedDate\] < @\d+ OR \(\[CreatedDate\] = @\d+ AND \[Id\] < @\d+\)\) ORDER BY/,
        ),
      ]);
      const keyset = statements[1].parameters.slice(-3);
      expect(keyset.map((p) => p.type)).toEqual(['datetime2', 'datetime2', 'int']);
    });

    it('matches [ in a search literally: escaped in the pattern, with ESCAPE', async () => {
      const def = USER_LOGIN_GRID;
      recorder.answer(/AS total/, [summaryRow]);
      const statements = await recording(() =>
        new GridEngine(ds).query(def, parseGridQuery(def, { search: 'a[b]c' }, NOW), []),
      );
      const [rows] = statements;
      expect(rows.sql).toMatch(/LIKE @\d+ ESCAPE '\\'/);
      const patterns = rows.parameters.filter((p) => typeof p.value === 'string' && p.value.startsWith('%'));
      expect(patterns.length).toBe(def.searchColumns.length);
      for (const p of patterns) expect(p.value).toBe('%a\\[b]c%');
    });
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
