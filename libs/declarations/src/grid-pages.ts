import type { GridName } from './names';

/**
 * How each grid's page shows its rows: the columns in order, each the row's member (`key`), the label the page
 * and the CSV export's header both use, and how the value is shown (`micros`: a duration held in microseconds;
 * `instant`: a time). One declaration, read by the console's table and the service's CSV export, so a file holds
 * the page's columns in the page's order with the page's labels (a file that matches what the operator saw).
 */
export type PageColumnFormat = 'number' | 'micros' | 'text' | 'instant' | 'guid' | 'boolean';

export interface PageColumn {
  readonly key: string;
  readonly label: string;
  readonly format: PageColumnFormat;
}

export const GRID_PAGE_COLUMNS = {
  ArchiverStagePerformanceCounter: [
    { key: 'createdDate', label: 'Created', format: 'instant' },
    { key: 'stageName', label: 'Stage', format: 'text' },
    { key: 'entityAnalysisModelGuid', label: 'Model', format: 'guid' },
    { key: 'totalMicroseconds', label: 'Total', format: 'micros' },
    { key: 'minMicroseconds', label: 'Min', format: 'micros' },
    { key: 'maxMicroseconds', label: 'Max', format: 'micros' },
    { key: 'invokeCount', label: 'Invocations', format: 'number' },
    { key: 'instance', label: 'Instance', format: 'text' },
  ],
  ArchiverWarning: [
    { key: 'createdDate', label: 'Created', format: 'instant' },
    { key: 'stageName', label: 'Stage', format: 'text' },
    { key: 'durationMicroseconds', label: 'Duration', format: 'micros' },
    { key: 'batchSize', label: 'Rows', format: 'number' },
    { key: 'entityAnalysisModelGuid', label: 'Model', format: 'guid' },
    { key: 'entityAnalysisModelInstanceEntryGuid', label: 'Invocation', format: 'guid' },
    { key: 'instance', label: 'Instance', format: 'text' },
  ],
  CaseCreationStagePerformanceCounter: [
    { key: 'createdDate', label: 'Created', format: 'instant' },
    { key: 'stageName', label: 'Stage', format: 'text' },
    { key: 'totalMicroseconds', label: 'Total', format: 'micros' },
    { key: 'minMicroseconds', label: 'Min', format: 'micros' },
    { key: 'maxMicroseconds', label: 'Max', format: 'micros' },
    { key: 'invokeCount', label: 'Activations', format: 'number' },
    { key: 'instance', label: 'Instance', format: 'text' },
  ],
  CaseCreationWarning: [
    { key: 'createdDate', label: 'Created', format: 'instant' },
    { key: 'stageName', label: 'Stage', format: 'text' },
    { key: 'durationMicroseconds', label: 'Duration', format: 'micros' },
    { key: 'batchSize', label: 'Activations', format: 'number' },
    { key: 'caseWorkflowName', label: 'Workflow', format: 'text' },
    { key: 'caseKey', label: 'Case key', format: 'text' },
    { key: 'caseKeyValue', label: 'Case key value', format: 'text' },
    { key: 'destination', label: 'Destination', format: 'text' },
    { key: 'instance', label: 'Instance', format: 'text' },
  ],
  ModelInvokeWarning: [
    { key: 'occurredDate', label: 'Occurred', format: 'instant' },
    { key: 'entityAnalysisModelName', label: 'Model', format: 'text' },
    { key: 'message', label: 'Trace point', format: 'text' },
    { key: 'elapsedMicroseconds', label: 'Elapsed', format: 'micros' },
    { key: 'sinceLastEntryMicroseconds', label: 'Since previous', format: 'micros' },
    { key: 'entityAnalysisModelInstanceEntryGuid', label: 'Invocation', format: 'guid' },
    { key: 'instance', label: 'Instance', format: 'text' },
  ],
  CaptureQueueHealth: [
    { key: 'createdDate', label: 'Created', format: 'instant' },
    { key: 'queueName', label: 'Queue', format: 'text' },
    { key: 'queueDepth', label: 'Depth', format: 'number' },
    { key: 'droppedCount', label: 'Dropped', format: 'number' },
    { key: 'instance', label: 'Instance', format: 'text' },
  ],
  UserLogin: [
    { key: 'createdDate', label: 'When', format: 'instant' },
    { key: 'createdUser', label: 'User name', format: 'text' },
    { key: 'authenticationType', label: 'Scheme', format: 'text' },
    { key: 'failed', label: 'Failed', format: 'boolean' },
    { key: 'failureType', label: 'Failure', format: 'text' },
    { key: 'failureMessage', label: 'Message', format: 'text' },
    { key: 'remoteIp', label: 'Remote address', format: 'text' },
    { key: 'userAgent', label: 'User agent', format: 'text' },
  ],
  UserLogout: [
    { key: 'createdDate', label: 'When', format: 'instant' },
    { key: 'userName', label: 'User name', format: 'text' },
    { key: 'reason', label: 'Reason', format: 'text' },
    { key: 'outcome', label: 'Outcome', format: 'text' },
    { key: 'revokedByUser', label: 'Revoked by', format: 'text' },
    { key: 'sessionStartedDate', label: 'Session started', format: 'instant' },
    { key: 'remoteIp', label: 'Remote address', format: 'text' },
    { key: 'userAgent', label: 'User agent', format: 'text' },
  ],
  AdminEvent: [
    { key: 'createdDate', label: 'When', format: 'instant' },
    { key: 'actorUser', label: 'Actor', format: 'text' },
    { key: 'actorTenantName', label: "Actor's tenant", format: 'text' },
    { key: 'action', label: 'Action', format: 'text' },
    { key: 'eventCount', label: 'Count', format: 'number' },
    { key: 'targetName', label: 'Target', format: 'text' },
    { key: 'targetGuid', label: 'First target', format: 'guid' },
    { key: 'lastTargetGuid', label: 'Last target', format: 'guid' },
    { key: 'changeSummary', label: 'Changed fields', format: 'text' },
    { key: 'outcome', label: 'Outcome', format: 'text' },
    { key: 'statusCode', label: 'Status', format: 'number' },
    { key: 'message', label: 'Message', format: 'text' },
    { key: 'credentialKind', label: 'Credential', format: 'text' },
    { key: 'remoteIp', label: 'Remote address', format: 'text' },
    { key: 'apiKeyIdentifier', label: 'API key', format: 'text' },
  ],
} as const satisfies Record<GridName, readonly PageColumn[]>;
