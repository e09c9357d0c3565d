import { Injectable } from '@nestjs/common';
import { CaptureQueues } from '@app/capture-queues';
import { EngineMetrics } from '@app/telemetry';
import {
  ArchiverWarningCapture,
  BackgroundPipeline,
  CaseCreationWarningCapture,
  ModelInvokeWarningCapture,
  PipelineTelemetry,
} from './pipeline-telemetry';
import { ArchiverStage, CaseCreationStage, InvokeStage } from './stages';

/**
 * The adapter of PipelineTelemetry in production: histograms through EngineMetrics; each warning counted on its
 * OpenTelemetry counter and enqueued as its capture row in the same call, so counter and table agree (a full
 * queue drops the row and counts it in CaptureQueueHealth.DroppedCount: counter = rows written + dropped).
 */
@Injectable()
export class CapturePipelineTelemetry extends PipelineTelemetry {
  private readonly failures = new Map<string, number>();

  constructor(
    private readonly metrics: EngineMetrics,
    private readonly queues: CaptureQueues,
  ) {
    super();
  }

  invokeTracePoint(stage: InvokeStage, sinceLastEntryMicroseconds: number): void {
    this.metrics.invokeStageDuration(stage, sinceLastEntryMicroseconds / 1000);
  }

  modelInvokeWarning(w: ModelInvokeWarningCapture): void {
    // The message is the trace point's name (spec: ModelInvokeWarning), the counter's stage attribute.
    this.metrics.logsWarnCount(w.message);
    this.queues.enqueueModelInvokeWarning(w);
  }

  archiverStage(stage: ArchiverStage, durationMicroseconds: number): void {
    this.metrics.archiverStageDuration(stage, durationMicroseconds / 1000);
  }

  archiverWarning(w: ArchiverWarningCapture): void {
    this.metrics.archiverWarnCount(w.stageId);
    this.queues.enqueueArchiverWarning(w);
  }

  caseCreationStage(stage: CaseCreationStage, durationMicroseconds: number): void {
    this.metrics.caseCreationStageDuration(stage, durationMicroseconds / 1000);
  }

  caseCreationWarning(w: CaseCreationWarningCapture): void {
    this.metrics.caseCreationWarnCount(w.stageId);
    this.queues.enqueueCaseCreationWarning(w);
  }

  backgroundFailure(pipeline: BackgroundPipeline, stage: number): void {
    const key = `${pipeline}:${stage}`;
    this.failures.set(key, (this.failures.get(key) ?? 0) + 1);
  }

  /** Background failures by pipeline and stage since start (the callers have logged each one). */
  failureCounts(): ReadonlyMap<string, number> {
    return this.failures;
  }
}
