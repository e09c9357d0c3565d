// The Archiver and case creation stages are the telemetry library's (one definition for the pipelines,
// the instruments and the grids).
export {
  ArchiverStage,
  CaseCreationStage,
  ARCHIVER_STAGE_NAMES,
  CASE_CREATION_STAGE_NAMES,
} from '@app/telemetry';

/** The invoke pipeline's trace points, in order (they are the trace messages). */
export enum InvokeStage {
  Parse = 'Parse',
  ExtractFields = 'ExtractFields',
  Activation = 'Activation',
  BuildResponse = 'BuildResponse',
  BuildArchivePayload = 'BuildArchivePayload',
}
