import { Injectable } from '@nestjs/common';
import type {
  ArchiverWarningInput,
  CaseCreationWarningInput,
  ModelInvokeWarningInput,
} from '@app/capture-queues';
import { ArchiverStage, CaseCreationStage, InvokeStage } from './stages';

/**
 * The warnings are the capture queues' own rows-to-be (one declaration each, in @app/capture-queues): the
 * pipelines fill them in and the adapter hands them to the queue unchanged. Only the stage is typed closer here.
 */

/** spec: ModelInvokeWarning, one per trace point slower than the model's threshold. */
export type ModelInvokeWarningCapture = ModelInvokeWarningInput;

/**
 * spec: ArchiverWarning, one per slow run of a stage. The entry guid is null for BulkCopyArchiveBuffer (it works
 * on a batch); batchSize is the rows that run handled (1 for the per-invocation stages).
 */
export type ArchiverWarningCapture = ArchiverWarningInput & { stageId: ArchiverStage };

/**
 * spec: CaseCreationWarning, one per slow run of a stage; destination is the e-mail destination or the
 * callback URL for stages 3 and 4. A run of stages 1 and 2 handles a batch: the workflow and key/value are its
 * first (oldest) activation's, and batchSize says how many it handled (1 for stages 3 and 4).
 */
export type CaseCreationWarningCapture = CaseCreationWarningInput & { stageId: CaseCreationStage };

export type BackgroundPipeline = 'archiver' | 'caseCreation';

/**
 * The narrow port through which the decisioning pipelines report; CapturePipelineTelemetry is its adapter.
 * Each warning method is THE one call site that both enqueues the warning row and increments its OpenTelemetry
 * counter, so the two always agree (spec: ModelInvokeWarning). Durations are microseconds; an implementation
 * converts for its histograms.
 */
export abstract class PipelineTelemetry {
  /** service.engine.stage.duration, per invoke trace point (gap since the previous point). */
  abstract invokeTracePoint(stage: InvokeStage, sinceLastEntryMicroseconds: number): void;
  /** Enqueue ModelInvokeWarning AND increment service.engine.logs.warn.count. */
  abstract modelInvokeWarning(warning: ModelInvokeWarningCapture): void;
  /** service.engine.archiver.stage.duration. */
  abstract archiverStage(stage: ArchiverStage, durationMicroseconds: number): void;
  /** Enqueue ArchiverWarning AND increment service.engine.archiver.warn.count. */
  abstract archiverWarning(warning: ArchiverWarningCapture): void;
  /** service.engine.casecreation.stage.duration. */
  abstract caseCreationStage(stage: CaseCreationStage, durationMicroseconds: number): void;
  /** Enqueue CaseCreationWarning AND increment service.engine.casecreation.warn.count. */
  abstract caseCreationWarning(warning: CaseCreationWarningCapture): void;
  /** A background failure (already logged by the caller): counted, never thrown. */
  abstract backgroundFailure(pipeline: BackgroundPipeline, stage: number): void;
}

/** The most warnings the in-memory recorder keeps; counters keep counting past it. */
const KEPT = 10_000;

/**
 * In-memory implementation: the recorder the unit tests read, where no capture queue runs. Counters are exact;
 * the kept warnings are the newest KEPT of each kind.
 */
@Injectable()
export class InMemoryPipelineTelemetry extends PipelineTelemetry {
  readonly modelInvokeWarnings: ModelInvokeWarningCapture[] = [];
  readonly archiverWarnings: ArchiverWarningCapture[] = [];
  readonly caseCreationWarnings: CaseCreationWarningCapture[] = [];
  readonly counters = {
    'service.engine.logs.warn.count': 0,
    'service.engine.archiver.warn.count': 0,
    'service.engine.casecreation.warn.count': 0,
  };
  /** Histogram record counts per instrument and stage. */
  readonly histogramCounts = new Map<string, number>();
  readonly failures = new Map<string, number>();

  private bump(map: Map<string, number>, key: string): void {
    map.set(key, (map.get(key) ?? 0) + 1);
  }

  private keep<T>(list: T[], item: T): void {
    if (list.length >= KEPT) list.shift();
    list.push(item);
  }

  invokeTracePoint(stage: InvokeStage): void {
    this.bump(this.histogramCounts, `service.engine.stage.duration:${stage}`);
  }
  modelInvokeWarning(warning: ModelInvokeWarningCapture): void {
    this.keep(this.modelInvokeWarnings, warning);
    this.counters['service.engine.logs.warn.count']++;
  }
  archiverStage(stage: ArchiverStage): void {
    this.bump(this.histogramCounts, `service.engine.archiver.stage.duration:${stage}`);
  }
  archiverWarning(warning: ArchiverWarningCapture): void {
    this.keep(this.archiverWarnings, warning);
    this.counters['service.engine.archiver.warn.count']++;
  }
  caseCreationStage(stage: CaseCreationStage): void {
    this.bump(this.histogramCounts, `service.engine.casecreation.stage.duration:${stage}`);
  }
  caseCreationWarning(warning: CaseCreationWarningCapture): void {
    this.keep(this.caseCreationWarnings, warning);
    this.counters['service.engine.casecreation.warn.count']++;
  }
  backgroundFailure(pipeline: BackgroundPipeline, stage: number): void {
    this.bump(this.failures, `${pipeline}:${stage}`);
  }
}
