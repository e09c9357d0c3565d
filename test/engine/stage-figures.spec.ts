import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource, Like, MoreThan, type ObjectLiteral } from 'typeorm';
import { ArchiverWarning, CaptureFlusher, CaseCreationWarning } from '@app/capture-queues';
import { Actor, Permission } from '@app/access';
import {
  ARCHIVER_STAGE_NAMES,
  ArchiverService,
  ArchiverStage,
  ArchiverStagePerformanceCounter,
  CASE_CREATION_STAGE_NAMES,
  CaseCreationStage,
  CaseCreationStagePerformanceCounter,
  CaseRecord,
  InvokeService,
  StageRollupService,
} from '@app/engine';
import { createEngineModel, transaction } from '../factories/engine.factory';
import { createUser } from '../factories/identity.factory';
import { SQLITE_AND_POSTGRES } from '../support/databases';
import { freePort } from '../support/free-port';
import { samples } from '../support/prometheus';
import { startTestApp, TestApp } from '../support/test-app';

/** Invocations of the load, each a new account (so each raises and inserts one case), and its closed loop. */
const INVOCATIONS = 2_400;
const CONNECTIONS = 32;
/** Case creation's follow-ups (notification, callback) run for at most this many case keys at once. */
const FOLLOW_UP_CONCURRENCY = 16;
const CASE_STAGES = [1, 2, 3, 4] as CaseCreationStage[];
const ARCHIVER_STAGES = [1, 2, 3, 4] as ArchiverStage[];
const CASE_HISTOGRAM = 'service_engine_casecreation_stage_duration';
const ARCHIVER_HISTOGRAM = 'service_engine_archiver_stage_duration';

interface Figures {
  total: number;
  invokeCount: number;
  /** Per rollup row: [written at (ms), Total, Max]. */
  rows: [number, number, number][];
}

interface RollupRow {
  StageId: number;
  TotalMicroseconds: number;
  MaxMicroseconds: number;
  InvokeCount: number;
  CreatedDate: Date;
}

/** A stage's rollup rows, summed, in the order they were written. */
function figuresOf(rows: RollupRow[], stage: number): Figures {
  const mine = rows.filter((r) => r.StageId === stage);
  return {
    total: mine.reduce((n, r) => n + Number(r.TotalMicroseconds), 0),
    invokeCount: mine.reduce((n, r) => n + Number(r.InvokeCount), 0),
    rows: mine.map((r) => [r.CreatedDate.getTime(), Number(r.TotalMicroseconds), Number(r.MaxMicroseconds)]),
  };
}

/** The histogram's sum (ms) and count of one stage, from the Prometheus scrape. */
async function histogram(
  port: number,
  instrument: string,
  stage: string,
): Promise<{ sum: number; count: number }> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const of = (suffix: string) =>
    samples(text)
      .filter((s) => s.name.startsWith(instrument) && s.name.endsWith(suffix) && s.labels.stage === stage)
      .reduce((n, s) => n + s.value, 0);
  return { sum: of('_sum'), count: of('_count') };
}

/**
 * What the operators read must add up under a load that forms batches (docs/engine.md, "What a stage run
 * is"): every run of a stage is counted once, in the rollup, the histogram and at most one warning. The
 * thresholds are 0, so EVERY run raises its warning: the warnings then count the runs exactly, and their
 * BatchSize the items each run handled.
 */
