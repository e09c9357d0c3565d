import { DataSource } from 'typeorm';
import {
  CAPTURE_QUEUE_CAPACITY,
  CAPTURE_QUEUE_NAMES,
  CaptureFlusher,
  CaptureQueueId,
  CaptureQueues,
  OPEN_TELEMETRY_SERIES_LIMIT,
  TelemetryRetention,
} from '@app/capture-queues';
import {
  ArchiverStage,
  CaseCreationStage,
  ENGINE_INSTRUMENTS,
  EngineMetrics,
  ServiceMeterProvider,
} from '@app/telemetry';
import { PipelineTelemetry } from '@app/engine';
import { redisUrl, TEST_PROVIDERS } from './support/databases';
import { startTestApp, TestApp } from './support/test-app';

const TABLES = [
  'ModelInvokeWarning',
  'CaseCreationWarning',
  'ArchiverWarning',
  'CacheSentinelEvent',
  'CacheConnectionEvent',
  'OpenTelemetryMetric',
  'CaptureQueueHealth',
];
const RETAINED = 50;

/** A timestamp as read back raw: a Date from pg, UTC text from SQLite. */
const asDate = (v: unknown): Date => (v instanceof Date ? v : new Date(`${String(v).replace(' ', 'T')}Z`));

interface HealthRow {
  QueueId: CaptureQueueId;
  QueueName: string;
  QueueDepth: number;
  DroppedCount: number;
  CreatedDate: string;
  Instance: string;
}

