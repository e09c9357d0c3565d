import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import {
  ArchiverWarning,
  CaptureFlusher,
  CaptureQueues,
  CaptureRepository,
  TelemetryRetention,
} from '@app/capture-queues';
import { ArchiverStagePerformanceCounter, CaseCreationStagePerformanceCounter } from '@app/engine';
import { createUser, landlordActor } from './factories/identity.factory';
import { signIn } from './support/auth';
import { TEST_PROVIDERS } from './support/databases';
import { startTestApp, TestApp } from './support/test-app';

/**
 * The spec's grid numbers stated as literals and observed over HTTP on a running app (spec: Telemetry grids,
 * statistics columns; Limits): the statistics members of each grid, take clamped to 100000, statistics over at
 * most the newest 100000 rows with a 10-bucket histogram, samplePercentage clamped to 0..100, and each
 * telemetry table trimmed to its newest 100000 rows by default.
 */
const LIMIT = 100_000;
const BUCKETS = 10;
const MODEL = '0195f0d2-0000-7000-8000-0000000000aa';

/** spec: Statistics columns, per grid (stageId is a category code and is excluded). */
const STATISTICS_COLUMNS: [string, string[]][] = [
  [
    'ArchiverStagePerformanceCounter',
    ['totalMicroseconds', 'minMicroseconds', 'maxMicroseconds', 'invokeCount'],
  ],
  ['ArchiverWarning', ['durationMicroseconds']],
  [
    'CaseCreationStagePerformanceCounter',
    ['totalMicroseconds', 'minMicroseconds', 'maxMicroseconds', 'invokeCount'],
  ],
  ['CaseCreationWarning', ['durationMicroseconds']],
  ['ModelInvokeWarning', ['elapsedMicroseconds', 'sinceLastEntryMicroseconds']],
];