describe.each(SQLITE_AND_POSTGRES)('stage figures under a batching load on %s', (provider) => {
  let t: TestApp;
  let ds: DataSource;
  let actor: Actor;
  let promPort: number;
  let callbacks: Server;
  let callbackUrl: string;
  let calls = 0;
  /** What the load left: the rows and warnings it wrote, the histograms before it, its wall time (µs). */
  let run: LoadRun;

  beforeAll(async () => {
    callbacks = createServer((req, res) => {
      calls++;
      req.resume().on('end', () => res.writeHead(204).end());
    });
    await new Promise<void>((resolve) => callbacks.listen(0, '127.0.0.1', resolve));
    callbackUrl = `http://127.0.0.1:${(callbacks.address() as AddressInfo).port}`;
    promPort = await freePort();
    t = await startTestApp(provider, {
      EnableOpenTelemetry: 'True',
      OpenTelemetryPrometheusPort: String(promPort),
      CaseCreationWarnThresholdMilliseconds: '0',
      ArchiverWarnThresholdMilliseconds: '0',
      // Every 150 ms the buffered archive rows are copied and their activations handed to case creation at
      // once: batches of dozens to hundreds under this load.
      ArchiveBulkCopyIntervalMilliseconds: '150',
      StageRollupIntervalMilliseconds: '500',
      // Written by the test (flush), so every warning of the run is in the table when it reads.
      CaptureQueueFlushIntervalMilliseconds: '3600000',
    });
    ds = t.app.get(DataSource);
    actor = (
      await createUser(t.app, {
        permissions: [Permission.ReadWriteModel, Permission.ReadWriteCaseWorkflow, Permission.Invoke],
      })
    ).actor;
    run = await batchingLoad(t, actor, provider, promPort, callbackUrl);
  });
  afterAll(async () => {
    await t?.close();
    await new Promise<void>((resolve) => callbacks?.close(() => resolve()));
  });

  const caseStage = (stage: CaseCreationStage) => ({
    f: figuresOf(run.caseRows, stage),
    runs: run.caseWarnings.filter((w) => w.StageId === Number(stage)),
  });

  it('every activation was decided and called back once (the load ran)', async () => {
    const cases = ds.getRepository(CaseRecord);
    expect(await cases.countBy({ CaseKeyValue: Like(`ACC-FIG-${provider}-%`) })).toBe(INVOCATIONS);
    expect(calls).toBe(INVOCATIONS);
  });

  it.each(CASE_STAGES)(
    'case creation stage %s: InvokeCount counts activations; one warning per run carries its batch',
    (stage) => {
      const { f, runs } = caseStage(stage);
      const expected = stage === CaseCreationStage.Notification ? 0 : INVOCATIONS;
      expect(f.invokeCount).toBe(expected);
      // Threshold 0: every run raised exactly one warning, whose BatchSize is the items it handled.
      expect(runs.reduce((n, w) => n + w.BatchSize, 0)).toBe(expected);
      // The warnings' durations are the runs' durations: their sum is the stage's Total (each rounded to 1 µs).
      const durations = runs.reduce((n, w) => n + Number(w.DurationMicroseconds), 0);
      expect(Math.abs(durations - f.total)).toBeLessThanOrEqual(runs.length);
    },
  );

  it.each(CASE_STAGES)(
    'case creation stage %s: the histogram has one sample per run and sums to the rollup',
    async (stage) => {
      const { f, runs } = caseStage(stage);
      const h = await histogram(promPort, CASE_HISTOGRAM, CASE_CREATION_STAGE_NAMES[stage]);
      const b = run.histogramsBefore.get(stage)!;
      expect(h.count - b.count).toBe(runs.length);
      // The rollup keeps the runs' exact times and rounds each row's Total once (≤ 0.5 µs a row).
      expect(Math.abs((h.sum - b.sum) * 1000 - f.total)).toBeLessThanOrEqual(f.rows.length);
    },
  );

  it.each([CaseCreationStage.ExistingCasePriorityLookup, CaseCreationStage.WorkflowStatusLookupAndPersist])(
    'case creation stage %s runs once per batch, serially: its time within the time that passed',
    (stage) => {
      const { f, runs } = caseStage(stage);
      expect(f.total).toBeLessThanOrEqual(run.wall);
      // Per interval too: at most one run straddles an interval's start, and it is at most the interval's Max.
      let previous = run.started;
      for (const [at, total, max] of f.rows) {
        expect(total).toBeLessThanOrEqual((at - previous) * 1000 + max);
        previous = at;
      }
      // The load formed batches: most activations were decided in batches of 50 or more.
      const inLargeBatches = runs.filter((w) => w.BatchSize >= 50).reduce((n, w) => n + w.BatchSize, 0);
      expect(inLargeBatches).toBeGreaterThan(INVOCATIONS / 2);
      // Each warning names its batch's first activation, one of this load's.
      expect(runs.every((w) => w.CaseKeyValue.startsWith(`ACC-FIG-${provider}-`))).toBe(true);
    },
  );

  it('the HTTP callback runs per activation, at most FOLLOW_UP_CONCURRENCY at once', () => {
    const { f, runs } = caseStage(CaseCreationStage.HttpEndpoint);
    expect(runs.every((w) => w.BatchSize === 1 && w.Destination?.startsWith(callbackUrl))).toBe(true);
    expect(f.total).toBeLessThanOrEqual(run.wall * FOLLOW_UP_CONCURRENCY);
  });

  it.each(ARCHIVER_STAGES)(
    'Archiver stage %s: counted once per run, its time within the time that passed',
    async (stage) => {
      const f = figuresOf(run.archiverRows, stage);
      const runs = run.archiverWarnings.filter((w) => w.StageId === Number(stage));
      expect(f.invokeCount).toBe(INVOCATIONS);
      expect(runs.reduce((n, w) => n + w.BatchSize, 0)).toBe(INVOCATIONS);
      expect(f.total).toBeLessThanOrEqual(run.wall);
      const h = await histogram(promPort, ARCHIVER_HISTOGRAM, ARCHIVER_STAGE_NAMES[stage]);
      const b = run.histogramsBefore.get(-stage)!;
      expect(h.count - b.count).toBe(runs.length);
      expect(Math.abs((h.sum - b.sum) * 1000 - f.total)).toBeLessThanOrEqual(f.rows.length);
      if (stage === ArchiverStage.BulkCopyArchiveBuffer) {
        // A bulk copy works on a batch: no entry guid, and far fewer runs than invocations.
        expect(runs.every((w) => w.EntityAnalysisModelInstanceEntryGuid === null)).toBe(true);
        expect(runs.length).toBeLessThan(INVOCATIONS / 10);
      } else expect(runs).toHaveLength(INVOCATIONS);
    },
  );
});

