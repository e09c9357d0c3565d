import { GRID } from '@app/declarations';
import {
  AdminEventOutcome,
  AuthenticationType,
  FailureType,
  LogoutOutcome,
  LogoutReason,
  SIGN_IN_CONTINUE_STEPS,
} from '@app/audit';
import { GridColumn, validateDefinition } from '../grid-definition';

/** A column with the label the console shows and the CSV export's header holds. */
const col = (
  name: string,
  column: string,
  kind: GridColumn['kind'],
  label: string,
  nullable = false,
): GridColumn => ({ name, column, kind, label, ...(nullable ? { nullable } : {}) });
const nameOf = (e: Record<string | number, string | number>, v: unknown) =>
  typeof v === 'number' ? ((e[v] as string | undefined) ?? null) : null;

/** Login audit (spec: UserLogin). Tenant-scoped by the controller; rows of unknown users have no tenant. */
export const USER_LOGIN_GRID = validateDefinition({
  name: GRID.UserLogin,
  table: 'UserLogin',
  idColumn: 'Id',
  timeColumn: 'CreatedDate',
  columns: [
    col('id', 'Id', 'number', 'Id'),
    col('createdUser', 'CreatedUser', 'string', 'User name'),
    col('remoteIp', 'RemoteIp', 'string', 'Remote address', true),
    col('localIp', 'LocalIp', 'string', 'Local address', true),
    col('userAgent', 'UserAgent', 'string', 'User agent', true),
    col('authenticationTypeId', 'AuthenticationTypeId', 'number', 'Scheme id'),
    col('failed', 'Failed', 'boolean', 'Failed'),
    col('failureTypeId', 'FailureTypeId', 'number', 'Failure id', true),
    col('failureMessage', 'FailureMessage', 'string', 'Message', true),
    col('createdDate', 'CreatedDate', 'date', 'When'),
  ],
  filters: [
    {
      param: 'failed',
      column: 'Failed',
      type: 'boolean',
      description: 'true: failed attempts only (FailureTypeId set); false: successful sign-ins only',
    },
    {
      param: 'refused',
      column: 'Failed',
      type: 'flagExcept',
      codeColumn: 'FailureTypeId',
      except: SIGN_IN_CONTINUE_STEPS,
      description: `true: refusals only, the failed attempts that were turned away (every FailureTypeId but ${SIGN_IN_CONTINUE_STEPS.map((c) => `${c} ${FailureType[c]}`).join(', ')}: steps of the sign-in that ask the user to continue); false: every other row (successes and those steps)`,
    },
  ],
  searchColumns: ['CreatedUser', 'RemoteIp', 'LocalIp', 'UserAgent', 'FailureMessage'],
  statistics: [],
  sortable: false,
  decorate: (r) => ({
    authenticationType: nameOf(AuthenticationType, r.authenticationTypeId),
    failureType: nameOf(FailureType, r.failureTypeId),
  }),
  derived: [
    {
      name: 'authenticationType',
      kind: 'string',
      nullable: true,
      description: 'The name of authenticationTypeId',
      label: 'Scheme',
    },
    {
      name: 'failureType',
      kind: 'string',
      nullable: true,
      description: 'The name of failureTypeId',
      label: 'Failure',
    },
  ],
});

/** Logout audit (spec: UserLogout). */
export const USER_LOGOUT_GRID = validateDefinition({
  name: GRID.UserLogout,
  table: 'UserLogout',
  idColumn: 'Id',
  timeColumn: 'CreatedDate',
  columns: [
    col('id', 'Id', 'number', 'Id'),
    col('userName', 'UserName', 'string', 'User name', true),
    col('reasonId', 'ReasonId', 'number', 'Reason id'),
    col('outcomeId', 'OutcomeId', 'number', 'Outcome id'),
    col('remoteIp', 'RemoteIp', 'string', 'Remote address', true),
    col('localIp', 'LocalIp', 'string', 'Local address', true),
    col('userAgent', 'UserAgent', 'string', 'User agent', true),
    col('sessionStartedDate', 'SessionStartedDate', 'date', 'Session started', true),
    col('revokedByUser', 'RevokedByUser', 'string', 'Revoked by', true),
    col('message', 'Message', 'string', 'Message', true),
    col('createdDate', 'CreatedDate', 'date', 'When'),
  ],
  filters: [],
  searchColumns: ['UserName', 'RemoteIp', 'LocalIp', 'UserAgent', 'Message'],
  statistics: [],
  sortable: false,
  decorate: (r) => ({
    reason: nameOf(LogoutReason, r.reasonId),
    outcome: nameOf(LogoutOutcome, r.outcomeId),
  }),
  derived: [
    { name: 'reason', kind: 'string', nullable: true, description: 'The name of reasonId', label: 'Reason' },
    {
      name: 'outcome',
      kind: 'string',
      nullable: true,
      description: 'The name of outcomeId',
      label: 'Outcome',
    },
  ],
});

