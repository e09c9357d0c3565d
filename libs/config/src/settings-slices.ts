import type { Settings } from './settings';

type SettingKey = keyof Settings;

/**
 * A typed slice of the settings: the names one feature reads, under an injection token of its own. The
 * config module provides each slice as a frozen object holding only those names, so a provider holds the
 * settings it reads and no service holds every secret (JwtKey reaches the token services only, ApiHmacKey
 * the API-key service only, the SMTP password the case notifier only…).
 */
export interface SettingsSlice<K extends SettingKey> {
  readonly name: string;
  readonly token: symbol;
  readonly keys: readonly K[];
}

/** The settings a slice provides. */
export type SliceOf<S> = S extends SettingsSlice<infer K> ? Readonly<Pick<Settings, K>> : never;

function slice<const K extends SettingKey>(name: string, keys: readonly K[]): SettingsSlice<K> {
  return Object.freeze({ name, token: Symbol(`Settings:${name}`), keys: Object.freeze([...keys]) });
}

/** What createRedisClient reads; every feature that opens its own Redis connection has these. */
const REDIS_CLIENT = [
  'RedisConnectionString',
  'RedisSentinelMasterName',
  'RedisSentinelPassword',
  'redisSentinels',
  'InstanceName',
] as const;

export const DATABASE_SETTINGS = slice('Database', [
  'DatabaseProvider',
  'ConnectionString',
  'DataDirectory',
  'RunMigrations',
  'SqlServerRequestTimeoutMilliseconds',
  'SqlServerConnectionTimeoutMilliseconds',
  'SqlServerMigrationTimeoutMilliseconds',
]);
export type DatabaseSettings = SliceOf<typeof DATABASE_SETTINGS>;

export const REDIS_SETTINGS = slice('Redis', [...REDIS_CLIENT]);
export type RedisClientSettings = SliceOf<typeof REDIS_SETTINGS>;

export const TELEMETRY_SETTINGS = slice('Telemetry', [
  'EnableOpenTelemetry',
  'OpenTelemetryPrometheusHost',
  'OpenTelemetryPrometheusPort',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_METRIC_EXPORT_INTERVAL',
  'EventLoopDelayWarnMilliseconds',
  'InstanceName',
]);
export type TelemetrySettings = SliceOf<typeof TELEMETRY_SETTINGS>;

export const CAPTURE_QUEUE_SETTINGS = slice('CaptureQueues', [
  'CaptureQueueFlushIntervalMilliseconds',
  'TelemetryRetentionIntervalMilliseconds',
  'TelemetryRetentionRows',
  'DatabaseProvider',
  'InstanceName',
]);
export type CaptureQueueSettings = SliceOf<typeof CAPTURE_QUEUE_SETTINGS>;

/** Argon2 and the password length rules (identity's hasher and policy). */
export const PASSWORD_SETTINGS = slice('Password', [
  'Argon2MemoryKiB',
  'Argon2Iterations',
  'Argon2Parallelism',
  'PasswordMinimumLength',
  'PasswordMaximumLength',
]);
export type PasswordSettings = SliceOf<typeof PASSWORD_SETTINGS>;

/** Identity's sign-in side: the first start's administrator, the WirePasswordHash draw for unknown names. */
export const IDENTITY_SETTINGS = slice('Identity', [
  'BootstrapAdministratorPassword',
  'WirePasswordHashUnknownPercent',
  'JwtKey',
]);
export type IdentitySettings = SliceOf<typeof IDENTITY_SETTINGS>;

export const API_KEY_SETTINGS = slice('ApiKeys', [
  'ApiHmacKey',
  'ApiHmacKeyPrevious',
  'ApiKeyCacheRefreshIntervalMilliseconds',
  'ApiKeyChangeAckTimeoutMilliseconds',
  ...REDIS_CLIENT,
]);
export type ApiKeySettings = SliceOf<typeof API_KEY_SETTINGS>;

/** Session tokens and cookies, the cookie's CSRF check, the passcode token (JwtKey). */
export const SESSION_TOKEN_SETTINGS = slice('SessionTokens', [
  'JwtKey',
  'sessionAbsoluteLifetimeMs',
  'SessionCookie',
  'CsrfOriginCheck',
]);
export type SessionTokenSettings = SliceOf<typeof SESSION_TOKEN_SETTINGS>;

/** Which sign-in is on and its rules (SignInService, the rate limits, the audit filters, the Login page). */
export const SIGN_IN_SETTINGS = slice('SignIn', [
  'OAuthAuthentication',
  'NegotiateAuthentication',
  'EnableMultifactorAuthentication',
  'PasswordAttempts',
  'PasswordLockoutMilliseconds',
  'PasswordLockoutMaximumMilliseconds',
  'PasswordMinimumLength',
  'PasswordMaximumLength',
  'SignInRateLimitPerMinute',
  'LogoutRevocationTimeoutMilliseconds',
]);
export type SignInSettings = SliceOf<typeof SIGN_IN_SETTINGS>;

export const PASSWORD_TRANSPORT_SETTINGS = slice('PasswordTransport', [
  'PasswordAsymmetricEncryption',
  'PasswordAsymmetricEncryptionPublicKey',
  'PasswordAsymmetricEncryptionPrivateKey',
]);
export type PasswordTransportSettings = SliceOf<typeof PASSWORD_TRANSPORT_SETTINGS>;