describe.each(TEST_PROVIDERS)("the spec's grid numbers over HTTP on %s", (provider) => {
  let t: TestApp;
  let token: string;
  const grid = (name: string, query: Record<string, string> = {}) =>
    request(t.url).get(`/api/${name}`).query(query).set('Authorization', `Bearer ${token}`).expect(200);

  beforeAll(async () => {
    // The tests flush and trim themselves: the app's own timers stay out of the way (the row limit is the default).
    t = await startTestApp(provider, {
      CaptureQueueFlushIntervalMilliseconds: '3600000',
      TelemetryRetentionIntervalMilliseconds: '86400000',
    });
    const landlord = await createUser(t.app, { tenantGuid: (await landlordActor(t.app)).tenantGuid });
    token = (await signIn(t.url, landlord.name, landlord.password)).token;
  });
  afterAll(() => t.close());

  it('each stage grid and ModelInvokeWarning answers statistics for exactly the spec columns, never stageId', async () => {
    const queues = t.app.get(CaptureQueues);
    const ds = t.app.get(DataSource);
    const now = new Date();
    for (const stageId of [1, 2, 3, 4]) {
      const figures = { StageId: stageId, StageName: `Stage ${stageId}`, CreatedDate: now, Instance: 'n' };
      const rollup = { TotalMicroseconds: 40, MinMicroseconds: 10, MaxMicroseconds: 30, InvokeCount: 2 };
      await ds
        .getRepository(ArchiverStagePerformanceCounter)
        .insert({ ...figures, ...rollup, EntityAnalysisModelGuid: MODEL });
      await ds.getRepository(CaseCreationStagePerformanceCounter).insert({ ...figures, ...rollup });
      queues.enqueueArchiverWarning({
        entityAnalysisModelGuid: MODEL,
        entityAnalysisModelInstanceEntryGuid: null,
        stageId,
        durationMicroseconds: 1_000 * stageId,
      });
      queues.enqueueCaseCreationWarning({
        caseWorkflowGuid: MODEL,
        caseWorkflowName: 'Workflow',
        caseKey: 'AccountId',
        caseKeyValue: `ACC-${stageId}`,
        stageId,
        durationMicroseconds: 1_000 * stageId,
      });
    }
    queues.enqueueModelInvokeWarning({
      entityAnalysisModelGuid: MODEL,
      entityAnalysisModelName: 'Model',
      entityAnalysisModelInstanceEntryGuid: randomUUID(),
      message: 'ExtractFields',
      elapsedMicroseconds: 12,
      sinceLastEntryMicroseconds: 7,
    });
    expect((await t.app.get(CaptureFlusher).flush()).deferred).toBe(false);

    for (const [name, columns] of STATISTICS_COLUMNS) {
      const { body } = await grid(name);
      const stageIds = (body.rows as Record<string, unknown>[]).map((r) => r.stageId);
      expect({ name, rows: body.rows.length }).toEqual({ name, rows: name === 'ModelInvokeWarning' ? 1 : 4 });
      if (name !== 'ModelInvokeWarning') expect(stageIds.sort()).toEqual([1, 2, 3, 4]);
      expect({ name, statistics: Object.keys(body.statistics).sort() }).toEqual({
        name,
        statistics: [...columns].sort(),
      });
      expect(Object.keys(body.statistics)).not.toContain('stageId');
      for (const column of columns) {
        expect(body.statistics[column].count).toBe(body.rows.length);
        expect(body.statistics[column].histogram).toHaveLength(BUCKETS);
      }
    }
  });

  it('samplePercentage is clamped to 0..100', async () => {
    const all = await grid('ArchiverWarning');
    const above = await grid('ArchiverWarning', { samplePercentage: '250', sampleSeed: '7' });
    expect(above.body.sample).toEqual({ percentage: 100, seed: 7 });
    expect(above.body.total).toBe(all.body.total);
    const below = await grid('ArchiverWarning', { samplePercentage: '-3', sampleSeed: '7' });
    expect(below.body.sample).toEqual({ percentage: 0, seed: 7 });
    expect(below.body.total).toBe(0);
  });

  // 100 001 rows written, read and trimmed: minutes on a slow machine beside the rest of the suite (240 s).
  it('over 100001 rows: take=100001 answers 100000, statistics cover the newest 100000 in 10 buckets, and the trim keeps the newest 100000', async () => {
    const ds = t.app.get(DataSource);
    await ds.getRepository(ArchiverWarning).clear();
    // 100001 rows a millisecond apart, DurationMicroseconds 1 (the oldest) to 100001 (the newest).
    const base = Date.now() - 10 * 60_000;
    const rows = Array.from({ length: LIMIT + 1 }, (_, i) => ({
      EntityAnalysisModelGuid: MODEL,
      EntityAnalysisModelInstanceEntryGuid: null,
      StageId: 4,
      DurationMicroseconds: i + 1,
      BatchSize: 1,
      CreatedDate: new Date(base + i),
    }));
    await t.app.get(CaptureRepository).insert(ArchiverWarning, rows, { Instance: 'n' }, randomUUID());
    const window = { from: new Date(base - 1_000).toISOString(), to: new Date(base + 200_000).toISOString() };

    const { body } = await grid('ArchiverWarning', { ...window, take: '100001' });
    expect(body.total).toBe(LIMIT + 1);
    expect(body.rows).toHaveLength(LIMIT);
    const duration = body.statistics.durationMicroseconds;
    expect(duration).toMatchObject({ count: LIMIT, min: 2, max: LIMIT + 1 });
    expect(duration.histogram).toHaveLength(BUCKETS);
    expect(duration.histogram.map((b: { count: number }) => b.count)).toEqual(
      Array(BUCKETS).fill(LIMIT / BUCKETS),
    );

    // spec: each grid holds up to the last 100000 rows (TelemetryRetentionRows, not set here).
    expect(t.settings.TelemetryRetentionRows).toBe(LIMIT);
    await t.app.get(TelemetryRetention).trimAll();
    const repo = ds.getRepository(ArchiverWarning);
    expect(await repo.count()).toBe(LIMIT);
    expect(await repo.countBy({ DurationMicroseconds: 1 })).toBe(0);
    expect(await repo.countBy({ DurationMicroseconds: 2 })).toBe(1);
  }, 240_000);
});
