import { Injectable } from '@nestjs/common';
import { EngineMetrics, WarningRecorder } from '@app/telemetry';
import {
  ArchiverWarningCapture,
  BackgroundPipeline,
  CaseCreationWarningCapture,
  ModelInvokeWarningCapture,
  PipelineTelemetry,
} from './pipeline-telemetry';
import { ArchiverStage, CaseCreationStage, InvokeStage } from './stages';

/**
 * The pipelines' telemetry in production: histograms through EngineMetrics, and every warning through ONE
 * WarningRecorder call that both enqueues the capture row and increments its counter, so the two agree.
 */
@Injectable()
export class CapturePipelineTelemetry extends PipelineTelemetry {
  private readonly failures = new Map<string, number>();

  constructor(
    private readonly metrics: EngineMetrics,
    private readonly warnings: WarningRecorder,
  ) {
    super();
  }

  invokeTracePoint(stage: InvokeStage, sinceLastEntryMicroseconds: number): void {
    this.metrics.invokeStageDuration(stage, sinceLastEntryMicroseconds / 1000);
  }

  modelInvokeWarning(w: ModelInvokeWarningCapture): void {
    this.warnings.modelInvokeWarning(w);
  }

  archiverStage(stage: ArchiverStage, durationMicroseconds: number): void {
    this.metrics.archiverStageDuration(stage, durationMicroseconds / 1000);
  }

  archiverWarning(w: ArchiverWarningCapture): void {
    this.warnings.archiverWarning({
      entityAnalysisModelGuid: w.entityAnalysisModelGuid ?? '',
      entityAnalysisModelInstanceEntryGuid: w.entityAnalysisModelInstanceEntryGuid,
      stageId: w.stage,
      durationMicroseconds: w.durationMicroseconds,
      batchSize: w.batchSize,
    });
  }

  caseCreationStage(stage: CaseCreationStage, durationMicroseconds: number): void {
    this.metrics.caseCreationStageDuration(stage, durationMicroseconds / 1000);
  }

  caseCreationWarning(w: CaseCreationWarningCapture): void {
    this.warnings.caseCreationWarning({
      caseWorkflowGuid: w.caseWorkflowGuid,
      caseWorkflowName: w.caseWorkflowName,
      caseKey: w.caseKey,
      caseKeyValue: w.caseKeyValue,
      stageId: w.stage,
      durationMicroseconds: w.durationMicroseconds,
      destination: w.destination,
      batchSize: w.batchSize,
    });
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
