import type { Attributes, Counter, Meter } from '@opentelemetry/api';
import { FoldedHistograms } from './folded-histograms';
import {
  ARCHIVER_STAGE_NAMES,
  ARCHIVER_STAGES,
  ArchiverStage,
  CASE_CREATION_STAGE_NAMES,
  CASE_CREATION_STAGES,
  CaseCreationStage,
  INVOKE_STAGES,
} from './stages';

/** spec: Events — the instrument names, exactly. */
export const ENGINE_INSTRUMENTS = {
  archiverStageDuration: 'service.engine.archiver.stage.duration',
  caseCreationStageDuration: 'service.engine.casecreation.stage.duration',
  archiverWarnCount: 'service.engine.archiver.warn.count',
  caseCreationWarnCount: 'service.engine.casecreation.warn.count',
  logsWarnCount: 'service.engine.logs.warn.count',
  invokeStageDuration: 'service.engine.stage.duration',
} as const;

/** Bucket bounds in ms for the invoke trace points, whose gaps are mostly well under a millisecond. */
const INVOKE_BUCKETS_MS = [
  0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000,
];
/** Bucket bounds in ms for Archiver and case creation stages (up to and past the 10 s warn threshold). */
const STAGE_BUCKETS_MS = [
  0.1, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000,
];
/** Distinct trace point names whose attribute objects and recorders are kept (they come from code, not input). */
const TRACE_POINT_CACHE = 256;

/**
 * The three stage-duration histograms, folded in place rather than recorded through the SDK: they are
 * recorded up to ten times per invocation, on the request path. The telemetry module hands their
 * producers to every reader (DELTA to the capture reader, CUMULATIVE to Prometheus and OTLP).
 */
export function engineHistograms(scope: string): FoldedHistograms {
  return new FoldedHistograms(
    [
      {
        name: ENGINE_INSTRUMENTS.invokeStageDuration,
        unit: 'ms',
        description: 'Gap since the previous trace point of the invoke pipeline.',
        boundaries: INVOKE_BUCKETS_MS,
      },
      {
        name: ENGINE_INSTRUMENTS.archiverStageDuration,
        unit: 'ms',
        description: 'Duration of each Archiver stage.',
        boundaries: STAGE_BUCKETS_MS,
      },
      {
        name: ENGINE_INSTRUMENTS.caseCreationStageDuration,
        unit: 'ms',
        description: 'Duration of each case creation stage.',
        boundaries: STAGE_BUCKETS_MS,
      },
    ],
    scope,
    'stage',
    TRACE_POINT_CACHE,
  );
}

type StageAttributes<S extends number> = Readonly<Record<S, Attributes>>;
type Recorder = (milliseconds: number) => void;

function stageAttributes<S extends number>(
  stages: readonly S[],
  names: Readonly<Record<S, string>>,
): StageAttributes<S> {
  const out = {} as Record<S, Attributes>;
  for (const s of stages) out[s] = Object.freeze({ stage: names[s] });
  return out;
}

function stageRecorders<S extends number>(
  histograms: FoldedHistograms,
  instrument: string,
  stages: readonly S[],
  names: Readonly<Record<S, string>>,
): Readonly<Record<S, Recorder>> {
  const out = {} as Record<S, Recorder>;
  for (const s of stages) out[s] = histograms.bind(instrument, names[s]);
  return out;
}

/**
 * The pipelines' OpenTelemetry instruments (spec: Events), each tagged by stage. Everything recorded here
 * reaches the OpenTelemetryMetric table through the capture reader, and the Prometheus / OTLP exporters
 * when EnableOpenTelemetry is True.
 */
export class EngineMetrics {
  private readonly archiverStage: Readonly<Record<ArchiverStage, Recorder>>;
  private readonly caseCreationStage: Readonly<Record<CaseCreationStage, Recorder>>;
  private readonly invokeStage = new Map<string, Recorder>();
  private readonly archiverWarn: Counter;
  private readonly caseCreationWarn: Counter;
  private readonly logsWarn: Counter;
  private readonly archiverAttributes = stageAttributes(ARCHIVER_STAGES, ARCHIVER_STAGE_NAMES);
  private readonly caseCreationAttributes = stageAttributes(CASE_CREATION_STAGES, CASE_CREATION_STAGE_NAMES);
  private readonly tracePointAttributes = new Map<string, Attributes>();

