import { Logger } from '@nestjs/common';
import { loadSettings } from '@app/config';
import { Actor } from '@app/access';
import { ManualClock } from '@app/runtime';
import { ArchiveRepository } from './archiver/archive.repository';
import { ArchiverService } from './archiver/archiver.service';
import { CaseActivation, CaseCreationService } from './case-creation/case-creation.service';
import type { CaseNotifier } from './case-creation/case-notifier';
import type { CaseRepository, CaseUpsert } from './case-creation/case.repository';
import type { LiveStatusCache } from './case-creation/live-status-cache';
import { FieldDataType } from './entities';
import { InvokeAdmission } from './invoke/invoke-admission';
import { InvokeService } from './invoke/invoke.service';
import { ConfigurationRepository, type LiveStatus } from './model/configuration.repository';
import { ModelCatalog } from './model/model-catalog';
import { StageRollupRepository } from './rollups/stage-rollup.repository';
import { StageRollupService } from './rollups/stage-rollup.service';
import { InMemoryPipelineTelemetry } from './telemetry/pipeline-telemetry';
import { ArchiverStage, CaseCreationStage, InvokeStage } from './telemetry/stages';

/**
 * The engine's spec numbers stated as literals (spec: Limits): the one-minute stage rollup, and the warn
 * thresholds, where only a duration strictly above the threshold warns. The durations are the real code's,
 * measured with process.hrtime.bigint(); the test moves that clock (Jest's fake hrtime) from inside the stage
 * being measured, so a stage takes exactly the time the test says and nothing else moves.
 */

const ONE_MINUTE = 60_000;
const TEN_SECONDS = 10_000;
/** One microsecond, in the milliseconds the fake clock advances by. */
const ONE_MICROSECOND_MS = 0.001;

type FakeTimers = Parameters<typeof jest.useFakeTimers>[0];

/** Everything but process.hrtime stays real (the pipelines' setImmediate and promises keep running). */
const ONLY_HRTIME: FakeTimers = {
  doNotFake: [
    'Date',
    'nextTick',
    'performance',
    'queueMicrotask',
    'setImmediate',
    'clearImmediate',
    'setInterval',
    'clearInterval',
    'setTimeout',
    'clearTimeout',
  ],
};
/** Only the interval timers are fake (setImmediate stays real so the test can let promises settle). */
const ONLY_TIMERS: FakeTimers = {
  doNotFake: [
    'Date',
    'hrtime',
    'nextTick',
    'performance',
    'queueMicrotask',
    'setImmediate',
    'clearImmediate',
  ],
};
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

beforeAll(() => Logger.overrideLogger(false));
afterEach(() => jest.useRealTimers());

describe('stage rollups every minute (spec: Limits — stage rollup interval roughly one minute)', () => {
  it('StageRollupIntervalMilliseconds defaults to 60000, and the rollup timer writes every 60000 ms', async () => {
    const settings = loadSettings({ InstanceName: 'node-1' });
    expect(settings.StageRollupIntervalMilliseconds).toBe(ONE_MINUTE);
    jest.useFakeTimers(ONLY_TIMERS);
    const writes: number[] = [];
    const repo = {
      insert: (archiver: unknown[]) => {
        writes.push(archiver.length);
        return Promise.resolve();
      },
    } as unknown as StageRollupRepository;
    const rollups = new StageRollupService(repo, new ManualClock(0), settings);
    rollups.onModuleInit();
    try {
      for (const minute of [1, 2]) {
        rollups.recordArchiver('m', ArchiverStage.BuildArchiveJson, 5);
        await jest.advanceTimersByTimeAsync(ONE_MINUTE - 1);
        await settle();
        expect(writes).toHaveLength(minute - 1);
        await jest.advanceTimersByTimeAsync(1);
        await settle();
        expect(writes).toEqual(Array.from({ length: minute }, () => 1));
      }
    } finally {
      rollups.onModuleDestroy();
    }
  });
});

