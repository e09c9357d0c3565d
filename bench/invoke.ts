/* `npm run bench:invoke`: invocations per second of the invoke pipeline with telemetry on and off, in the
 * same run, and the overhead; then the same over HTTP (bench/invoke-http.ts), then the Archiver's bulk-copy
 * rows per second on PostgreSQL (and SQLite).
 *
 * In-process: InvokeService.invoke() is called directly (no HTTP, no credential check), in one app whose
 * PipelineTelemetry is switched between rounds:
 *   - off: a binding that does nothing;
 *   - on: the service's own binding (CapturePipelineTelemetry over the app's EngineMetrics and
 *     CaptureQueues: stage histograms folded in place, warnings through the capture queues and counters);
 *   - for comparison, the SDK's Histogram.record for every stage value (what the service did before).
 * Rounds rotate the three modes in blocks of three; the overhead is the median over blocks of the ratio within
 * a block (which cancels the machine's drift). Settings by environment: BENCH_ROUND (invocations per round),
 * BENCH_ROUNDS, BENCH_VERBOSE=1 (print every round), BENCH_PARTS (in-process, http, input, case-latency,
 * bulk-copy; bench/invoke-input.ts has the input and case-latency parts),
 * BENCH_SECONDS and BENCH_HTTP_ROUNDS (the HTTP part), BENCH_BULK_ROWS. */
import { invokeOverHttp } from './invoke-http';
import { caseLatencyBench, inputChecksBench } from './invoke-input';
import { NullPipelineTelemetry } from './null-pipeline-telemetry';
import { SwitchableTelemetry } from './switchable-telemetry';
import 'reflect-metadata';
import { Test } from '@nestjs/testing';
import type { Histogram } from '@opentelemetry/api';
import {
  AggregationTemporality,
  DataPointType,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type HistogramMetricData,
} from '@opentelemetry/sdk-metrics';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { loadSettings } from '@app/config';
import { Actor, Permission } from '@app/access';
import { dataSourceOptions, MIGRATIONS } from '@app/database';
import {
  ARCHIVER_STAGE_NAMES,
  ArchiverService,
  CASE_CREATION_STAGE_NAMES,
  ArchiverStage,
  ArchiverWarningCapture,
  CapturePipelineTelemetry,
  CaseCreationStage,
  CaseCreationWarningCapture,
  demoTransaction,
  InvokeService,
  InvokeStage,
  ModelInvokeWarningCapture,
  ModelService,
  PipelineTelemetry,
  StageRollupService,
} from '@app/engine';
import { CaptureQueues } from '@app/capture-queues';
import { EngineMetrics, ENGINE_INSTRUMENTS, FoldedHistograms } from '@app/telemetry';
import { ArchiveRepository, ArchiveRow } from '../libs/engine/src/archiver/archive.repository';
import { ALL_ENTITIES } from '../apps/server/src/entities';
import { AppModule } from '../apps/server/src/app.module';
import { landlordActor } from '../test/factories/identity.factory';
import { createSqliteDirectory } from '../test/support/databases';
import { startPostgresServer } from '../test/support/postgres-server';