/** OpenID Connect; JwtKey seals the transaction cookie (under a key of its own derived from it). */
export const OAUTH_SETTINGS = slice('OAuth', [
  'OAuthAuthentication',
  'OAuthAuthority',
  'OAuthClientId',
  'OAuthClientSecret',
  'OAuthForceGet',
  'OAuthForceRedirect',
  'JwtKey',
]);
export type OAuthSettings = SliceOf<typeof OAUTH_SETTINGS>;

export const NEGOTIATE_SETTINGS = slice('Negotiate', [
  'NegotiateAuthentication',
  'NegotiateKeytab',
  'NegotiateRealm',
  'NegotiateServicePrincipal',
]);
export type NegotiateSettings = SliceOf<typeof NEGOTIATE_SETTINGS>;

export const SECOND_FACTOR_SETTINGS = slice('SecondFactor', [
  'EnableMultifactorAuthentication',
  'MultifactorAuthenticationEndpoint',
  'MultifactorAuthenticationApplicationId',
  'MultifactorAuthenticationClientKey',
  'OutboundHttpMfaAmCertificateBypass',
  'OutboundHttpMfaAmCertificateThumbprint',
  'Port',
]);
export type SecondFactorSettings = SliceOf<typeof SECOND_FACTOR_SETTINGS>;

/** Logout, Revoke Sessions, the streams. */
export const SESSIONS_SETTINGS = slice('Sessions', [
  'LogoutRevocationTimeoutMilliseconds',
  'StreamHeartbeatMilliseconds',
  'revokedSessionCheckMs',
  'sessionAbsoluteLifetimeMs',
  ...REDIS_CLIENT,
]);
export type SessionsSettings = SliceOf<typeof SESSIONS_SETTINGS>;

/** The decisioning pipelines (Archiver, case creation, rollups, the demo model). */
export const ENGINE_SETTINGS = slice('Engine', [
  'ArchiverQueueCapacity',
  'ArchiverWarnThresholdMilliseconds',
  'ArchiveBulkCopyIntervalMilliseconds',
  'ArchiveBulkCopyBatchSize',
  'CaseCreationQueueCapacity',
  'CaseCreationBatchSize',
  'CaseCreationWarnThresholdMilliseconds',
  'StageRollupIntervalMilliseconds',
  'ArchiveRetentionInterval',
  'ArchiveRetentionIntervalValue',
  'ArchivePurgeIntervalMilliseconds',
  'CreateDemoModel',
  'InstanceName',
]);
export type EngineSettings = SliceOf<typeof ENGINE_SETTINGS>;

/** Idempotency-Key: how long first answers are kept, and how often the database store is purged. */
export const IDEMPOTENCY_SETTINGS = slice('Idempotency', [
  'IdempotencyRetentionHours',
  'ArchivePurgeIntervalMilliseconds',
]);
export type IdempotencySettings = SliceOf<typeof IDEMPOTENCY_SETTINGS>;

/** Case notifications and HTTP callbacks (the SMTP password lives here only). */
export const CASE_NOTIFICATION_SETTINGS = slice('CaseNotification', [
  'SmtpHost',
  'SmtpPort',
  'SmtpSecure',
  'SmtpUser',
  'SmtpPassword',
  'SmtpFrom',
  'HttpEndpointTimeoutMilliseconds',
]);
export type CaseNotificationSettings = SliceOf<typeof CASE_NOTIFICATION_SETTINGS>;

/** The grids' protection of the node against heavy reads (docs/grids.md, Heavy reads). */
export const GRID_SETTINGS = slice('Grid', [
  'GridLargeReadConcurrency',
  'GridLargeReadWaitMilliseconds',
  'GridStatementTimeoutMilliseconds',
  'GridUnindexedSortMaxRows',
]);
export type GridSettings = SliceOf<typeof GRID_SETTINGS>;

export const CONSOLE_SETTINGS = slice('Console', ['OAuthAuthentication']);
export type ConsoleSettings = SliceOf<typeof CONSOLE_SETTINGS>;

/** Every slice the config module provides. */
export const SETTINGS_SLICES: readonly SettingsSlice<SettingKey>[] = [
  DATABASE_SETTINGS,
  REDIS_SETTINGS,
  TELEMETRY_SETTINGS,
  CAPTURE_QUEUE_SETTINGS,
  PASSWORD_SETTINGS,
  IDENTITY_SETTINGS,
  API_KEY_SETTINGS,
  SESSION_TOKEN_SETTINGS,
  SIGN_IN_SETTINGS,
  PASSWORD_TRANSPORT_SETTINGS,
  OAUTH_SETTINGS,
  NEGOTIATE_SETTINGS,
  SECOND_FACTOR_SETTINGS,
  SESSIONS_SETTINGS,
  ENGINE_SETTINGS,
  IDEMPOTENCY_SETTINGS,
  CASE_NOTIFICATION_SETTINGS,
  CONSOLE_SETTINGS,
  GRID_SETTINGS,
];

/** The frozen object a slice provides: only its names, taken from the validated settings. */
export function sliceValues<K extends SettingKey>(
  settings: Settings,
  slice_: SettingsSlice<K>,
): Readonly<Pick<Settings, K>> {
  const out: Partial<Pick<Settings, K>> = {};
  for (const key of slice_.keys) out[key] = settings[key];
  return Object.freeze(out as Pick<Settings, K>);
}
