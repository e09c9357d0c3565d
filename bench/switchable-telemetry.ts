/* The invoke benchmarks' PipelineTelemetry: one binding, its target switched between rounds. */
import {
  ArchiverStage,
  ArchiverWarningCapture,
  CaseCreationStage,
  CaseCreationWarningCapture,
  InvokeStage,
  ModelInvokeWarningCapture,
  PipelineTelemetry,
} from '@app/engine';

/** Swapped between rounds; one virtual call either way, so the switch itself costs both sides alike. */
export class SwitchableTelemetry extends PipelineTelemetry {
  constructor(public target: PipelineTelemetry) {
    super();
  }
  invokeTracePoint(stage: InvokeStage, micros: number): void {
    this.target.invokeTracePoint(stage, micros);
  }
  modelInvokeWarning(w: ModelInvokeWarningCapture): void {
    this.target.modelInvokeWarning(w);
  }
  archiverStage(stage: ArchiverStage, micros: number): void {
    this.target.archiverStage(stage, micros);
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