  constructor(
    meter: Meter,
    private readonly histograms: FoldedHistograms,
  ) {
    this.archiverStage = stageRecorders(
      histograms,
      ENGINE_INSTRUMENTS.archiverStageDuration,
      ARCHIVER_STAGES,
      ARCHIVER_STAGE_NAMES,
    );
    this.caseCreationStage = stageRecorders(
      histograms,
      ENGINE_INSTRUMENTS.caseCreationStageDuration,
      CASE_CREATION_STAGES,
      CASE_CREATION_STAGE_NAMES,
    );
    this.archiverWarn = meter.createCounter(ENGINE_INSTRUMENTS.archiverWarnCount, {
      description: 'ArchiverWarning rows raised.',
    });
    this.caseCreationWarn = meter.createCounter(ENGINE_INSTRUMENTS.caseCreationWarnCount, {
      description: 'CaseCreationWarning rows raised.',
    });
    this.logsWarn = meter.createCounter(ENGINE_INSTRUMENTS.logsWarnCount, {
      description: 'Invoke trace points over the Model warn threshold (ModelInvokeWarning rows raised).',
    });
    this.exportKnownSeriesFromTheStart();
  }

  /**
   * Every known series exists from the first collection, at zero: a counter or histogram series
   * that first appears with its first breach makes Prometheus' increase() miss that breach after a restart.
   * The stage histograms' series are bound (a bound series is exported, at count 0 until recorded); each
   * counter series is added 0, which the capture reader does not store (a monotonic delta of 0 is nothing).
   */
  private exportKnownSeriesFromTheStart(): void {
    for (const stage of INVOKE_STAGES)
      this.invokeStage.set(stage, this.histograms.bind(ENGINE_INSTRUMENTS.invokeStageDuration, stage));
    for (const stage of ARCHIVER_STAGES) this.archiverWarn.add(0, this.archiverAttributes[stage]);
    for (const stage of CASE_CREATION_STAGES)
      this.caseCreationWarn.add(0, this.caseCreationAttributes[stage]);
    for (const stage of INVOKE_STAGES) this.logsWarn.add(0, this.tracePoint(stage));
  }

  /** An Archiver stage completed. */
  archiverStageDuration(stage: ArchiverStage, milliseconds: number): void {
    this.archiverStage[stage](milliseconds);
  }

  /** A case creation stage completed. */
  caseCreationStageDuration(stage: CaseCreationStage, milliseconds: number): void {
    this.caseCreationStage[stage](milliseconds);
  }

  /** An invoke trace point was reached; `milliseconds` since the previous one. */
  invokeStageDuration(tracePoint: string, milliseconds: number): void {
    let record = this.invokeStage.get(tracePoint);
    if (!record) {
      record = this.histograms.bind(ENGINE_INSTRUMENTS.invokeStageDuration, tracePoint);
      if (this.invokeStage.size < TRACE_POINT_CACHE) this.invokeStage.set(tracePoint, record);
    }
    record(milliseconds);
  }

  /** Counted in the same call that enqueues the ArchiverWarning row (the engine's PipelineTelemetry adapter). */
  archiverWarnCount(stage: ArchiverStage): void {
    this.archiverWarn.add(1, this.archiverAttributes[stage]);
  }

  /** Counted in the same call that enqueues the CaseCreationWarning row (the engine's PipelineTelemetry adapter). */
  caseCreationWarnCount(stage: CaseCreationStage): void {
    this.caseCreationWarn.add(1, this.caseCreationAttributes[stage]);
  }

  /** Counted in the same call that enqueues the ModelInvokeWarning row (the engine's PipelineTelemetry adapter). */
  logsWarnCount(tracePoint: string): void {
    this.logsWarn.add(1, this.tracePoint(tracePoint));
  }

  private tracePoint(name: string): Attributes {
    let a = this.tracePointAttributes.get(name);
    if (!a) {
      a = Object.freeze({ stage: name });
      if (this.tracePointAttributes.size < TRACE_POINT_CACHE) this.tracePointAttributes.set(name, a);
    }
    return a;
  }
}
