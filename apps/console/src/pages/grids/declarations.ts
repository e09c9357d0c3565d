import {
  ARCHIVER_STAGE_NAMES,
  CAPTURE_QUEUE_NAMES,
  CASE_CREATION_STAGE_NAMES,
  GRID_PAGE_COLUMNS,
  type PageColumnFormat,
} from '@app/declarations';
import type { operations } from '../../api/schema.gen';
import { PERMISSION, type Access } from '../../components/permissions';
import type { GridName, GridRows } from './grid-types';

/** How a cell is shown. `micros`: a duration in microseconds; `instant`: in the browser's zone. */
export type ColumnFormat = PageColumnFormat;

export interface ColumnDeclaration {
  /** The row's member, and the value of sortField (the server's column name). */
  key: string;
  label: string;
  format: ColumnFormat;
}

/** An exact-match filter of the toolbar with its allowed values (the server checks the range). */
export interface FilterDeclaration {
  param: 'stageId' | 'queueId';
  label: string;
  options: { value: number; label: string }[];
}

/** The sign-in audit's parameters as the service's OpenAPI document declares them. */
type SignInAuditQuery = NonNullable<operations['getUserLogins']['parameters']['query']>;

/**
 * A view of the sign-in audit's attempts: one of the service's boolean parameters sent as `true`. Which rows
 * each holds is the service's to say (refused: the FailureTypes that are not steps asking the user to
 * continue, declared once in libs/audit): the console holds no list of codes. A parameter the document no
 * longer declares is a type error here.
 */
export interface AttemptViewDeclaration {
  param: Extract<keyof SignInAuditQuery, 'failed' | 'refused'>;
  label: string;
}

/**
 * The chart of the grid's main measure over the whole window (GET /api/<Grid>/Series: the service chooses
 * the measure and draws one line per stage or queue); here how it is named and shown.
 */
export interface TimeSeriesDeclaration {
  label: string;
  format: ColumnFormat;
  /** What one line stands for, when there are several. */
  per?: 'stage' | 'queue';
  /**
   * The rows are warnings: beside the largest value, a chart of how many there were per time bucket, named
   * by this word ("Warnings").
   */
  counts?: string;
}

/**
 * One grid page, declared: the same idea as the server's grid engine (libs/grid GridDefinition), so adding a
 * grid is adding a declaration. The toolbar holds the spec's parameters (from, to, stageId, queueId,
 * search, take, sort); `entityAnalysisModelGuid` and `samplePercentage` stay out of it (spec: "not in the
 * UI toolbar").
 */
export interface GridDeclaration {
  name: GridName;
  title: string;
  group: 'Telemetry' | 'Audit';
  summary: string;
  access: Access;
  columns: ColumnDeclaration[];
  filter?: FilterDeclaration;
  /** What `search` matches, when the grid has it. */
  search?: string;
  /** The server sorts by a column header; false: always newest first (spec: CaptureQueueHealth, audits). */
  sortable: boolean;
  /** The columns a phone shows (at most three, the row's time first); the rest are in each row's details. */
  keyColumns: string[];
  /** Columns the table leaves to each row's details at every width (identifiers and context of a wide trail). */
  detailsOnly?: string[];
  /** Columns shown from 100rem (a 1920 px screen) only; narrower, they are in each row's details. */
  wideColumns?: string[];
  /** Statistics columns (the server computes them over the whole filtered window). */
  statistics: string[];
  /**
   * Statistics columns whose sum means something (invocations, drops): their panel shows it (mean × count,
   * the service's statistics), so a figure of the home page can be checked on the grid it opens.
   */
  sums?: string[];
  timeSeries?: TimeSeriesDeclaration;
  /** The row member holding the grid's time (from, to and "older rows" apply to it); default createdDate. */
  time?: 'occurredDate';
  /** The sign-in audit's views of its attempts (the toolbar's Attempts; without one: every attempt). */
  attempts?: readonly AttemptViewDeclaration[];
  /** One record's history: the service's `targetGuid`, from the link on the record's page. */
  targetHistory?: boolean;
  /**
   * What refreshes the page while it is open: an event of GET /api/Stream/Telemetry named like the grid,
   * or a short poll while the page is visible.
   */
  live: { stream: true } | { stream: false; pollMilliseconds: number };
}

/**
 * The page's columns (GRID_PAGE_COLUMNS, shared with the service's CSV export), each named by a member of the
 * grid's row as the OpenAPI document declares it: a column the service does not answer is a type error.
 */
