import { AuthenticationType, FailureType, LogoutOutcome, LogoutReason } from '@app/audit';
import { GridColumn, validateDefinition } from '../grid-definition';

const col = (name: string, column: string, kind: GridColumn['kind'], nullable = false): GridColumn => ({
  name,
  column,
  kind,
  ...(nullable ? { nullable } : {}),
});
const nameOf = (e: Record<string | number, string | number>, v: unknown) =>
  typeof v === 'number' ? ((e[v] as string | undefined) ?? null) : null;

/** Login audit (spec: UserLogin). Tenant-scoped by the controller; rows of unknown users have no tenant. */
export const USER_LOGIN_GRID = validateDefinition({
  name: 'UserLogin',
  table: 'UserLogin',
  idColumn: 'Id',
  timeColumn: 'CreatedDate',
  columns: [
    col('id', 'Id', 'number'),
    col('createdUser', 'CreatedUser', 'string'),
    col('remoteIp', 'RemoteIp', 'string', true),
    col('localIp', 'LocalIp', 'string', true),
    col('userAgent', 'UserAgent', 'string', true),
    col('authenticationTypeId', 'AuthenticationTypeId', 'number'),
    col('failed', 'Failed', 'boolean'),
    col('failureTypeId', 'FailureTypeId', 'number', true),
    col('failureMessage', 'FailureMessage', 'string', true),
    col('createdDate', 'CreatedDate', 'date'),
  ],
  filters: [],
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
    },
    { name: 'failureType', kind: 'string', nullable: true, description: 'The name of failureTypeId' },
  ],
});

/** Logout audit (spec: UserLogout). */
export const USER_LOGOUT_GRID = validateDefinition({
  name: 'UserLogout',
  table: 'UserLogout',
  idColumn: 'Id',
  timeColumn: 'CreatedDate',
  columns: [
    col('id', 'Id', 'number'),
    col('userName', 'UserName', 'string', true),
    col('reasonId', 'ReasonId', 'number'),
    col('outcomeId', 'OutcomeId', 'number'),
    col('remoteIp', 'RemoteIp', 'string', true),
    col('localIp', 'LocalIp', 'string', true),
    col('userAgent', 'UserAgent', 'string', true),
    col('sessionStartedDate', 'SessionStartedDate', 'date', true),
    col('revokedByUser', 'RevokedByUser', 'string', true),
    col('message', 'Message', 'string', true),
    col('createdDate', 'CreatedDate', 'date'),
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
    { name: 'reason', kind: 'string', nullable: true, description: 'The name of reasonId' },
    { name: 'outcome', kind: 'string', nullable: true, description: 'The name of outcomeId' },
  ],
});
