import 'reflect-metadata';
import type { DataSource } from 'typeorm';
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
import { rowsPerStatement } from '@app/database';
import { ArchiveRepository, type ArchiveRow } from '../../libs/engine/src/archiver/archive.repository';
import { PURGE_BATCH } from '../../libs/engine/src/archiver/archive-purge.service';
import { StageRollupRepository } from '../../libs/engine/src/rollups/stage-rollup.repository';
import { SqlServerRecorder, valuesRowCounts, sqlSkeleton } from '../support/sql-server-recorder';
import { boundColumns, expectSqlServerAccepts, ids, NOW, recordedSqlServer, sampleRow } from './recorded';

/**
 * The capture tables, their retention, the archive and the stage rollups: bulk writes within the limits
 * (recorded.ts).
 */
describe('SQL Server statements, recorded without a server: capture, archive and rollups', () => {
  const r = recordedSqlServer();
  const { recording } = r;
  let ds: DataSource;
  let recorder: SqlServerRecorder;
  let get: <T>(type: new (...args: never[]) => T) => T;
  beforeAll(() => {
    ({ ds, recorder, get } = r);
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

  it('archive purge: the walk by model and time in TOP (n), a batch of ids deleted within the limit', async () => {
    const repo = get(ArchiveRepository);
    const statements = await recording(async () => {
      await repo.purgeCandidates(1, new Date(NOW), null, PURGE_BATCH);
      await repo.purgeCandidates(1, new Date(NOW), { createdDate: new Date(NOW - 5), id: 7 }, PURGE_BATCH);
      await repo.purge(ids(PURGE_BATCH));
      await repo.oldest(1);
    });
    expect(statements).toHaveLength(4);
    expectSqlServerAccepts(statements);
    expect(statements[0].sql).toMatch(/^SELECT TOP \(@2\) a\."Id"/);
    expect(statements[1].sql).toMatch(/^SELECT TOP \(@5\) a\."Id"/);
    expect(statements[2].sql).toMatch(/^DELETE FROM "EntityAnalysisModelArchive" WHERE "Id" IN \(@0, @1,/);
    expect(statements[2].parameters).toHaveLength(PURGE_BATCH);
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
});