const ROUND_INVOCATIONS = Number(process.env.BENCH_ROUND ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const CONCURRENCY = 16;
const BULK_ROWS = Number(process.env.BENCH_BULK_ROWS ?? 100_000);

/** The port through the SDK: Histogram.record per stage value, SDK counters for the warnings. */
class SdkPipelineTelemetry extends PipelineTelemetry {
  private readonly histograms;
  private readonly logsWarn;
  private readonly archiverWarn;
  private readonly caseWarn;
  private readonly attributes = new Map<string, { stage: string }>();
  readonly warnings: unknown[] = [];

  constructor(provider: MeterProvider) {
    super();
    const meter = provider.getMeter('service.engine');
    this.histograms = new Map<string, Histogram>(
      [
        ENGINE_INSTRUMENTS.invokeStageDuration,
        ENGINE_INSTRUMENTS.archiverStageDuration,
        ENGINE_INSTRUMENTS.caseCreationStageDuration,
      ].map((n) => [n, meter.createHistogram(n, { unit: 'ms' })]),
    );
    this.logsWarn = meter.createCounter(ENGINE_INSTRUMENTS.logsWarnCount);
    this.archiverWarn = meter.createCounter(ENGINE_INSTRUMENTS.archiverWarnCount);
    this.caseWarn = meter.createCounter(ENGINE_INSTRUMENTS.caseCreationWarnCount);
  }
  private record(instrument: string, stage: string, ms: number): void {
    let a = this.attributes.get(stage);
    if (!a) this.attributes.set(stage, (a = { stage }));
    this.histograms.get(instrument)?.record(ms, a);
  }
  private keep(w: unknown): void {
    if (this.warnings.length < 20_000) this.warnings.push(w);
  }
  invokeTracePoint(stage: InvokeStage, micros: number): void {
    this.record(ENGINE_INSTRUMENTS.invokeStageDuration, stage, micros / 1000);
  }
  modelInvokeWarning(w: ModelInvokeWarningCapture): void {
    this.keep(w);
    this.logsWarn.add(1, { stage: w.message });
  }
  archiverStage(stage: ArchiverStage, micros: number): void {
    this.record(ENGINE_INSTRUMENTS.archiverStageDuration, ARCHIVER_STAGE_NAMES[stage], micros / 1000);
  }
  archiverWarning(w: ArchiverWarningCapture): void {
    this.keep(w);
    this.archiverWarn.add(1, { stage: w.stageId });
  }
  caseCreationStage(stage: CaseCreationStage, micros: number): void {
    this.record(
      ENGINE_INSTRUMENTS.caseCreationStageDuration,
      CASE_CREATION_STAGE_NAMES[stage],
      micros / 1000,
    );
  }
  caseCreationWarning(w: CaseCreationWarningCapture): void {
    this.keep(w);
    this.caseWarn.add(1, { stage: w.stageId });
  }
  backgroundFailure(): void {}
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const ORDER = ['off', 'on (the service)', 'SDK record per value'] as const;
type Mode = (typeof ORDER)[number];
type ByMode = Record<Mode, number[]>;
type Round = () => Promise<{ wall: number; cpu: number }>;

/** The service's app (SQLite) with its PipelineTelemetry switchable, and the three modes to switch between. */
async function startInvokeApp(sdkProvider: MeterProvider) {
  const settings = loadSettings({
    DataDirectory: createSqliteDirectory(),
    JwtKey: 'bench-jwt-key-0123456789abcdefghijklmnopqrstuvwxyz',
    ApiHmacKey: 'bench-api-hmac-key-0123456789abcdefghijklmnopqrstuvwxyz',
    BootstrapAdministratorPassword: 'Bench-Password-123!',
    LogLevel: 'silent',
    ArchiverQueueCapacity: String(ROUND_INVOCATIONS + CONCURRENCY),
  });
  const telemetry = new SwitchableTelemetry(new NullPipelineTelemetry());
  const moduleRef = await Test.createTestingModule({ imports: [AppModule.forRoot(settings)] })
    .overrideProvider(PipelineTelemetry)
    .useValue(telemetry)
    .compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.init();
  const modes: Record<Mode, PipelineTelemetry> = {
    off: telemetry.target,
    'on (the service)': new CapturePipelineTelemetry(app.get(EngineMetrics), app.get(CaptureQueues)),
    'SDK record per value': new SdkPipelineTelemetry(sdkProvider),
  };
  return { app, telemetry, modes };
}

type InvokeApp = Awaited<ReturnType<typeof startInvokeApp>>['app'];

/**
 * A model like the demo one, with two rules that activate but raise no case, so the rounds measure the
 * invoke path and the Archiver, not case creation round trips. Returns its guid.
 */
async function createBenchModel(app: InvokeApp, landlord: Actor): Promise<string> {
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
  return model.guid;
}

/**
 * One round: ROUND_INVOCATIONS invocations by CONCURRENCY callers while the Archiver holds (so the round
 * times the request path only); the Archiver then drains untimed before the next round.
 * Wall clock and this process's CPU time: on a machine shared with other work the CPU-time figure is the
 * steadier one (other processes stretch the wall clock, not our CPU seconds).
 */
function roundRunner(app: InvokeApp, landlord: Actor, modelGuid: string): Round {
  const invoker = app.get(InvokeService);
  const archiver = app.get(ArchiverService);
  const bodies = Array.from({ length: 1000 }, (_, i) => demoTransaction(i));
  return async () => {
    archiver.pause();
    let next = 0;
    const start = process.hrtime.bigint();
    const cpuStart = process.cpuUsage();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < ROUND_INVOCATIONS) {
          const i = next++;
          await invoker.invoke(landlord, modelGuid, bodies[i % bodies.length]);
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
}

/** How many invoke stage values the service's folded histograms have counted so far. */
function invokeValueCounter(app: InvokeApp): () => Promise<number> {
  const folded = app.get(FoldedHistograms).cumulativeProducer();
  return async () =>
    (await folded.collect()).resourceMetrics.scopeMetrics
      .flatMap((sm) => sm.metrics)
      .filter(
        (m): m is HistogramMetricData =>
          m.descriptor.name === ENGINE_INSTRUMENTS.invokeStageDuration &&
          m.dataPointType === DataPointType.HISTOGRAM,
      )
      .flatMap((m) => m.dataPoints)
      .reduce((n, p) => n + p.value.count, 0);
}

/** ROUNDS rounds, the mode rotated; per mode the rates of its rounds, and the invocations with the service's telemetry. */
async function runRounds(
  telemetry: SwitchableTelemetry,
  modes: Record<Mode, PipelineTelemetry>,
  round: Round,
): Promise<{ results: ByMode; cpuResults: ByMode; serviceInvocations: number }> {
  const results: ByMode = { off: [], 'on (the service)': [], 'SDK record per value': [] };
  const cpuResults: ByMode = {
    off: [],
    'on (the service)': [],
    'SDK record per value': [],
  };
  let serviceInvocations = 0;
  for (let r = 0; r < ROUNDS; r++) {
    // Rotated order (Latin square) so no mode always runs first or last.
    const mode = ORDER[(r + Math.floor(r / ORDER.length)) % ORDER.length];
    telemetry.target = modes[mode];
    const { wall, cpu } = await round();
    if (process.env.BENCH_VERBOSE)
      console.log(`    round ${r} ${mode}: ${wall.toFixed(0)}/s wall, ${cpu.toFixed(0)}/s CPU`);
    results[mode].push(wall);
    cpuResults[mode].push(cpu);
    if (mode === 'on (the service)') serviceInvocations += ROUND_INVOCATIONS;
  }
  return { results, cpuResults, serviceInvocations };
}

function printRounds(results: ByMode, cpuResults: ByMode): void {
  const wall = (mode: Mode) => median(results[mode]);
  const cpu = (mode: Mode) => median(cpuResults[mode]);
  // Each block of three consecutive rounds runs every mode once; the ratio within a block cancels the
  // machine's drift, and the median over blocks is the headline overhead.
  const blocks = Math.floor(ROUNDS / ORDER.length);
  const overheads = (by: ByMode, mode: Mode) =>
    Array.from({ length: blocks }, (_, i) => (1 - by[mode][i] / by.off[i]) * 100).sort((x, y) => x - y);
  const summary = (by: ByMode, mode: Mode) => {
    const o = overheads(by, mode);
    return `${median(o).toFixed(2).padStart(6)} % (blocks ${o[0].toFixed(1)} … ${o[o.length - 1].toFixed(1)})`;
  };
  console.log('Invoke pipeline in process: InvokeService.invoke() (no HTTP, no credential check)');
  console.log(
    `  SQLite; ${ROUNDS} rounds of ${ROUND_INVOCATIONS} invocations by ${CONCURRENCY} concurrent callers, modes rotated in blocks of three; the Archiver drains between rounds, untimed`,
  );
  console.log('  medians of rounds: invocations per wall-clock second | per CPU second of this process');
  for (const mode of ORDER)
    console.log(
      `  telemetry ${mode.padEnd(22)} ${wall(mode).toFixed(0).padStart(7)}/s wall | ${cpu(mode).toFixed(0).padStart(7)}/s CPU`,
    );
  for (const mode of ['on (the service)', 'SDK record per value'] as const)
    console.log(
      `  overhead ${mode.padEnd(22)} CPU ${summary(cpuResults, mode)}   wall ${summary(results, mode)}${mode === 'on (the service)' ? '   (target under 3 %; median of blocks)' : ''}`,
    );
}

/**
 * The same overhead taken apart: the port's own cost for one invocation's five trace points, measured
 * directly, against the CPU cost of one invocation with telemetry off (`offCpuRate` invocations per CPU second).
 */
function printPortCosts(modes: Record<Mode, PipelineTelemetry>, offCpuRate: number): void {
  const points = Object.values(InvokeStage);
  for (const mode of ['on (the service)', 'SDK record per value'] as const) {
    const port = modes[mode];
    const n = 200_000;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) for (const p of points) port.invokeTracePoint(p, (i % 50) + 0.5); // µs, as trace gaps are
    const perInvocation = Number(process.hrtime.bigint() - t0) / n / 1000;
    const invocation = 1e6 / offCpuRate;
    console.log(
      `  port cost ${mode.padEnd(22)} ${perInvocation.toFixed(2)} µs per invocation (5 trace points) = ${((perInvocation / invocation) * 100).toFixed(2)} % of one invocation's ${invocation.toFixed(1)} µs CPU`,
    );
  }
}

async function invokeBench(): Promise<void> {
  // The comparison mode's own provider, with a DELTA reader like the capture reader.
  const sdkReader = new PeriodicExportingMetricReader({
    exporter: new InMemoryMetricExporter(AggregationTemporality.DELTA),
    exportIntervalMillis: 3_600_000,
  });
  const sdkProvider = new MeterProvider({ readers: [sdkReader] });
  const { app, telemetry, modes } = await startInvokeApp(sdkProvider);
  try {
    const landlord: Actor = { ...(await landlordActor(app)), permissions: new Set([Permission.Invoke]) };
    const round = roundRunner(app, landlord, await createBenchModel(app, landlord));
    const invokeValues = invokeValueCounter(app);
    telemetry.target = modes['on (the service)'];
    await round(); // warm-up
    const before = await invokeValues();
    const { results, cpuResults, serviceInvocations } = await runRounds(telemetry, modes, round);
    printRounds(results, cpuResults);
    const counted = (await invokeValues()) - before;
    console.log(
      `  check: the service's histogram counted ${counted} ${ENGINE_INSTRUMENTS.invokeStageDuration} values for ${serviceInvocations} invocations with telemetry on (5 trace points each: ${serviceInvocations * 5})`,
    );
    printPortCosts(modes, median(cpuResults.off));
    await app.get(StageRollupService).flush();
  } finally {
    await app.close();
    await sdkProvider.shutdown();
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

/** BENCH_PARTS picks parts (comma-separated: in-process, http, input, case-latency, bulk-copy); all by default. */
const PARTS = new Set(
  (process.env.BENCH_PARTS ?? 'in-process,http,input,case-latency,bulk-copy').split(',').map((p) => p.trim()),
);

async function main(): Promise<void> {
  if (PARTS.has('in-process')) await invokeBench();
  if (PARTS.has('http')) await invokeOverHttp(Number(process.env.BENCH_SECONDS ?? 4));
  if (PARTS.has('input')) inputChecksBench();
  if (PARTS.has('case-latency')) await caseLatencyBench();
  if (!PARTS.has('bulk-copy')) return;
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