const shown = (v: unknown) =>
  v === null || v === undefined ? '(none)' : typeof v === 'string' ? v : JSON.stringify(v);

/** AdminEvent's changes as people read them: `Name: Old → New; PasswordHash: changed` (null: none). */
export function changeSummary(changes: unknown): string | null {
  if (typeof changes !== 'string' || !changes) return null;
  let list: unknown;
  try {
    list = JSON.parse(changes);
  } catch {
    return null;
  }
  if (!Array.isArray(list)) return null;
  return list
    .map((c: { field?: unknown; old?: unknown; new?: unknown; changed?: unknown }) =>
      c.changed === true
        ? `${String(c.field)}: changed`
        : `${String(c.field)}: ${shown(c.old)} → ${shown(c.new)}`,
    )
    .join('; ');
}

/**
 * Administrators' writes (AdminEvent). Scoped by the target's tenant by the controller; `changes` is the JSON
 * list of changed fields ([{ field, old, new }], a secret as { field, changed: true }). A refusal row counts
 * `eventCount` refusals of one actor, action and status in a minute: the first's target and instant are
 * targetGuid and createdDate, the last's lastTargetGuid and lastDate.
 */
export const ADMIN_EVENT_GRID = validateDefinition({
  name: GRID.AdminEvent,
  table: 'AdminEvent',
  idColumn: 'Id',
  timeColumn: 'CreatedDate',
  columns: [
    col('id', 'Id', 'number', 'Id'),
    col('createdDate', 'CreatedDate', 'date', 'When'),
    col('actorUser', 'ActorUser', 'string', 'Actor'),
    col('actorUserGuid', 'ActorUserGuid', 'string', 'Actor GUID'),
    col('actorTenantName', 'ActorTenantName', 'string', "Actor's tenant", true),
    col('credentialKind', 'CredentialKind', 'string', 'Credential'),
    col('apiKeyIdentifier', 'ApiKeyIdentifier', 'string', 'API key', true),
    col('action', 'Action', 'string', 'Action'),
    col('targetType', 'TargetType', 'string', 'Target type'),
    col('targetGuid', 'TargetGuid', 'string', 'Target GUID', true),
    col('targetName', 'TargetName', 'string', 'Target', true),
    col('changes', 'Changes', 'string', 'Changes', true),
    col('eventCount', 'EventCount', 'number', 'Count'),
    col('lastTargetGuid', 'LastTargetGuid', 'string', 'Last target GUID', true),
    col('lastDate', 'LastDate', 'date', 'Last', true),
    col('outcomeId', 'OutcomeId', 'number', 'Outcome id'),
    col('statusCode', 'StatusCode', 'number', 'Status'),
    col('message', 'Message', 'string', 'Message', true),
    col('remoteIp', 'RemoteIp', 'string', 'Remote address', true),
    col('localIp', 'LocalIp', 'string', 'Local address', true),
    col('userAgent', 'UserAgent', 'string', 'User agent', true),
  ],
  filters: [{ param: 'targetGuid', column: 'TargetGuid', type: 'guid' }],
  searchColumns: [
    'ActorUser',
    'ActorUserGuid',
    'ActorTenantName',
    'Action',
    'TargetType',
    'TargetGuid',
    'TargetName',
    'LastTargetGuid',
  ],
  statistics: [],
  sortable: true,
  decorate: (r) => ({
    outcome: nameOf(AdminEventOutcome, r.outcomeId),
    changeSummary: changeSummary(r.changes),
  }),
  derived: [
    {
      name: 'outcome',
      kind: 'string',
      nullable: true,
      description: 'The name of outcomeId',
      label: 'Outcome',
    },
    {
      name: 'changeSummary',
      kind: 'string',
      nullable: true,
      description: 'changes as text: `Name: Old → New; PasswordHash: changed`',
      label: 'Changed fields',
    },
  ],
});