/** An Archiver on the default settings, whose BuildArchiveJson and BulkCopyArchiveBuffer take these times. */
async function archive(times: { buildJsonMs: number; bulkCopyMs: number }) {
  const telemetry = new InMemoryPipelineTelemetry();
  const archiveRepository = {
    bulkInsert: () => {
      jest.advanceTimersByTime(times.bulkCopyMs);
      return Promise.resolve();
    },
  } as unknown as ArchiveRepository;
  const cases = { enqueue: () => undefined, idle: () => Promise.resolve() } as unknown as CaseCreationService;
  const rollups = { recordArchiver: () => undefined } as unknown as StageRollupService;
  const settings = loadSettings({ InstanceName: 'node-1' });
  const archiver = new ArchiverService(
    archiveRepository,
    cases,
    rollups,
    telemetry,
    new ManualClock(0),
    settings,
  );
  archiver.enqueue({
    modelId: 1,
    modelGuid: 'm',
    enableRdbmsArchive: true,
    entryGuid: 'e1',
    entryReference: null,
    referenceDate: new Date(0),
    // BuildArchiveJson is JSON.stringify of the payload: its toJSON is the stage's work.
    payload: {
      toJSON: () => {
        jest.advanceTimersByTime(times.buildJsonMs);
        return { amount: 1 };
      },
    },
    cases: [],
  });
  await archiver.drain();
  return telemetry;
}

describe('ArchiverWarning only strictly above ArchiverWarnThresholdMilliseconds (default 10 seconds)', () => {
  it('the default is 10000 ms', () => {
    expect(loadSettings({}).ArchiverWarnThresholdMilliseconds).toBe(TEN_SECONDS);
  });

  it.each([
    ['BuildArchiveJson', ArchiverStage.BuildArchiveJson, 'e1', 'buildJsonMs'],
    ['BulkCopyArchiveBuffer', ArchiverStage.BulkCopyArchiveBuffer, null, 'bulkCopyMs'],
  ] as const)(
    '%s: exactly 10000 ms raises none, 10000 ms and one microsecond raises one',
    async (_name, stage, entryGuid, slowStage) => {
      jest.useFakeTimers(ONLY_HRTIME);
      const atThreshold = await archive({ buildJsonMs: 0, bulkCopyMs: 0, [slowStage]: TEN_SECONDS });
      expect(atThreshold.archiverWarnings).toEqual([]);
      expect(atThreshold.counters['service.engine.archiver.warn.count']).toBe(0);

      const above = await archive({
        buildJsonMs: 0,
        bulkCopyMs: 0,
        [slowStage]: TEN_SECONDS + ONE_MICROSECOND_MS,
      });
      expect(above.archiverWarnings).toEqual([
        expect.objectContaining({
          stageId: stage,
          entityAnalysisModelGuid: 'm',
          entityAnalysisModelInstanceEntryGuid: entryGuid,
          durationMicroseconds: 10_000_001,
        }),
      ]);
      expect(above.counters['service.engine.archiver.warn.count']).toBe(1);
    },
  );
});

describe("ModelInvokeWarning only strictly above the Model's Logs: Warn Threshold Milliseconds", () => {
  const MODEL_GUID = '0195f0d2-0000-7000-8000-000000000001';
  const actor = { tenantId: 1 } as Actor;

  /** The invoke pipeline for a model whose threshold is 5 ms, its ExtractFields stage taking `ms`. */
  async function invokeTaking(ms: number) {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const telemetry = new InMemoryPipelineTelemetry();
    const configuration = {
      findModelByGuid: () =>
        Promise.resolve({
          Id: 1,
          Guid: MODEL_GUID,
          Name: 'Slow fields',
          TenantRegistryId: 1,
          Active: true,
          LogsWarnThresholdMilliseconds: 5,
          EnableRdbmsArchive: true,
          EntryXPath: null,
          ReferenceDateXPath: null,
        }),
      listXPaths: () =>
        Promise.resolve([
          { Name: 'Amount', XPath: '$.amount', DataTypeId: FieldDataType.Float, Required: true },
        ]),
      listRules: () => Promise.resolve([]),
      findWorkflowsByIds: () => Promise.resolve([]),
      findStatusesByIds: () => Promise.resolve([]),
    } as unknown as ConfigurationRepository;
    const archiver = { enqueue: () => undefined } as unknown as ArchiverService;
    const admission = { admit: () => undefined } as unknown as InvokeAdmission;
    const invoke = new InvokeService(
      new ModelCatalog(configuration, clock),
      archiver,
      admission,
      {} as ArchiveRepository,
      telemetry,
      clock,
      loadSettings({ InstanceName: 'node-1' }),
    );
    // ExtractFields reads $.amount: reading it is the stage's work.
    const body = {
      get amount(): number {
        jest.advanceTimersByTime(ms);
        return 12.5;
      },
    };
    await invoke.invoke(actor, MODEL_GUID, body);
    return telemetry;
  }

  it('a gap of exactly 5 ms raises none; 5 ms and one microsecond raises one, at that trace point', async () => {
    jest.useFakeTimers(ONLY_HRTIME);
    const atThreshold = await invokeTaking(5);
    expect(atThreshold.modelInvokeWarnings).toEqual([]);
    expect(atThreshold.counters['service.engine.logs.warn.count']).toBe(0);

    const above = await invokeTaking(5 + ONE_MICROSECOND_MS);
    expect(above.modelInvokeWarnings).toEqual([
      expect.objectContaining({
        entityAnalysisModelGuid: MODEL_GUID,
        message: InvokeStage.ExtractFields,
        sinceLastEntryMicroseconds: 5_001,
        elapsedMicroseconds: 5_001,
      }),
    ]);
    expect(above.counters['service.engine.logs.warn.count']).toBe(1);
  });
});

