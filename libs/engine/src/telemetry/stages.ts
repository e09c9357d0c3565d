// The Archiver and case creation stages and the invoke trace points are the telemetry library's (one
// definition for the pipelines, the instruments, which export every known series from the start, and the
// grids).
export {
  ArchiverStage,
  CaseCreationStage,
  InvokeStage,
  ARCHIVER_STAGE_NAMES,
  CASE_CREATION_STAGE_NAMES,
} from '@app/telemetry';
