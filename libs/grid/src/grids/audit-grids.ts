import { AuthenticationType, FailureType, LogoutOutcome, LogoutReason } from '@app/audit';
import { GridColumn, validateDefinition } from '../grid-definition';

const col = (name: string, column: string, kind: GridColumn['kind']): GridColumn => ({ name, column, kind });
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
    col('remoteIp', 'RemoteIp', 'string'),
    col('localIp', 'LocalIp', 'string'),
    col('userAgent', 'UserAgent', 'string'),
    col('authenticationTypeId', 'AuthenticationTypeId', 'number'),
    col('failed', 'Failed', 'boolean'),
    col('failureTypeId', 'FailureTypeId', 'number'),
    col('failureMessage', 'FailureMessage', 'string'),
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
});

/** Logout audit (spec: UserLogout). */
export const USER_LOGOUT_GRID = validateDefinition({
  name: 'UserLogout',
  table: 'UserLogout',
  idColumn: 'Id',
  timeColumn: 'CreatedDate',
  columns: [
    col('id', 'Id', 'number'),
    col('userName', 'UserName', 'string'),
    col('reasonId', 'ReasonId', 'number'),
    col('outcomeId', 'OutcomeId', 'number'),
    col('remoteIp', 'RemoteIp', 'string'),
    col('localIp', 'LocalIp', 'string'),
    col('userAgent', 'UserAgent', 'string'),
    col('sessionStartedDate', 'SessionStartedDate', 'date'),
    col('revokedByUser', 'RevokedByUser', 'string'),
    col('message', 'Message', 'string'),
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
});