describe('CaseCreationWarning only strictly above CaseCreationWarnThresholdMilliseconds, once per run', () => {
  const status = { Id: 7, Guid: 's', Name: 'Open', Priority: 5, EnableNotification: false } as LiveStatus;
  const activation = (value: string): CaseActivation => ({
    caseWorkflow: { id: 1, guid: 'w', name: 'Fraud' },
    caseWorkflowStatusId: status.Id,
    caseKey: 'AccountId',
    caseKeyValue: value,
    entityAnalysisModelGuid: 'm',
    entityAnalysisModelInstanceEntryGuid: `e-${value}`,
    fields: {},
  });

  /** Case creation on the default settings, one batch of three, its look-up and upsert taking these times. */
  async function decideBatch(times: { lookupMs: number; persistMs: number }) {
    const telemetry = new InMemoryPipelineTelemetry();
    const runs: [number, number, number][] = [];
    const cases = {
      findOpen: () => {
        jest.advanceTimersByTime(times.lookupMs);
        return Promise.resolve([]);
      },
      upsert: (rows: CaseUpsert[]) => {
        jest.advanceTimersByTime(times.persistMs);
        return Promise.resolve(rows.map((r) => ({ ...r })));
      },
    } as unknown as CaseRepository;
    const statuses = {
      get: () => Promise.resolve(new Map([[status.Id, status]])),
    } as unknown as LiveStatusCache;
    const rollups = {
      recordCaseCreation: (stage: number, micros: number, items: number) => runs.push([stage, micros, items]),
    } as unknown as StageRollupService;
    const service = new CaseCreationService(
      cases,
      statuses,
      {} as CaseNotifier,
      rollups,
      telemetry,
      new ManualClock(0),
      loadSettings({ InstanceName: 'node-1' }),
    );
    // Queued in one turn: one batch.
    await Promise.all(['A-1', 'A-2', 'A-3'].map((v) => service.run(activation(v))));
    return { telemetry, runs };
  }

  it('the default is 10000 ms', () => {
    expect(loadSettings({}).CaseCreationWarnThresholdMilliseconds).toBe(TEN_SECONDS);
  });

  it('a batch of three: each stage recorded ONCE with its three activations; exactly 10000 ms raises none', async () => {
    jest.useFakeTimers(ONLY_HRTIME);
    const { telemetry, runs } = await decideBatch({ lookupMs: TEN_SECONDS, persistMs: 2 });
    expect(runs).toEqual([
      [CaseCreationStage.ExistingCasePriorityLookup, 10_000_000, 3],
      [CaseCreationStage.WorkflowStatusLookupAndPersist, 2_000, 3],
    ]);
    expect(telemetry.caseCreationWarnings).toEqual([]);
    expect(telemetry.histogramCounts.get('service.engine.casecreation.stage.duration:1')).toBe(1);
  });

  it('10000 ms and one microsecond raises ONE warning for the batch, naming its first activation and its size', async () => {
    jest.useFakeTimers(ONLY_HRTIME);
    const slow = TEN_SECONDS + ONE_MICROSECOND_MS;
    const { telemetry } = await decideBatch({ lookupMs: slow, persistMs: slow });
    expect(telemetry.caseCreationWarnings).toEqual(
      [CaseCreationStage.ExistingCasePriorityLookup, CaseCreationStage.WorkflowStatusLookupAndPersist].map(
        (stage) =>
          expect.objectContaining({
            stageId: stage,
            caseKeyValue: 'A-1',
            caseWorkflowGuid: 'w',
            durationMicroseconds: 10_000_001,
            batchSize: 3,
            destination: null,
          }),
      ),
    );
    expect(telemetry.counters['service.engine.casecreation.warn.count']).toBe(2);
  });
});