describe.each(TEST_PROVIDERS)('capture queues on %s', (provider) => {
  let t: TestApp;
  let ds: DataSource;
  let queues: CaptureQueues;
  let flusher: CaptureFlusher;

  const rows = async <T>(sql: string, params: unknown[] = []): Promise<T[]> => ds.query<T[]>(sql, params);
  const count = async (table: string, where = ''): Promise<number> =>
    Number((await rows<{ n: string | number }>(`SELECT COUNT(*) AS "n" FROM "${table}" ${where}`))[0].n);
  const health = async (): Promise<HealthRow[]> =>
    (
      await rows<HealthRow>(
        `SELECT "QueueId", "QueueName", "QueueDepth", "DroppedCount", "CreatedDate", "Instance" FROM "CaptureQueueHealth" ORDER BY "Id"`,
      )
    ).map((r) => ({ ...r, QueueDepth: Number(r.QueueDepth), DroppedCount: Number(r.DroppedCount) }));

  beforeAll(async () => {
    t = await startTestApp(provider, {
      // The tests flush explicitly; the timer must not interleave.
      CaptureQueueFlushIntervalMilliseconds: '3600000',
      TelemetryRetentionIntervalMilliseconds: '3600000',
      TelemetryRetentionRows: String(RETAINED),
      RedisConnectionString: redisUrl(),
      InstanceName: 'node-a',
    });
    ds = t.app.get(DataSource);
    queues = t.app.get(CaptureQueues);
    flusher = t.app.get(CaptureFlusher);
  });
  afterAll(() => t.close());

  it('records the cache client connection events in CacheConnectionEvent', async () => {
    // The client connects while the app starts; wait until it is ready.
    for (let i = 0; i < 100 && queues.cacheConnectionEvent.depth < 2; i++)
      await new Promise((r) => setTimeout(r, 20));
    await flusher.flush();
    const events = await rows<{
      EventName: string;
      Endpoint: string;
      Instance: string;
      OccurredDate: unknown;
    }>(
      `SELECT "EventName", "Endpoint", "Instance", "OccurredDate" FROM "CacheConnectionEvent" ORDER BY "Id"`,
    );
    expect(events.map((e) => e.EventName)).toEqual(expect.arrayContaining(['connect', 'ready']));
    const endpoint = new URL(redisUrl()).host;
    for (const e of events) {
      expect(e.Endpoint).toBe(endpoint);
      expect(e.Instance).toBe('node-a');
      expect(e.OccurredDate).toBeTruthy();
    }
  });

  describe('after the tables are emptied', () => {
    beforeEach(async () => {
      await flusher.flush();
      for (const table of TABLES) await ds.query(`DELETE FROM "${table}"`);
    });

    it('writes six CaptureQueueHealth rows at every flush, idle ones included', async () => {
      await flusher.flush();
      await flusher.flush();
      const h = await health();
      expect(h.map((r) => r.QueueId)).toEqual([1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6]);
      for (const r of h) {
        expect(r.QueueName).toBe(CAPTURE_QUEUE_NAMES[r.QueueId]);
        expect(r).toMatchObject({ QueueDepth: 0, DroppedCount: 0, Instance: 'node-a' });
      }
      // One consistent moment per flush.
      expect(new Set(h.slice(0, 6).map((r) => String(r.CreatedDate))).size).toBe(1);
    });

    it('drops and counts entries over capacity exactly, writes the rest in bulk, then trims to the newest rows', async () => {
      const over = 7;
      let accepted = 0;
      for (let i = 0; i < CAPTURE_QUEUE_CAPACITY + over; i++) {
        if (
          queues.enqueueArchiverWarning({
            entityAnalysisModelGuid: '00000000-0000-4000-8000-000000000001',
            entityAnalysisModelInstanceEntryGuid: null,
            stageId: ArchiverStage.BulkCopyArchiveBuffer,
            durationMicroseconds: i,
          })
        )
          accepted++;
      }
      expect(accepted).toBe(CAPTURE_QUEUE_CAPACITY);
      const report = await flusher.flush();
      expect(report.written[CaptureQueueId.ArchiverWarning]).toBe(CAPTURE_QUEUE_CAPACITY);
      expect(await count('ArchiverWarning')).toBe(CAPTURE_QUEUE_CAPACITY);
      let h = await health();
      expect(h.find((r) => r.QueueId === CaptureQueueId.ArchiverWarning)).toMatchObject({
        QueueDepth: 0,
        DroppedCount: over,
      });
      expect(
        h.filter((r) => r.QueueId !== CaptureQueueId.ArchiverWarning).every((r) => r.DroppedCount === 0),
      ).toBe(true);
      // DroppedCount is since the previous flush.
      await flusher.flush();
      h = await health();
      expect(h.slice(6).every((r) => r.DroppedCount === 0)).toBe(true);

      // Retention: the newest rows survive, in bounded batches.
      const maxId = Number(
        (await rows<{ m: string }>(`SELECT MAX("Id") AS "m" FROM "ArchiverWarning"`))[0].m,
      );
      // The two stage rollup grids are held to the same limit (registered by the engine module).
      const rollups = ['ArchiverStagePerformanceCounter', 'CaseCreationStagePerformanceCounter'] as const;
      for (const table of rollups) {
        const now = new Date();
        await ds.getRepository(table).insert(
          Array.from({ length: RETAINED + 7 }, (_, i) => ({
            ...(table === 'ArchiverStagePerformanceCounter'
              ? { EntityAnalysisModelGuid: '11111111-1111-4111-8111-111111111111' }
              : {}),
            StageId: 1,
            StageName: `stage-${i}`,
            TotalMicroseconds: i,
            MinMicroseconds: i,
            MaxMicroseconds: i,
            InvokeCount: 1,
            CreatedDate: now,
            Instance: 'node-a',
          })),
        );
      }
      await t.app.get(TelemetryRetention).trimAll();
      for (const table of rollups) {
        expect(await count(table)).toBe(RETAINED);
        // the newest survive
        expect(await count(table, `WHERE "StageName" = 'stage-${RETAINED + 6}'`)).toBe(1);
        expect(await count(table, `WHERE "StageName" = 'stage-6'`)).toBe(0);
      }
      expect(await count('ArchiverWarning')).toBe(RETAINED);
      expect(await count('ArchiverWarning', `WHERE "Id" > ${maxId - RETAINED}`)).toBe(RETAINED);
      expect(() => t.app.get(TelemetryRetention).register('UserLogin')).toThrow(/never trimmed/);
    });

    /** Three model-invoke warnings, one of each other kind, and a few instrument values. */
    const recordWarnings = (occurred: Date) => {
      const recorder = t.app.get(PipelineTelemetry);
      const engine = t.app.get(EngineMetrics);
      for (let i = 0; i < 3; i++) {
        recorder.modelInvokeWarning({
          entityAnalysisModelGuid: '11111111-1111-4111-8111-111111111111',
          entityAnalysisModelName: 'Demo model',
          entityAnalysisModelInstanceEntryGuid: `22222222-2222-4222-8222-22222222222${i}`,
          message: 'ExtractFields',
          elapsedMicroseconds: 1500 + i,
          sinceLastEntryMicroseconds: 900,
          occurredDate: occurred,
        });
      }
      recorder.archiverWarning({
        entityAnalysisModelGuid: '11111111-1111-4111-8111-111111111111',
        entityAnalysisModelInstanceEntryGuid: '33333333-3333-4333-8333-333333333333',
        stageId: ArchiverStage.RdbmsArchiveWrite,
        durationMicroseconds: 12_345_678,
      });
      recorder.caseCreationWarning({
        caseWorkflowGuid: '44444444-4444-4444-8444-444444444444',
        caseWorkflowName: 'Fraud',
        caseKey: 'AccountId',
        caseKeyValue: "O'Brien\u0000\r\n",
        stageId: CaseCreationStage.HttpEndpoint,
        durationMicroseconds: 11_000_000,
        destination: 'https://callback.example/hook',
      });
      engine.archiverStageDuration(ArchiverStage.BuildArchiveJson, 3);
      engine.archiverStageDuration(ArchiverStage.BuildArchiveJson, 30);
      engine.invokeStageDuration('Parse', 0.2);
    };

    it('records warnings with one call that also counts them, and folds the instruments into OpenTelemetryMetric', async () => {
      const occurred = new Date('2026-01-02T03:04:05.678Z');
      recordWarnings(occurred);
      await flusher.flush();

      const invoke = await rows<Record<string, unknown>>(`SELECT * FROM "ModelInvokeWarning" ORDER BY "Id"`);
      expect(invoke).toHaveLength(3);
      expect(invoke[0]).toMatchObject({
        EntityAnalysisModelGuid: '11111111-1111-4111-8111-111111111111',
        EntityAnalysisModelName: 'Demo model',
        EntityAnalysisModelInstanceEntryGuid: '22222222-2222-4222-8222-222222222220',
        Message: 'ExtractFields',
        Instance: 'node-a',
      });
      expect(Number(invoke[2].ElapsedMicroseconds)).toBe(1502);
      expect(asDate(invoke[0].OccurredDate).toISOString()).toBe(occurred.toISOString());
      const archiver = await rows<Record<string, unknown>>(`SELECT * FROM "ArchiverWarning"`);
      expect(archiver).toHaveLength(1);
      expect(archiver[0]).toMatchObject({ StageId: ArchiverStage.RdbmsArchiveWrite });
      expect(Number(archiver[0].DurationMicroseconds)).toBe(12_345_678);
      const cases = await rows<Record<string, unknown>>(`SELECT * FROM "CaseCreationWarning"`);
      expect(cases[0]).toMatchObject({
        CaseWorkflowName: 'Fraud',
        CaseKey: 'AccountId',
        CaseKeyValue: "O'Brien\uFFFD\uFFFD\uFFFD",
        StageId: CaseCreationStage.HttpEndpoint,
        Destination: 'https://callback.example/hook',
      });

      const metrics = await rows<{
        InstrumentName: string;
        Attributes: string;
        Count: string;
        Sum: number;
        Buckets: string | null;
      }>(`SELECT "InstrumentName", "Attributes", "Count", "Sum", "Buckets" FROM "OpenTelemetryMetric"`);
      const metric = (name: string, attributes: object) =>
        metrics.find((m) => m.InstrumentName === name && m.Attributes === JSON.stringify(attributes));
      expect(Number(metric(ENGINE_INSTRUMENTS.logsWarnCount, { stage: 'ExtractFields' })?.Sum)).toBe(3);
      expect(Number(metric(ENGINE_INSTRUMENTS.archiverWarnCount, { stage: 'RdbmsArchiveWrite' })?.Sum)).toBe(
        1,
      );
      expect(Number(metric(ENGINE_INSTRUMENTS.caseCreationWarnCount, { stage: 'HttpEndpoint' })?.Sum)).toBe(
        1,
      );
      const histogram = metric(ENGINE_INSTRUMENTS.archiverStageDuration, { stage: 'BuildArchiveJson' });
      expect(Number(histogram?.Count)).toBe(2);
      expect(Number(histogram?.Sum)).toBe(33);
      const buckets = JSON.parse(histogram?.Buckets ?? 'null') as { boundaries: number[]; counts: number[] };
      expect(buckets.counts.reduce((a, b) => a + b, 0)).toBe(2);
      expect(buckets.counts).toHaveLength(buckets.boundaries.length + 1);
      expect(Number(metric(ENGINE_INSTRUMENTS.invokeStageDuration, { stage: 'Parse' })?.Count)).toBe(1);
      // Delta: the next flush does not repeat them (a gauge, such as the database's size, has a value every interval).
      const sums = `WHERE "InstrumentType" <> 'gauge'`;
      const folded = await count('OpenTelemetryMetric', sums);
      await flusher.flush();
      expect(await count('OpenTelemetryMetric', sums)).toBe(folded);
    });

    if (provider === 'postgres') {
      // SQLite does not enforce varchar lengths, so only PostgreSQL can refuse this row.
      it('isolates a row the database refuses: the others are written, that one dropped and counted', async () => {
        const entry = (message: string) => ({
          EntityAnalysisModelGuid: '11111111-1111-4111-8111-111111111111',
          EntityAnalysisModelName: 'm',
          EntityAnalysisModelInstanceEntryGuid: '22222222-2222-4222-8222-222222222222',
          Message: message,
          ElapsedMicroseconds: 1,
          SinceLastEntryMicroseconds: 1,
          OccurredDate: new Date(),
          CreatedDate: new Date(),
        });
        // Straight into the ring, past the truncation the enqueue methods apply.
        for (let i = 0; i < 10; i++)
          queues.modelInvokeWarning.enqueue(entry(i === 4 ? 'x'.repeat(5000) : `ok-${i}`));
        const report = await flusher.flush();
        expect(report).toMatchObject({ refused: 1, deferred: false });
        expect(await count('ModelInvokeWarning')).toBe(9);
        expect(
          (await health()).find((r) => r.QueueId === CaptureQueueId.ModelInvokeWarning)?.DroppedCount,
        ).toBe(1);
      });
    }

    it('refuses NaN and ±Infinity in a numeric column as bad rows: the others are written, those dropped and counted', async () => {
      const metric = (Sum: number) => ({
        InstrumentName: 'test.finite',
        InstrumentType: 'counter',
        Unit: '1',
        Attributes: '{}',
        Count: 1,
        Sum,
        Min: null,
        Max: null,
        Buckets: null,
        IntervalStartDate: new Date(Date.now() - 60_000),
        IntervalEndDate: new Date(),
        CreatedDate: new Date(),
      });
      for (const sum of [1, NaN, Infinity, 2, -Infinity]) queues.openTelemetryMetric.enqueue(metric(sum));
      const report = await flusher.flush();
      expect(report).toMatchObject({ refused: 3, deferred: false });
      const written = await rows<{ Sum: number | string }>(
        `SELECT "Sum" FROM "OpenTelemetryMetric" WHERE "InstrumentName" = 'test.finite' ORDER BY "Sum"`,
      );
      expect(written.map((r) => Number(r.Sum))).toEqual([1, 2]);
      expect(
        (await health()).find((r) => r.QueueId === CaptureQueueId.OpenTelemetryMetric)?.DroppedCount,
      ).toBe(3);
    });

    it('folds at most 10000 series per interval: the 10001st is dropped and counted', async () => {
      const counter = t.app
        .get(ServiceMeterProvider)
        .provider.getMeter('series-test')
        .createCounter('test.series');
      // the series every interval has anyway (the gauges: the database's size)
      let before = await count('OpenTelemetryMetric');
      await flusher.flush();
      const everyInterval = (await count('OpenTelemetryMetric')) - before;
      for (let i = 0; i <= OPEN_TELEMETRY_SERIES_LIMIT; i++) counter.add(1, { i });
      counter.add(1, { i: 0 }); // an existing series still folds
      before = await count('OpenTelemetryMetric');
      await flusher.flush();
      // the interval folded exactly the limit; test.series came first, the rest were dropped, every one counted
      expect((await count('OpenTelemetryMetric')) - before).toBe(OPEN_TELEMETRY_SERIES_LIMIT);
      expect(await count('OpenTelemetryMetric', `WHERE "InstrumentName" = 'test.series'`)).toBe(
        OPEN_TELEMETRY_SERIES_LIMIT,
      );
      const last = (await health()).filter((r) => r.QueueId === CaptureQueueId.OpenTelemetryMetric).pop();
      expect(last).toMatchObject({
        QueueDepth: 0,
        DroppedCount: 1 + everyInterval,
      });
    });
  });
});