interface LoadRun {
  started: number;
  wall: number;
  caseRows: CaseCreationStagePerformanceCounter[];
  caseWarnings: CaseCreationWarning[];
  archiverRows: ArchiverStagePerformanceCounter[];
  archiverWarnings: ArchiverWarning[];
  /** Case creation stages by their id, Archiver stages by minus theirs. */
  histogramsBefore: Map<number, { sum: number; count: number }>;
}

/**
 * A model whose one rule raises a case with an HTTP callback for every invocation; INVOCATIONS invocations from
 * a closed loop of CONNECTIONS callers, each a new account; then everything drained, flushed and read back.
 */
async function batchingLoad(
  t: TestApp,
  actor: Actor,
  provider: string,
  promPort: number,
  callbackUrl: string,
): Promise<LoadRun> {
  const ds = t.app.get(DataSource);
  const { model } = await createEngineModel(t.app, actor, {
    statuses: [
      {
        name: 'Called',
        priority: 1,
        enableHttpEndpoint: true,
        httpEndpointUrl: `${callbackUrl}/case?a={AccountId}`,
      },
    ],
    rules: [{ condition: true, status: 0 }],
  });
  const rollups = t.app.get(StageRollupService);
  const archiver = t.app.get(ArchiverService);
  await archiver.drain();
  await rollups.flush();
  const lastId = async (table: new () => ObjectLiteral) =>
    Number(
      (
        await ds
          .getRepository(table)
          .createQueryBuilder('r')
          .select('MAX(r.Id)', 'id')
          .getRawOne<{ id: unknown }>()
      )?.id ?? 0,
    );
  const marks = await Promise.all(
    [
      CaseCreationStagePerformanceCounter,
      CaseCreationWarning,
      ArchiverStagePerformanceCounter,
      ArchiverWarning,
    ].map(lastId),
  );
  const histogramsBefore = new Map<number, { sum: number; count: number }>();
  for (const s of CASE_STAGES)
    histogramsBefore.set(s, await histogram(promPort, CASE_HISTOGRAM, CASE_CREATION_STAGE_NAMES[s]));
  for (const s of ARCHIVER_STAGES)
    histogramsBefore.set(-s, await histogram(promPort, ARCHIVER_HISTOGRAM, ARCHIVER_STAGE_NAMES[s]));

  const started = Date.now();
  let next = 0;
  const invoker = t.app.get(InvokeService);
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      for (let i = next++; i < INVOCATIONS; i = next++)
        await invoker.invoke(actor, model.guid, transaction(`ACC-FIG-${provider}-${i}`, i));
    }),
  );
  await archiver.drain();
  await rollups.flush();
  const wall = (Date.now() - started) * 1000;
  await t.app.get(CaptureFlusher).flush();

  const after = (mark: number) => ({ Id: MoreThan(mark) });
  const ofModel = (mark: number) => ({ ...after(mark), EntityAnalysisModelGuid: model.guid });
  return {
    started,
    wall,
    caseRows: await ds
      .getRepository(CaseCreationStagePerformanceCounter)
      .find({ where: after(marks[0]), order: { Id: 'ASC' } }),
    caseWarnings: await ds.getRepository(CaseCreationWarning).find({ where: after(marks[1]) }),
    archiverRows: await ds.getRepository(ArchiverStagePerformanceCounter).find({ where: ofModel(marks[2]) }),
    archiverWarnings: await ds.getRepository(ArchiverWarning).find({ where: ofModel(marks[3]) }),
    histogramsBefore,
  };
}
