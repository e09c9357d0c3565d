/** Archiver stages, spec numbers (stageId) and StageName strings. */
export enum ArchiverStage {
  BuildArchiveJson = 1,
  CaseCreationDispatch = 2,
  RdbmsArchiveWrite = 3,
  BulkCopyArchiveBuffer = 4,
}

/** Case creation stages, spec numbers (stageId) and StageName strings. */
export enum CaseCreationStage {
  ExistingCasePriorityLookup = 1,
  WorkflowStatusLookupAndPersist = 2,
  Notification = 3,
  HttpEndpoint = 4,
}

/** The invoke pipeline's trace points, in order (they are the trace messages). */
export enum InvokeStage {
  Parse = 'Parse',
  ExtractFields = 'ExtractFields',
  Activation = 'Activation',
  BuildResponse = 'BuildResponse',
  BuildArchivePayload = 'BuildArchivePayload',
}

export const ARCHIVER_STAGE_NAMES: Readonly<Record<ArchiverStage, string>> = {
  [ArchiverStage.BuildArchiveJson]: 'BuildArchiveJson',
  [ArchiverStage.CaseCreationDispatch]: 'CaseCreationDispatch',
  [ArchiverStage.RdbmsArchiveWrite]: 'RdbmsArchiveWrite',
  [ArchiverStage.BulkCopyArchiveBuffer]: 'BulkCopyArchiveBuffer',
};

export const CASE_CREATION_STAGE_NAMES: Readonly<Record<CaseCreationStage, string>> = {
  [CaseCreationStage.ExistingCasePriorityLookup]: 'ExistingCasePriorityLookup',
  [CaseCreationStage.WorkflowStatusLookupAndPersist]: 'WorkflowStatusLookupAndPersist',
  [CaseCreationStage.Notification]: 'Notification',
  [CaseCreationStage.HttpEndpoint]: 'HttpEndpoint',
};
