import {
  ARCHIVER_STAGE_NAMES as ARCHIVER_STAGE_NAME_LIST,
  CASE_CREATION_STAGE_NAMES as CASE_CREATION_STAGE_NAME_LIST,
  namesById,
} from '@app/declarations';

/** spec: ArchiverStagePerformanceCounter, Archiver stages (stageId). */
export enum ArchiverStage {
  BuildArchiveJson = 1,
  CaseCreationDispatch = 2,
  RdbmsArchiveWrite = 3,
  BulkCopyArchiveBuffer = 4,
}

/** StageName of each Archiver stageId, as the spec spells them. */
export const ARCHIVER_STAGE_NAMES: Readonly<Record<ArchiverStage, string>> =
  namesById(ARCHIVER_STAGE_NAME_LIST);

/** spec: CaseCreationStagePerformanceCounter, case creation stages (stageId). */
export enum CaseCreationStage {
  ExistingCasePriorityLookup = 1,
  WorkflowStatusLookupAndPersist = 2,
  Notification = 3,
  HttpEndpoint = 4,
}

/** StageName of each case creation stageId, as the spec spells them. */
export const CASE_CREATION_STAGE_NAMES: Readonly<Record<CaseCreationStage, string>> = namesById(
  CASE_CREATION_STAGE_NAME_LIST,
);

export const ARCHIVER_STAGES: readonly ArchiverStage[] = [1, 2, 3, 4];
export const CASE_CREATION_STAGES: readonly CaseCreationStage[] = [1, 2, 3, 4];

/**
 * The invoke pipeline's trace points, in order (they are the trace messages, and the `stage` of
 * service.engine.stage.duration and service.engine.logs.warn.count).
 */
export enum InvokeStage {
  Parse = 'Parse',
  ExtractFields = 'ExtractFields',
  Activation = 'Activation',
  BuildResponse = 'BuildResponse',
  BuildArchivePayload = 'BuildArchivePayload',
}

export const INVOKE_STAGES: readonly InvokeStage[] = Object.values(InvokeStage);
