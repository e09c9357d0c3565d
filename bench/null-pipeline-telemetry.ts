import { PipelineTelemetry } from '@app/engine';

/** Does nothing: the "telemetry off" side of the invoke benchmarks. */
export class NullPipelineTelemetry extends PipelineTelemetry {
  invokeTracePoint(): void {}
  modelInvokeWarning(): void {}
  archiverStage(): void {}
  archiverWarning(): void {}
  caseCreationStage(): void {}
  caseCreationWarning(): void {}
  backgroundFailure(): void {}
}
