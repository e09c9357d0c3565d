import { Injectable } from '@nestjs/common';
import {
  CaptureQueues,
  type ArchiverWarningInput,
  type CaseCreationWarningInput,
  type ModelInvokeWarningInput,
} from '@app/capture-queues';
import { EngineMetrics } from './engine-metrics';
import type { ArchiverStage, CaseCreationStage } from './stages';

/**
 * ONE call per warning: it enqueues the row and increments the matching counter, so the table and the
 * metric always agree (spec: ModelInvokeWarning). When a queue is full the row is dropped and counted in
 * CaptureQueueHealth.DroppedCount, so counter = rows written + dropped. Never throws; returns false when
 * the row was dropped.
 */
@Injectable()
export class WarningRecorder {
  constructor(
    private readonly queues: CaptureQueues,
    private readonly metrics: EngineMetrics,
  ) {}

  /** A trace point whose gap since the previous one exceeded the Model's warn threshold. */
  modelInvokeWarning(warning: ModelInvokeWarningInput): boolean {
    // The message is the trace point's name (spec: ModelInvokeWarning), the counter's stage attribute.
    this.metrics.logsWarnCount(warning.message);
    return this.queues.enqueueModelInvokeWarning(warning);
  }

  /** An Archiver stage slower than ArchiverWarnThresholdMilliseconds. */
  archiverWarning(warning: ArchiverWarningInput & { stageId: ArchiverStage }): boolean {
    this.metrics.archiverWarnCount(warning.stageId);
    return this.queues.enqueueArchiverWarning(warning);
  }

  /** A case creation stage slower than CaseCreationWarnThresholdMilliseconds. */
  caseCreationWarning(warning: CaseCreationWarningInput & { stageId: CaseCreationStage }): boolean {
    this.metrics.caseCreationWarnCount(warning.stageId);
    return this.queues.enqueueCaseCreationWarning(warning);
  }
}