function columns<N extends GridName>(
  _grid: N,
  list: readonly (Omit<ColumnDeclaration, 'key'> & { key: keyof GridRows[N] & string })[],
): ColumnDeclaration[] {
  return [...list];
}

const stageOptions = (names: readonly string[]) => names.map((label, i) => ({ value: i + 1, label }));
const ARCHIVER_STAGES = stageOptions(ARCHIVER_STAGE_NAMES);
const CASE_CREATION_STAGES = stageOptions(CASE_CREATION_STAGE_NAMES);
const QUEUES = stageOptions(CAPTURE_QUEUE_NAMES);

const LANDLORD: Access = { landlord: true };
const AUDIT: Access = { permission: PERMISSION.ReadSecurityAudit };
/** The warning and audit grids have no stream event: they are polled this often while visible. */
export const POLL_MILLISECONDS = 10_000;
const STAGE_COUNTER_STATISTICS = ['totalMicroseconds', 'minMicroseconds', 'maxMicroseconds', 'invokeCount'];

export const GRIDS: readonly GridDeclaration[] = [
  {
    name: 'ArchiverStagePerformanceCounter',
    title: 'Archiver stages',
    group: 'Telemetry',
    summary:
      'One row per Archiver stage per model, about every minute: the time its runs took (Min and Max: the ' +
      'shortest and longest run; BulkCopyArchiveBuffer runs once per batch) and the invocations they handled.',
    access: LANDLORD,
    columns: columns('ArchiverStagePerformanceCounter', GRID_PAGE_COLUMNS.ArchiverStagePerformanceCounter),
    filter: { param: 'stageId', label: 'Stage', options: ARCHIVER_STAGES },
    keyColumns: ['createdDate', 'stageName', 'totalMicroseconds'],
    sortable: true,
    statistics: STAGE_COUNTER_STATISTICS,
    sums: ['invokeCount'],
    timeSeries: { label: 'Total time', format: 'micros', per: 'stage' },
    live: { stream: true },
  },
  {
    name: 'ArchiverWarning',
    title: 'Archiver warnings',
    group: 'Telemetry',
    summary: 'Archiver stages slower than ArchiverWarnThresholdMilliseconds.',
    access: LANDLORD,
    columns: columns('ArchiverWarning', GRID_PAGE_COLUMNS.ArchiverWarning),
    filter: { param: 'stageId', label: 'Stage', options: ARCHIVER_STAGES },
    keyColumns: ['createdDate', 'stageName', 'durationMicroseconds'],
    sortable: true,
    statistics: ['durationMicroseconds'],
    timeSeries: { label: 'Duration', format: 'micros', per: 'stage', counts: 'Warnings' },
    live: { stream: false, pollMilliseconds: POLL_MILLISECONDS },
  },
  {
    name: 'CaseCreationStagePerformanceCounter',
    title: 'Case creation stages',
    group: 'Telemetry',
    summary:
      'One row per case creation stage, about every minute: the time its runs took (Min and Max: the ' +
      'shortest and longest run; stages 1 and 2 run once per batch) and the activations they handled.',
    access: LANDLORD,
    columns: columns(
      'CaseCreationStagePerformanceCounter',
      GRID_PAGE_COLUMNS.CaseCreationStagePerformanceCounter,
    ),
    filter: { param: 'stageId', label: 'Stage', options: CASE_CREATION_STAGES },
    keyColumns: ['createdDate', 'stageName', 'totalMicroseconds'],
    sortable: true,
    statistics: STAGE_COUNTER_STATISTICS,
    sums: ['invokeCount'],
    timeSeries: { label: 'Total time', format: 'micros', per: 'stage' },
    live: { stream: true },
  },
  {
    name: 'CaseCreationWarning',
    title: 'Case creation warnings',
    group: 'Telemetry',
    summary: 'Case creation stages slower than CaseCreationWarnThresholdMilliseconds.',
    access: LANDLORD,
    columns: columns('CaseCreationWarning', GRID_PAGE_COLUMNS.CaseCreationWarning),
    filter: { param: 'stageId', label: 'Stage', options: CASE_CREATION_STAGES },
    search: 'the case key value',
    keyColumns: ['createdDate', 'stageName', 'durationMicroseconds'],
    sortable: true,
    statistics: ['durationMicroseconds'],
    timeSeries: { label: 'Duration', format: 'micros', per: 'stage', counts: 'Warnings' },
    live: { stream: false, pollMilliseconds: POLL_MILLISECONDS },
  },
  {
    name: 'ModelInvokeWarning',
    title: 'Model invoke warnings',
    group: 'Telemetry',
    summary: "Trace points of the invoke pipeline slower than their model's warn threshold.",
    access: LANDLORD,
    columns: columns('ModelInvokeWarning', GRID_PAGE_COLUMNS.ModelInvokeWarning),
    search: 'the model name or the trace point',
    time: 'occurredDate',
    keyColumns: ['occurredDate', 'message', 'sinceLastEntryMicroseconds'],
    sortable: true,
    statistics: ['elapsedMicroseconds', 'sinceLastEntryMicroseconds'],
    timeSeries: { label: 'Time since the previous trace point', format: 'micros', counts: 'Warnings' },
    live: { stream: false, pollMilliseconds: POLL_MILLISECONDS },
  },
  {
    name: 'CaptureQueueHealth',
    title: 'Capture queue health',
    group: 'Telemetry',
    summary:
      'One row per capture queue per flush. A depth that never falls, or any drop, means delayed or lost data.',
    access: LANDLORD,
    columns: columns('CaptureQueueHealth', GRID_PAGE_COLUMNS.CaptureQueueHealth),
    filter: { param: 'queueId', label: 'Queue', options: QUEUES },
    keyColumns: ['createdDate', 'queueName', 'queueDepth'],
    sortable: false,
    statistics: ['queueDepth', 'droppedCount'],
    sums: ['droppedCount'],
    timeSeries: { label: 'Queue depth', format: 'number', per: 'queue' },
    live: { stream: true },
  },
  {
    name: 'UserLogin',
    title: 'Sign-in audit',
    group: 'Audit',
    summary: 'Every sign-in attempt, successful or not (UserLogin). Never purged.',
    access: AUDIT,
    columns: columns('UserLogin', GRID_PAGE_COLUMNS.UserLogin),
    search: 'the user name, addresses, user agent or message',
    keyColumns: ['createdDate', 'createdUser', 'failed'],
    sortable: false,
    statistics: [],
    attempts: [
      { param: 'refused', label: 'Refusals only' },
      { param: 'failed', label: 'Failed, with steps to continue' },
    ],
    live: { stream: false, pollMilliseconds: POLL_MILLISECONDS },
  },
  {
    name: 'UserLogout',
    title: 'Sign-out audit',
    group: 'Audit',
    summary: 'Every session cut: logouts, Revoke Sessions, password changes (UserLogout). Never purged.',
    access: AUDIT,
    columns: columns('UserLogout', GRID_PAGE_COLUMNS.UserLogout),
    search: 'the user name, addresses, user agent or message',
    keyColumns: ['createdDate', 'userName', 'reason'],
    sortable: false,
    statistics: [],
    live: { stream: false, pollMilliseconds: POLL_MILLISECONDS },
  },
  {
    name: 'AdminEvent',
    title: "Administrators' actions",
    group: 'Audit',
    summary:
      "Every administrative change with its fields old → new, and the refused ones (AdminEvent): an actor's refusals of one action and status are counted together, a row a minute, with their first and last target. Never purged.",
    access: AUDIT,
    columns: columns('AdminEvent', GRID_PAGE_COLUMNS.AdminEvent),
    search: 'the actor, the target or the action',
    keyColumns: ['createdDate', 'action', 'outcome'],
    detailsOnly: ['targetGuid', 'lastTargetGuid', 'credentialKind', 'remoteIp', 'apiKeyIdentifier'],
    wideColumns: ['actorTenantName', 'eventCount'],
    sortable: true,
    statistics: [],
    targetHistory: true,
    live: { stream: false, pollMilliseconds: POLL_MILLISECONDS },
  },
];

/** The console path of one record's history in the administrators' trail (every time, newest first). */
export const historyPath = (targetGuid: string) =>
  `/Administration/AdminEvent?targetGuid=${encodeURIComponent(targetGuid)}&from=2000-01-01T00%3A00%3A00Z`;

export function gridNamed(name: string | undefined): GridDeclaration | undefined {
  return GRIDS.find((g) => g.name === name);
}

/** Readable names of the statistics columns (the column's label, else the member's name). */
export function columnLabel(grid: GridDeclaration, key: string): string {
  return grid.columns.find((c) => c.key === key)?.label ?? key;
}

export const gridPath = (grid: Pick<GridDeclaration, 'name'>) => `/Administration/${grid.name}`;
