/* `npm run bench:invoke`: invocations per second of the invoke pipeline with telemetry on and off, in the
 * same run, and the overhead; then the Archiver's bulk-copy rows per second on PostgreSQL (and SQLite).
 *
 * In-process: InvokeService.invoke() is called directly (no HTTP and no credential check: sign-in does not
 * exist on this branch). "Telemetry on" records every trace point into real OpenTelemetry SDK histograms
 * (two ways: the SDK's Histogram.record per value, and histograms pre-aggregated in place and exported
 * through the SDK reader as a MetricProducer) with SDK counters for the warnings; "off" binds a port that
 * does nothing. Rounds rotate the three modes; each figure is the median of its rounds. */
import { invokeOverHttp } from './invoke-http';
import 'reflect-metadata';
import { Test } from '@nestjs/testing';
import { metrics } from '@opentelemetry/api';
import {
  DataPointType,
  InMemoryMetricExporter,
  AggregationTemporality,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { loadSettings } from '@app/config';
import { Actor, Permission } from '@app/common';
import { dataSourceOptions, MIGRATIONS } from '@app/database';
import {
  ARCHIVER_STAGE_NAMES,
  ArchiverService,
  CASE_CREATION_STAGE_NAMES,
  ArchiverStage,
  ArchiverWarningCapture,
  CaseCreationStage,
  CaseCreationWarningCapture,
  demoTransaction,
  InvokeService,
  InvokeStage,
  ModelInvokeWarningCapture,
  ModelService,
  NullPipelineTelemetry,
  PipelineTelemetry,
  PreAggregatedHistograms,
  StageRollupService,
} from '@app/engine';
import { ArchiveRepository, ArchiveRow } from '../libs/engine/src/archiver/archive.repository';
import { ALL_ENTITIES } from '../apps/server/src/entities';
import { AppModule } from '../apps/server/src/app.module';
import { landlordActor } from '../test/factories/identity.factory';
import { createSqliteDirectory } from '../test/support/databases';
import { startPostgresServer } from '../test/support/postgres-server';

const ROUND_INVOCATIONS = Number(process.env.BENCH_ROUND ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const CONCURRENCY = 16;
const BULK_ROWS = Number(process.env.BENCH_BULK_ROWS ?? 100_000);

type HistogramSink = (instrument: string, stage: string, ms: number) => void;

/** A histogram sink that calls the SDK's Histogram.record for every value. */
function sdkHistograms(provider: MeterProvider): HistogramSink {
  const meter = provider.getMeter('service.engine');
  const byName = new Map(
    [
      'service.engine.stage.duration',
      'service.engine.archiver.stage.duration',
      'service.engine.casecreation.stage.duration',
    ].map((n) => [n, meter.createHistogram(n, { unit: 'ms' })]),
  );
  const attributes = new Map<string, { stage: string }>();
  return (instrument, stage, ms) => {
    let a = attributes.get(stage);
    if (!a) attributes.set(stage, (a = { stage }));
    byName.get(instrument)?.record(ms, a);
  };
}

/** The port backed by OpenTelemetry: SDK counters for the warnings, and the given histogram sink. */
class OtelPipelineTelemetry extends PipelineTelemetry {
  private readonly meter;
  private readonly logsWarn;
  private readonly archiverWarn;
  private readonly caseWarn;
  readonly warnings: unknown[] = [];

  constructor(
    provider: MeterProvider,
    private readonly histogram: HistogramSink,
    /** The invoke histogram's hot path: one recorder per trace point, bound once when available. */
    private readonly invokeRecorders?: Record<InvokeStage, (ms: number) => void>,
  ) {
    super();
    this.meter = provider.getMeter('service.engine');
    this.logsWarn = this.meter.createCounter('service.engine.logs.warn.count');
    this.archiverWarn = this.meter.createCounter('service.engine.archiver.warn.count');
    this.caseWarn = this.meter.createCounter('service.engine.casecreation.warn.count');
  }
  private keep(w: unknown): void {
    if (this.warnings.length < 20_000) this.warnings.push(w);
  }
  invokeTracePoint(stage: InvokeStage, micros: number): void {
    if (this.invokeRecorders) this.invokeRecorders[stage](micros / 1000);
    else this.histogram('service.engine.stage.duration', stage, micros / 1000);
  }
  modelInvokeWarning(w: ModelInvokeWarningCapture): void {
    this.keep(w);
    this.logsWarn.add(1, { stage: w.message });
  }
  archiverStage(stage: ArchiverStage, micros: number): void {
    this.histogram('service.engine.archiver.stage.duration', ARCHIVER_STAGE_NAMES[stage], micros / 1000);
  }
  archiverWarning(w: ArchiverWarningCapture): void {
    this.keep(w);
    this.archiverWarn.add(1, { stage: w.stage });
  }
  caseCreationStage(stage: CaseCreationStage, micros: number): void {
    this.histogram(
      'service.engine.casecreation.stage.duration',
      CASE_CREATION_STAGE_NAMES[stage],
      micros / 1000,
    );
  }
  caseCreationWarning(w: CaseCreationWarningCapture): void {
    this.keep(w);
    this.caseWarn.add(1, { stage: w.stage });
  }
  backgroundFailure(): void {}
}

/** Swapped between rounds; one virtual call either way, so the switch itself costs both sides alike. */
class SwitchableTelemetry extends PipelineTelemetry {
  constructor(public target: PipelineTelemetry) {
    super();
  }
  invokeTracePoint(stage: InvokeStage, micros: number): void {
    this.target.invokeTracePoint(stage, micros);
  }
  modelInvokeWarning(w: ModelInvokeWarningCapture): void {
    this.target.modelInvokeWarning(w);
  }
  archiverStage(stage: ArchiverStage, micros: number, model: string | null): void {
    this.target.archiverStage(stage, micros, model);
  }
  archiverWarning(w: ArchiverWarningCapture): void {
    this.target.archiverWarning(w);
  }
  caseCreationStage(stage: CaseCreationStage, micros: number): void {
    this.target.caseCreationStage(stage, micros);
  }
  caseCreationWarning(w: CaseCreationWarningCapture): void {
    this.target.caseCreationWarning(w);
  }
  backgroundFailure(p: 'archiver' | 'caseCreation', stage: number): void {
    this.target.backgroundFailure(p, stage);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function invokeBench(): Promise<void> {
  const settings = loadSettings({
    DataDirectory: createSqliteDirectory(),
    JwtKey: 'bench-jwt-key-0123456789abcdefghijklmnopqrstuvwxyz',
    ApiHmacKey: 'bench-api-hmac-key-0123456789abcdefghijklmnopqrstuvwxyz',
    BootstrapAdministratorPassword: 'Bench-Password-123!',
    LogLevel: 'silent',
    ArchiverQueueCapacity: String(ROUND_INVOCATIONS + CONCURRENCY),
  });
  const folded = new PreAggregatedHistograms({
    'service.engine.stage.duration': 'ms',
    'service.engine.archiver.stage.duration': 'ms',
    'service.engine.casecreation.stage.duration': 'ms',
  });
  const reader = new PeriodicExportingMetricReader({
    exporter: new InMemoryMetricExporter(AggregationTemporality.DELTA),
    exportIntervalMillis: 3_600_000,
    metricProducers: [folded],
  });
  const provider = new MeterProvider({ readers: [reader] });
  metrics.setGlobalMeterProvider(provider);
  const modes = {
    off: new NullPipelineTelemetry(),
    'on, pre-aggregated': new OtelPipelineTelemetry(
      provider,
      (i, s, ms) => folded.record(i, s, ms),
      Object.fromEntries(
        Object.values(InvokeStage).map((stage) => [
          stage,
          folded.bind('service.engine.stage.duration', stage),
        ]),
      ) as Record<InvokeStage, (ms: number) => void>,
    ),
    'on, SDK record': new OtelPipelineTelemetry(provider, sdkHistograms(provider)),
  };
  type Mode = keyof typeof modes;
  const order: Mode[] = ['off', 'on, pre-aggregated', 'on, SDK record'];
  const telemetry = new SwitchableTelemetry(modes.off);
  const moduleRef = await Test.createTestingModule({ imports: [AppModule.forRoot(settings)] })
    .overrideProvider(PipelineTelemetry)
    .useValue(telemetry)
    .compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  try {
    const landlord: Actor = { ...(await landlordActor(app)), permissions: new Set([Permission.Invoke]) };
    // A model like the demo one, with two rules that activate but raise no case, so the rounds measure the
    // invoke path and the Archiver, not case creation round trips.
    const models = app.get(ModelService);
    const model = await models.create(landlord, {
      name: 'Bench',
      logsWarnThresholdMilliseconds: 5,
      entryXPath: '$.transactionId',
      referenceDateXPath: '$.occurred',
    });
    for (const [name, xPath, dataType] of [
      ['AccountId', '$.account.id', 'String'],
      ['Email', '$.account.email', 'String'],
      ['Amount', '$.amount', 'Float'],
      ['Currency', '$.currency', 'String'],
      ['Country', '$.country', 'String'],
    ] as const)
      await models.createXPath(landlord, model.guid, {
        name,
        xPath,
        dataType,
        required: name === 'AccountId',
      });
    await models.createRule(landlord, model.guid, {
      name: 'Large',
      condition: { '>': [{ var: 'Amount' }, 5000] },
    });
    await models.createRule(landlord, model.guid, {
      name: 'Abroad',
      condition: { and: [{ '>': [{ var: 'Amount' }, 9000] }, { '!=': [{ var: 'Country' }, 'NL'] }] },
    });
    const invoker = app.get(InvokeService);
    const archiver = app.get(ArchiverService);
    const bodies = Array.from({ length: 1000 }, (_, i) => demoTransaction(i));

    // One round: ROUND_INVOCATIONS invocations by CONCURRENCY callers while the Archiver holds (so the round
    // times the request path only); the Archiver then drains untimed before the next round.
    // Wall clock and this process's CPU time: on a machine shared with other work the CPU-time figure is the
    // steadier one (other processes stretch the wall clock, not our CPU seconds).
    const round = async (): Promise<{ wall: number; cpu: number }> => {
      archiver.pause();
      let next = 0;
      const start = process.hrtime.bigint();
      const cpuStart = process.cpuUsage();
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < ROUND_INVOCATIONS) {
            const i = next++;
            await invoker.invoke(landlord, model.guid, bodies[i % bodies.length]);
          }
        }),
      );
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const cpu = process.cpuUsage(cpuStart);
      const cpuSeconds = (cpu.user + cpu.system) / 1e6;
      archiver.resume();
      await archiver.drain();
      global.gc?.(); // each round starts from a collected heap (node --expose-gc)
      return { wall: ROUND_INVOCATIONS / seconds, cpu: ROUND_INVOCATIONS / cpuSeconds };
    };

    telemetry.target = modes['on, pre-aggregated'];
    await round(); // warm-up
    await reader.collect(); // start the measured interval empty
    const results: Record<Mode, number[]> = { off: [], 'on, pre-aggregated': [], 'on, SDK record': [] };
    const cpuResults: Record<Mode, number[]> = { off: [], 'on, pre-aggregated': [], 'on, SDK record': [] };
    let preAggregatedInvocations = 0;
    for (let r = 0; r < ROUNDS; r++) {
      // Rotated order (Latin square) so no mode always runs first or last.
      const mode = order[(r + Math.floor(r / order.length)) % order.length];
      telemetry.target = modes[mode];
      const { wall, cpu } = await round();
      results[mode].push(wall);
      cpuResults[mode].push(cpu);
      if (mode === 'on, pre-aggregated') preAggregatedInvocations += ROUND_INVOCATIONS;
    }
    const wall = (mode: Mode) => median(results[mode]);
    const cpu = (mode: Mode) => median(cpuResults[mode]);
    const list = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
    const pct = (f: (m: Mode) => number, mode: Mode) => (((f('off') - f(mode)) / f('off')) * 100).toFixed(2);
    console.log(
      'Invoke pipeline: in-process InvokeService.invoke() (no HTTP, no auth: sign-in is not on this branch)',
    );
    console.log(
      `  SQLite; ${ROUNDS} rounds of ${ROUND_INVOCATIONS} invocations by ${CONCURRENCY} concurrent callers; the Archiver drains between rounds, untimed`,
    );
    console.log(
      '  medians per mode: invocations per wall-clock second | per CPU second of this process  [rounds, wall clock]',
    );
    for (const mode of order)
      console.log(
        `  telemetry ${mode.padEnd(20)} ${wall(mode).toFixed(0).padStart(7)}/s wall | ${cpu(mode).toFixed(0).padStart(7)}/s CPU  [${list(results[mode])}]`,
      );
    for (const mode of ['on, pre-aggregated', 'on, SDK record'] as const)
      console.log(
        `  overhead ${mode.padEnd(20)} wall ${pct(wall, mode).padStart(6)} %   CPU ${pct(cpu, mode).padStart(6)} %${mode === 'on, pre-aggregated' ? '   (target under 3 %)' : ''}`,
      );

    const collected = await reader.collect();
    const stagePoints = collected.resourceMetrics.scopeMetrics
      .flatMap((sm) => sm.metrics)
      .filter(
        (m) =>
          m.descriptor.name === 'service.engine.stage.duration' &&
          m.dataPointType === DataPointType.HISTOGRAM,
      )
      .flatMap((m) => m.dataPoints as { value: { count: number } }[]);
    const exportedCount = stagePoints.reduce((n, p) => n + p.value.count, 0);
    console.log(
      `  check: the SDK reader exported ${exportedCount} service.engine.stage.duration values (all modes' SDK records + ${preAggregatedInvocations * 5} pre-aggregated)`,
    );
    // The same overhead taken apart: the port's own cost for one invocation's five trace points, measured
    // directly, against the CPU cost of one invocation with telemetry off.
    const points = Object.values(InvokeStage);
    for (const mode of ['on, pre-aggregated', 'on, SDK record'] as const) {
      const port = modes[mode];
      const n = 200_000;
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < n; i++) for (const p of points) port.invokeTracePoint(p, (i % 50) + 0.5); // µs, as trace gaps are
      const perInvocation = Number(process.hrtime.bigint() - t0) / n / 1000;
      const invocation = 1e6 / cpu('off');
      console.log(
        `  port cost ${mode.padEnd(20)} ${perInvocation.toFixed(2)} µs per invocation (5 trace points) = ${((perInvocation / invocation) * 100).toFixed(2)} % of one invocation's ${invocation.toFixed(1)} µs CPU`,
      );
    }
    await app.get(StageRollupService).flush();
  } finally {
    await app.close();
    await provider.shutdown();
  }
}

