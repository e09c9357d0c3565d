import 'reflect-metadata';
import { Test } from '@nestjs/testing';
import { getDataSourceToken, getRepositoryToken } from '@nestjs/typeorm';
import type { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';
import { CaptureRepository } from '@app/capture-queues';
import { ActorService } from '@app/identity';
import { AdminEventRepository } from '../../libs/audit/src/admin-events/admin-event.repository';
import { ApiKeyRepository } from '../../libs/api-keys/src/api-key.repository';
import { AuditRepository } from '../../libs/audit/src/audit.repository';
import { ArchiveRepository } from '../../libs/engine/src/archiver/archive.repository';
import { CaseRepository } from '../../libs/engine/src/case-creation/case.repository';
import { ConfigurationRepository } from '../../libs/engine/src/model/configuration.repository';
import { StageRollupRepository } from '../../libs/engine/src/rollups/stage-rollup.repository';
import { IdentityRepository } from '../../libs/identity/src/identity.repository';
import { SessionUserRepository } from '../../libs/identity/src/session-user.repository';
import { UserSecurityRepository } from '../../libs/identity/src/user-security.repository';
import { ALL_ENTITIES } from '../../apps/server/src/entities';
import {
  RecordedStatement,
  recordingSqlServer,
  SqlServerRecorder,
  sqlServerProblems,
} from '../support/sql-server-recorder';

/**
 * The SQL Server path, checked without a server (test/sql-server-statements/*.spec.ts): the real migrations,
 * repositories and grid builder run against a SQL Server DataSource whose statements are recorded with the type
 * node-mssql binds each parameter as (test/support/sql-server-recorder.ts). Every statement must pass the gate
 * (sqlServerProblems): at most 2098 parameters, @0…@n-1 all bound and used, at most 1000 rows per VALUES
 * list, no legacy datetime parameter, no PostgreSQL-only syntax. The grids' SQL is snapshotted, so a dialect
 * change is reviewed. What only a real server can prove is listed in docs/testing.md, "What is not tested here".
 */

export const NOW = Date.parse('2026-11-22T10:00:00.000Z');

/** Fails with every problem of every statement, each with the start of its SQL. */
export function expectSqlServerAccepts(statements: readonly RecordedStatement[]): void {
  expect(statements.length).toBeGreaterThan(0);
  const problems = statements.flatMap((s) =>
    sqlServerProblems(s).map((p) => `${p} — in: ${s.sql.slice(0, 160)}`),
  );
  expect(problems).toEqual([]);
}

/** A plausible value for every column the table binds (what the column's type accepts). */
export function sampleRow(
  ds: DataSource,
  table: EntityTarget<ObjectLiteral>,
  i: number,
): Record<string, unknown> {
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
export const boundColumns = (ds: DataSource, table: EntityTarget<ObjectLiteral>) =>
  ds.getMetadata(table).columns.filter((c) => !c.isGenerated).length;

export const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

/** What recordedSqlServer's beforeAll sets up. */
interface Recorded {
  ds: DataSource;
  recorder: SqlServerRecorder;
  get: <T>(type: new (...args: never[]) => T) => T;
}

/**
 * The recording DataSource and the repositories on it, from the describe's beforeAll on (call it first in the
 * describe's body); the answers given are cleared after each test, the DataSource destroyed after all.
 */
export function recordedSqlServer(): Recorded & {
  recording: (work: () => Promise<unknown>) => Promise<RecordedStatement[]>;
} {
  const r = {} as Recorded;

  beforeAll(async () => {
    ({ dataSource: r.ds, recorder: r.recorder } = await recordingSqlServer());
    const moduleRef = await Test.createTestingModule({
      providers: [
        { provide: getDataSourceToken(), useValue: r.ds },
        ...ALL_ENTITIES.map((e) => ({ provide: getRepositoryToken(e), useValue: r.ds.getRepository(e) })),
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
    r.get = (type) => moduleRef.get(type);
  });

  afterAll(() => r.ds.destroy());
  afterEach(() => r.recorder.clearAnswers());

  /** Runs `work` and returns what it recorded. */
  const recording = async (work: () => Promise<unknown>): Promise<RecordedStatement[]> => {
    const mark = r.recorder.mark();
    await work();
    return r.recorder.statementsSince(mark);
  };
  return Object.assign(r, { recording });
}