function archiveRows(n: number, offset: number): ArchiveRow[] {
  const now = new Date();
  return Array.from({ length: n }, (_, i) => {
    const body = demoTransaction(offset + i);
    return {
      EntityAnalysisModelInstanceEntryGuid: `00000000-0000-4000-8000-${String(offset + i).padStart(12, '0')}`,
      EntityAnalysisModelId: 1,
      EntryReference: String(body.transactionId),
      Json: JSON.stringify({ request: body, fields: body, activations: [] }),
      ReferenceDate: now,
      CreatedDate: now,
      UpdatedDate: null,
    };
  });
}

async function bulkCopyBench(provider: 'postgres' | 'sqlite', connectionString?: string): Promise<void> {
  const ds = new DataSource(
    dataSourceOptions(
      { provider, connectionString, dataDirectory: createSqliteDirectory() },
      ALL_ENTITIES,
      MIGRATIONS,
    ),
  );
  await ds.initialize();
  await ds.runMigrations({ transaction: 'each' });
  const repo = new ArchiveRepository(ds);
  try {
    for (const batch of [2_000, 20_000]) {
      const rows = archiveRows(BULK_ROWS, batch * 1_000_000);
      const start = process.hrtime.bigint();
      for (let i = 0; i < rows.length; i += batch) await repo.bulkInsert(rows.slice(i, i + batch));
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      console.log(
        `  ${provider.padEnd(8)} batches of ${String(batch).padStart(6)}: ${(rows.length / seconds).toFixed(0)} rows/s (${rows.length} rows, ${repo.rowsPerStatement} rows per INSERT, one transaction per batch)`,
      );
    }
  } finally {
    await ds.destroy();
  }
}

async function main(): Promise<void> {
  await invokeBench();
  await invokeOverHttp(Number(process.env.BENCH_SECONDS ?? 8));
  console.log('Archiver BulkCopyArchiveBuffer (multi-row INSERT chunks, ~600-byte JSON payloads)');
  const pg = process.env.DATABASE_URL ? undefined : await startPostgresServer();
  try {
    const admin = process.env.DATABASE_URL ?? pg?.url ?? '';
    const client = new Client({ connectionString: admin });
    await client.connect();
    const name = `bench_invoke_${process.pid}`;
    await client.query(`DROP DATABASE IF EXISTS "${name}"`);
    await client.query(`CREATE DATABASE "${name}"`);
    await client.end();
    const url = new URL(admin);
    url.pathname = `/${name}`;
    await bulkCopyBench('postgres', url.toString());
  } finally {
    pg?.stop();
  }
  await bulkCopyBench('sqlite');
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
