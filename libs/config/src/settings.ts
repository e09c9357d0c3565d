import { accessSync, constants } from 'node:fs';
import { isIP } from 'node:net';
import { hostname } from 'node:os';

/** Interval unit codes of the spec: s seconds, n minutes, h hours, d days. */
export type IntervalUnit = 's' | 'n' | 'h' | 'd';
export type DatabaseProvider = 'sqlite' | 'postgres' | 'mssql';

const UNIT_MS: Record<IntervalUnit, number> = { s: 1000, n: 60_000, h: 3_600_000, d: 86_400_000 };

export function intervalToMilliseconds(unit: IntervalUnit, value: number): number {
  return UNIT_MS[unit] * value;
}

/** A setting that could not be accepted; the message names it and says what is allowed. */
export class SettingError extends Error {
  constructor(
    readonly setting: string,
    readonly allowed: string,
  ) {
    super(`Invalid setting ${setting}: ${allowed}`);
  }
}

type Kind =
  | { type: 'boolean' }
  | { type: 'integer'; min: number; max: number }
  | {
      type: 'string';
      maxLength?: number;
      pattern?: RegExp;
      /** A check the pattern cannot say (TrustProxy's addresses). */
      accepts?: (value: string) => boolean;
      patternText?: string;
    }
  | { type: 'enum'; values: readonly string[]; caseInsensitive?: boolean }
  | { type: 'url'; protocols: readonly string[] };

export interface SettingDefinition {
  name: string;
  kind: Kind;
  /** undefined = optional with no value. */
  default?: string | number | boolean;
  /** Never logged, never echoed in an error. */
  secret?: boolean;
  /** Other environment names honoured when the main one is unset. */
  aliases?: string[];
  description: string;
}

type Extra = { secret?: boolean; aliases?: string[] };

function bool<N extends string>(name: N, def: boolean, description: string) {
  return { name, kind: { type: 'boolean' as const }, default: def, description };
}
function int<N extends string>(name: N, def: number, min: number, max: number, description: string) {
  return { name, kind: { type: 'integer' as const, min, max }, default: def, description };
}
/** An optional whole number with no default (unset means: derived at start, as the description says). */
function optionalInt<N extends string>(name: N, min: number, max: number, description: string) {
  return { name, kind: { type: 'integer' as const, min, max }, description };
}
/** Optional text with no default. */
function text<N extends string>(name: N, description: string, extra: Extra & { kind?: Kind } = {}) {
  const { kind, ...rest } = extra;
  return {
    name,
    kind: (kind ?? { type: 'string' as const, maxLength: 16_384 }) as { type: 'string' },
    description,
    ...rest,
  };
}
function textWithDefault<N extends string>(name: N, def: string, description: string, extra: Extra = {}) {
  return { name, kind: { type: 'string' as const, maxLength: 16_384 }, default: def, description, ...extra };
}
function choice<N extends string, V extends string>(
  name: N,
  values: readonly V[],
  def: V,
  description: string,
) {
  return { name, kind: { type: 'enum' as const, values, caseInsensitive: true }, default: def, description };
}
const UNITS = ['s', 'n', 'h', 'd'] as const;

/** The bound of the shutdown flush (the Archiver drain; capture queues): ShutdownTimeoutMilliseconds leaves room for it. */
export const SHUTDOWN_FLUSH_MS = 20_000;

/** spec: Second factor 4 — the bundled mock answers only while MultifactorAuthenticationClientKey is this. */
export const SHIPPED_MFA_CLIENT_KEY = 'ShippedDefaultClientKey';

/**
 * Every environment setting of the service, under the spec's exact names and with the spec's defaults.
 * The README's settings table is checked against this list by a test.
 */
export const SETTING_DEFINITIONS = [
  // --- hosting (not named by the spec)
  int('Port', 5001, 1, 65535, 'HTTP port. `PORT` is honoured when `Port` is unset.'),
  choice(
    'DatabaseProvider',
    ['sqlite', 'postgres', 'mssql'] as const,
    'sqlite',
    'Relational database: `sqlite` (embedded, file in DataDirectory), `postgres` or `mssql`.',
  ),
  text(
    'ConnectionString',
    'Connection URL for `postgres` (postgres://user:pass@host:port/db) or `mssql` (mssql://user:pass@host:port/db, which must name the database; `encrypt` defaults to true and the server certificate must then be trusted by this host, `trustServerCertificate=true` skips that check: see Databases). Ignored for `sqlite`.',
    {
      secret: true,
      aliases: ['DATABASE_URL'],
    },
  ),
  textWithDefault(
    'DataDirectory',
    './data',
    'Folder for the SQLite file and the generated embedded secrets.',
  ),
  int(
    'SqlServerRequestTimeoutMilliseconds',
    30_000,
    1_000,
    3_600_000,
    'SQL Server only: how long one statement may run before it is cancelled (node-mssql requestTimeout; its own default is 15 s). A statement that times out answers 503 with Retry-After.',
  ),
  int(
    'SqlServerConnectionTimeoutMilliseconds',
    15_000,
    1_000,
    600_000,
    'SQL Server only: how long opening a connection may take (node-mssql connectionTimeout).',
  ),
  int(
    'SqlServerMigrationTimeoutMilliseconds',
    3_600_000,
    1_000,
    86_400_000,
    'SQL Server only: how long one migration statement may run (an ALTER of a populated table rewrites it), at start-up (RunMigrations) and in `npm run migrate`.',
  ),
  text(
    'RedisConnectionString',
    'Optional Redis URL (redis://host:port/db) for shared publish/subscribe between nodes. With RedisSentinels set it is still required, but only its scheme (rediss: TLS to the master), user name, password and database are used: its host and port are ignored.',
    {
      secret: true,
    },
  ),
  text(
    'RedisSentinels',
    'Optional comma-separated Redis Sentinel endpoints (host:port,host:port). When set, the Redis clients ask them for the master named RedisSentinelMasterName, follow its failovers, and the Sentinel events about that master are recorded (CacheSentinelEvent); RedisConnectionString is then still required.',
  ),
  textWithDefault(
    'RedisSentinelMasterName',
    'mymaster',
    'Name of the master the Redis Sentinels monitor (their `sentinel monitor` name). Used only with RedisSentinels.',
  ),
  text(
    'RedisSentinelPassword',
    "Password of the Redis Sentinels themselves, when they require one (their `requirepass`); the master's password comes from RedisConnectionString.",
    {
      secret: true,
    },
  ),
  textWithDefault(
    'InstanceName',
    hostname(),
    'Name of this node in telemetry rows (Instance). Defaults to the host name.',
  ),
  text(
    'JwtKey',
    'HS256 signing key for session tokens, at least 32 characters. Generated once for embedded SQLite; required otherwise.',
    {
      secret: true,
    },
  ),
  choice(
    'LogLevel',
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const,
    'info',
    'Minimum level of the JSON logs.',
  ),
  {
    name: 'TrustProxy',
    kind: {
      type: 'string' as const,
      maxLength: 4096,
      accepts: (value: string) => parseTrustProxy(value) !== null,
      patternText: 'False, True (one hop), a number of hops, or addresses and CIDR ranges of the balancers',
    },
    default: 'False',
    description:
      "Which reverse proxies are trusted to say who the client is: `False` (none: the socket's address is the client), `True` (exactly one hop, the balancer in front), a number of hops, or a comma-separated list of the balancers' addresses and CIDR ranges (`loopback`, `linklocal`, `uniquelocal` too), as Express takes it. The client address, scheme and host are then the values the trusted hops wrote in X-Forwarded-For / -Proto / -Host, never what the client wrote before them; the balancer must set or append all three (docs/SECURITY.md, Behind a balancer).",
  },
  text(
    'CorsAllowedOrigins',
    'Origins (scheme://host[:port], comma-separated) of browser applications served elsewhere that may call the API with an Authorization or x-api-key header: preflights answered, ETag, Location, Retry-After and the request id exposed. Unset: same-origin only. Cookie-authenticated writes from another origin stay refused (CsrfOriginCheck).',
    {
      kind: {
        type: 'string',
        pattern: /^\s*https?:\/\/[^\s/,]+\s*(,\s*https?:\/\/[^\s/,]+\s*)*$/i,
        patternText: 'origins such as https://admin.example.com, separated by commas',
      },
    },
  ),
  bool('RunMigrations', true, 'Run database migrations at start-up.'),
  int(
    'RequestBodyTimeoutMilliseconds',
    30_000,
    1_000,
    600_000,
    'A request whose head and body have not all arrived this long after it began is answered 408 and its connection closed (counted, one request line at info); the headers must arrive within it too (and within 60 s).',
  ),
  int(
    'ShutdownGraceMilliseconds',
    5_000,
    0,
    600_000,
    'On SIGTERM the node first keeps serving this long while GET /api/Ready answers 503 (a load balancer takes it out) and every answer closes its connection; GET /api/Live stays 200.',
  ),
  int(
    'ShutdownDrainMilliseconds',
    10_000,
    100,
    600_000,
    'Then it accepts no new connections, ends event streams, and waits this long at most for in-flight requests; the rest are cut. Then the Archiver and capture queues are flushed (at most 20 s) and the process exits 0.',
  ),
  int(
    'ShutdownTimeoutMilliseconds',
    45_000,
    1_000,
    3_600_000,
    'Forced exit (code 1) this long after the first signal; at least grace + drain + 20 s. Give the orchestrator more (Kubernetes terminationGracePeriodSeconds, Docker stop timeout).',
  ),
  text(
    'BootstrapAdministratorPassword',
    'Password of the first Administrator on an empty database; generated and printed once when unset.',
    {
      secret: true,
    },
  ),
  int('Argon2MemoryKiB', 19_456, 19_456, 4_194_304, 'Argon2id memory per hash in KiB (at least 19 MiB).'),
  int('Argon2Iterations', 2, 2, 100, 'Argon2id iterations (at least 2).'),
  int('Argon2Parallelism', 1, 1, 16, 'Argon2id lanes per hash.'),
  int('PasswordMinimumLength', 12, 8, 1024, 'Shortest password accepted when a password is set.'),
  int(
    'PasswordMaximumLength',
    128,
    8,
    1024,
    'Longest password accepted when a password is set (sign-in refuses more than 1024 before hashing).',
  ),
  int(
    'SignInRateLimitPerMinute',
    60,
    1,
    1_000_000,
    'Requests one client address may make per minute to sign in (ByUserNamePassword and Passcode together), and separately to WirePasswordHash; more are answered 429 with Retry-After. Shared by every node through Redis when RedisConnectionString is set, per node otherwise. Client addresses follow TrustProxy.',
  ),
  optionalInt(
    'WirePasswordHashUnknownPercent',
    0,
    100,
    'Percentage of unknown user names for which WirePasswordHash answers true (each name the same answer while it stays), so that unknown names look like users. Unset: the share of users who have WirePasswordHash at the moment of each ask, read from the database, so it follows every flag change on every node.',
  ),
  int(
    'ApiKeyCacheRefreshIntervalMilliseconds',
    60_000,
    100,
    3_600_000,
    'Full reload of the in-memory active API key set (Redis messages apply changes at once in between).',
  ),
  int(
    'LogoutRevocationTimeoutMilliseconds',
    3_000,
    100,
    60_000,
    'Logout gives up waiting for the database after this long: the browser is still logged out, with X-Service-Logout-Warning.',
  ),
  int(
    'StreamHeartbeatMilliseconds',
    10_000,
    100,
    15_000,
    'Heartbeat of the streaming connections (GET /api/Stream/Telemetry); at most 15 seconds.',
  ),
  // --- the spec's settings
  text(
    'ApiHmacKey',
    'Secret for API key checksums (HMAC-SHA256), at least 32 characters. Generated once for embedded SQLite; required otherwise.',
    {
      secret: true,
    },
  ),
  text(
    'ApiHmacKeyPrevious',
    'The ApiHmacKey before a rotation: keys whose checksum it made are still accepted while it is set (new keys always use ApiHmacKey). See docs/SECURITY.md, Rotation.',
    {
      secret: true,
    },
  ),
  bool('OAuthAuthentication', false, 'Sign in through OpenID Connect (authorization code with PKCE).'),
  bool('NegotiateAuthentication', false, 'Sign in through Negotiate (Kerberos).'),
  text(
    'NegotiateKeytab',
    'Path of the service keytab for Negotiate; set as KRB5_KTNAME for the process at start. Required with NegotiateAuthentication unless KRB5_KTNAME is set.',
  ),
  text(
    'NegotiateServicePrincipal',
    'GSS host-based service name the Negotiate acceptor uses (e.g. HTTP@www.example.com). Unset: any service principal in the keytab.',
    {
      kind: {
        type: 'string',
        pattern: /^[A-Za-z0-9._-]+(@[A-Za-z0-9._-]+)?$/,
        patternText: 'a host-based service name such as HTTP@www.example.com',
      },
    },
  ),
  text(
    'NegotiateRealm',
    'Kerberos realm whose principals may sign in through Negotiate (e.g. EXAMPLE.COM). Unset: any realm the KDC vouches for.',
    {
      kind: {
        type: 'string',
        pattern: /^[^@\s]{1,255}$/,
        patternText: 'a Kerberos realm name such as EXAMPLE.COM',
      },
    },
  ),
  bool(
    'EnableMultifactorAuthentication',
    false,
    'One-time passcode after Username/Password or Negotiate sign-in.',
  ),
  text('OAuthAuthority', 'OpenID Provider issuer URL.'),
  text('OAuthClientId', 'OpenID Connect client id.'),
  text('OAuthClientSecret', 'OpenID Connect client secret.', { secret: true }),
  bool('OAuthForceGet', false, 'Use GET/query-string callbacks instead of form_post.'),
  text(
    'OAuthForceRedirect',
    'Local URL to redirect to after OpenID Connect sign-in, ignoring the propagated one.',
  ),
  text(
    'MultifactorAuthenticationEndpoint',
    'Second-factor endpoint; defaults to {base_url}/api/mfa, the bundled mock.',
    { kind: { type: 'url', protocols: ['http', 'https'] } },
  ),
  textWithDefault(
    'MultifactorAuthenticationApplicationId',
    'ServiceApplication',
    'Second-factor provider application id.',
  ),
  textWithDefault(
    'MultifactorAuthenticationClientKey',
    SHIPPED_MFA_CLIENT_KEY,
    'Second-factor provider client key; the mock only answers while it is at its shipped default.',
    { secret: true },
  ),
  bool(
    'OutboundHttpMfaAmCertificateBypass',
    false,
    'Disable certificate validation for the second-factor endpoint only.',
  ),
  text(
    'OutboundHttpMfaAmCertificateThumbprint',
    'Pin the second-factor endpoint to one certificate by SHA-1 thumbprint (hex).',
    {
      kind: { type: 'string', pattern: /^[0-9A-Fa-f:]{40,59}$/, patternText: 'a SHA-1 thumbprint in hex' },
    },
  ),
  int('PasswordAttempts', 3, 1, 1000, 'Consecutive wrong passwords allowed; one more locks the account.'),
  bool(
    'SessionCookie',
    true,
    'authentication-jwt is a browser-session cookie; otherwise it expires with the token.',
  ),
  choice(
    'SessionAbsoluteLifetimeInterval',
    UNITS,
    'n',
    'Unit of the absolute session lifetime: s, n (minutes), h, d.',
  ),
  int('SessionAbsoluteLifetimeIntervalValue', 720, 1, 1_000_000, 'Count of the absolute session lifetime.'),
  choice('RevokedSessionCheckInterval', UNITS, 's', 'Unit of the streaming-connection session re-check.'),
  int(
    'RevokedSessionCheckIntervalValue',
    30,
    1,
    1_000_000,
    'Count of the streaming-connection session re-check.',
  ),
  bool(
    'PasswordAsymmetricEncryption',
    false,
    'The browser encrypts the password with RSA-OAEP; both keys below are then required.',
  ),
  text('PasswordAsymmetricEncryptionPublicKey', 'RSA public key (PEM).'),
  text('PasswordAsymmetricEncryptionPrivateKey', 'RSA private key (PEM).', { secret: true }),
  bool('CsrfOriginCheck', true, 'Cookie-authenticated writes must be provably same-origin.'),
  bool(
    'EnableOpenTelemetry',
    false,
    'Export metrics (Prometheus scrape endpoint, and OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set).',
  ),
  int(
    'ArchiverWarnThresholdMilliseconds',
    10_000,
    0,
    86_400_000,
    'An Archiver stage slower than this raises an ArchiverWarning.',
  ),
  int(
    'CaseCreationWarnThresholdMilliseconds',
    10_000,
    0,
    86_400_000,
    'A case creation stage slower than this raises a CaseCreationWarning.',
  ),
  // --- capture queues and metric export (spec: Events, Limits)
  int(
    'CaptureQueueFlushIntervalMilliseconds',
    60_000,
    10,
    3_600_000,
    'How often the capture queues are written and CaptureQueueHealth is recorded (spec: once a minute).',
  ),
  int(
    'TelemetryRetentionRows',
    100_000,
    1,
    100_000_000,
    'Rows each telemetry table keeps (spec: each grid holds the last 100000); older rows are trimmed.',
  ),
  int(
    'TelemetryRetentionIntervalMilliseconds',
    60_000,
    10,
    86_400_000,
    'How often the telemetry tables are trimmed to TelemetryRetentionRows.',
  ),
  textWithDefault(
    'OpenTelemetryPrometheusHost',
    '127.0.0.1',
    'Address the Prometheus scrape endpoint binds to when EnableOpenTelemetry is True.',
  ),
  int(
    'OpenTelemetryPrometheusPort',
    9464,
    1,
    65535,
    'Port of the Prometheus scrape endpoint (/metrics) when EnableOpenTelemetry is True.',
  ),
  text(
    'OTEL_EXPORTER_OTLP_ENDPOINT',
    'Standard OpenTelemetry variable: base URL of an OTLP/HTTP receiver; metrics go to <url>/v1/metrics when EnableOpenTelemetry is True.',
    { kind: { type: 'url', protocols: ['http', 'https'] } },
  ),
  int(
    'OTEL_METRIC_EXPORT_INTERVAL',
    60_000,
    10,
    86_400_000,
    'Standard OpenTelemetry variable: milliseconds between OTLP metric exports.',
  ),
  // --- decisioning pipelines (not named by the spec beyond the rollup interval)
  int(
    'StageRollupIntervalMilliseconds',
    60_000,
    50,
    3_600_000,
    'How often the Archiver and case creation stage rollups are written (one row per stage that ran).',
  ),
  int(
    'ArchiverQueueCapacity',
    10_000,
    1,
    1_000_000,
    'Invocations waiting for the Archiver; when full, Invoke answers 503 with Retry-After before any side effect.',
  ),
  int(
    'ArchiveBulkCopyIntervalMilliseconds',
    1_000,
    10,
    600_000,
    'How often buffered archive rows are bulk-inserted (BulkCopyArchiveBuffer).',
  ),
  int(
    'ArchiveBulkCopyBatchSize',
    2_000,
    1,
    100_000,
    'Buffered archive rows that trigger a bulk insert before the interval elapses.',
  ),
  int(
    'CaseCreationQueueCapacity',
    10_000,
    1,
    1_000_000,
    'Activations waiting for case creation (the case lag bound); while it holds this many, Invoke answers 503 with Retry-After before any side effect. The Archiver never waits for case creation, and nothing accepted is dropped.',
  ),
  int(
    'CaseCreationBatchSize',
    500,
    1,
    10_000,
    'Activations case creation decides together: one open-case look-up and one multi-row upsert per batch.',
  ),
  int(
    'HttpEndpointTimeoutMilliseconds',
    5_000,
    1,
    600_000,
    'Timeout of a case workflow status HTTP callback.',
  ),
  text(
    'SmtpHost',
    'SMTP server for case notifications; notifications fail (logged and counted) while unset.',
  ),
  int('SmtpPort', 25, 1, 65535, 'SMTP server port.'),
  bool('SmtpSecure', false, 'Connect to the SMTP server over TLS from the start (port 465 style).'),
  text('SmtpUser', 'SMTP user name, when the server needs authentication.'),
  text('SmtpPassword', 'SMTP password.', { secret: true }),
  textWithDefault('SmtpFrom', 'decisioning@localhost', 'Sender address of case notifications.'),
  bool(
    'CreateDemoModel',
    true,
    'On start, create the demo model, rule, workflow and statuses in the landlord tenant when missing.',
  ),
] as const;

type Definitions = typeof SETTING_DEFINITIONS;
type ValueOf<K> = K extends { type: 'boolean' }
  ? boolean
  : K extends { type: 'integer' }
    ? number
    : K extends { type: 'enum'; values: readonly (infer V)[] }
      ? V
      : string;
type SettingName = Definitions[number]['name'];
type DefinitionOf<N extends SettingName> = Extract<Definitions[number], { name: N }>;

/** The validated settings. Optional settings with no default are undefined. */
export type SettingValues = {
  [N in SettingName]: DefinitionOf<N> extends { default: unknown }
    ? ValueOf<DefinitionOf<N>['kind']>
    : ValueOf<DefinitionOf<N>['kind']> | undefined;
};

/** A Redis Sentinel's address, from RedisSentinels. */
export interface SentinelEndpoint {
  host: string;
  port: number;
}

/**
 * RedisSentinels parsed: `host:port` entries separated by commas (an IPv6 host in brackets, `[::1]:26379`),
 * or null when any entry is not one.
 */
export function parseSentinelEndpoints(value: string): SentinelEndpoint[] | null {
  const out: SentinelEndpoint[] = [];
  for (const entry of value.split(',').map((e) => e.trim())) {
    const m = /^(\[[^\]\s]+\]|[^\s:[\]]+):(\d{1,5})$/.exec(entry);
    if (!m) return null;
    const port = Number(m[2]);
    if (port < 1 || port > 65535) return null;
    out.push({ host: m[1].replace(/^\[(.*)\]$/, '$1'), port });
  }
  return out;
}

/** What Express's 'trust proxy' takes from TrustProxy: nothing, a number of hops, or addresses and ranges. */
export type TrustedProxies = false | number | string[];

/** The Express presets of address ranges that TrustProxy may name. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** An address, an address/prefix (CIDR) or a preset. */
function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address, bits, ...rest] = entry.split('/');
  const version = isIP(address);
  if (!version || rest.length) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128));
}

/**
 * TrustProxy as Express's 'trust proxy' takes it (issue 37): False → nothing; True → exactly one hop (not
 * Express's own `true`, which would trust every hop, so the client could choose its address); a whole number →
 * that many hops; otherwise a comma-separated list of addresses, CIDR ranges and presets. null when it is none
 * of these.
 */
export function parseTrustProxy(value: string): TrustedProxies | null {
  const v = value.trim().toLowerCase();
  if (v === 'false') return false;
  if (v === 'true') return 1;
  if (/^\d{1,4}$/.test(v)) return Number(v) === 0 ? false : Number(v);
  const entries = v.split(',').map((e) => e.trim());
  return entries.length && entries.every(isProxyAddress) ? entries : null;
}

export interface DerivedSettings {
  /** TrustProxy parsed (parseTrustProxy): what Express's 'trust proxy' is set to. */
  trustProxy: TrustedProxies;
  /** SessionAbsoluteLifetimeInterval/Value in milliseconds. */
  sessionAbsoluteLifetimeMs: number;
  /** RevokedSessionCheckInterval/Value in milliseconds. */
  revokedSessionCheckMs: number;
  /** RedisSentinels parsed; empty when unset (a single Redis endpoint, or no Redis). */
  redisSentinels: readonly SentinelEndpoint[];
}

export type Settings = Readonly<SettingValues & DerivedSettings>;

function describeAllowed(kind: Kind): string {
  switch (kind.type) {
    case 'boolean':
      return 'allowed values are True or False (any case)';
    case 'integer':
      return `allowed values are whole numbers from ${kind.min} to ${kind.max}`;
    case 'enum':
      return `allowed values are ${kind.values.join(', ')}`;
    case 'url':
      return `allowed values are URLs with scheme ${kind.protocols.join(', ')}`;
    case 'string':
      return kind.patternText
        ? `allowed values are ${kind.patternText}`
        : `allowed values are text of at most ${kind.maxLength ?? 16384} characters`;
  }
}

function parseValue(def: SettingDefinition, raw: string): string | number | boolean {
  const k = def.kind;
  const fail = (): never => {
    throw new SettingError(def.name, describeAllowed(k));
  };
  switch (k.type) {
    case 'boolean': {
      const v = raw.trim().toLowerCase();
      if (v === 'true') return true;
      if (v === 'false') return false;
      return fail();
    }
    case 'integer': {
      const v = raw.trim();
      if (!/^-?\d{1,16}$/.test(v)) return fail();
      const n = Number(v);
      if (!Number.isSafeInteger(n) || n < k.min || n > k.max) return fail();
      return n;
    }
    case 'enum': {
      const v = k.caseInsensitive ? raw.trim().toLowerCase() : raw.trim();
      if (!k.values.includes(v)) return fail();
      return v;
    }
    case 'url': {
      try {
        const u = new URL(raw);
        if (!k.protocols.includes(u.protocol.replace(/:$/, ''))) return fail();
      } catch {
        return fail();
      }
      return raw;
    }
    case 'string': {
      if (k.maxLength !== undefined && raw.length > k.maxLength) return fail();
      if (k.pattern && !k.pattern.test(raw)) return fail();
      if (k.accepts && !k.accepts(raw)) return fail();
      return raw;
    }
  }
}

/**
 * Reads and validates every setting from the environment. Throws SettingError naming the first bad
 * setting. Empty strings count as unset.
 */
export function loadSettings(
  env: NodeJS.ProcessEnv,
  definitions: readonly SettingDefinition[] = SETTING_DEFINITIONS,
): Settings {
  const out: Record<string, string | number | boolean | undefined> = {};
  for (const def of definitions) {
    let raw = env[def.name];
    for (const alias of [...(def.aliases ?? []), ...(def.name === 'Port' ? ['PORT'] : [])]) {
      if (raw === undefined || raw === '') raw = env[alias];
    }
    out[def.name] = raw === undefined || raw === '' ? def.default : parseValue(def, raw);
  }
  const s = out as unknown as SettingValues;
  crossCheck(s, env);
  return Object.freeze({
    ...s,
    sessionAbsoluteLifetimeMs: intervalToMilliseconds(
      s.SessionAbsoluteLifetimeInterval,
      s.SessionAbsoluteLifetimeIntervalValue,
    ),
    revokedSessionCheckMs: intervalToMilliseconds(
      s.RevokedSessionCheckInterval,
      s.RevokedSessionCheckIntervalValue,
    ),
    redisSentinels: Object.freeze(s.RedisSentinels ? (parseSentinelEndpoints(s.RedisSentinels) ?? []) : []),
    trustProxy: parseTrustProxy(s.TrustProxy) ?? false,
  });
}

/**
 * Negotiate needs the service key: NegotiateKeytab, else the standard KRB5_KTNAME. A keytab that cannot be
 * read would only show up as every sign-in failing, so it stops the start instead.
 */
function checkNegotiateKeytab(keytab: string | undefined, env: NodeJS.ProcessEnv): void {
  if (keytab) {
    try {
      accessSync(keytab, constants.R_OK);
    } catch {
      throw new SettingError('NegotiateKeytab', 'allowed values are paths of a readable keytab file');
    }
    return;
  }
  if (!env.KRB5_KTNAME)
    throw new SettingError(
      'NegotiateKeytab',
      'required when NegotiateAuthentication is True (or set the standard KRB5_KTNAME)',
    );
}

function crossCheck(s: SettingValues, env: NodeJS.ProcessEnv): void {
  if (s.PasswordAsymmetricEncryption) {
    // spec: Password transport hardening 2 — refuse to start when either key is missing.
    if (!s.PasswordAsymmetricEncryptionPublicKey)
      throw new SettingError(
        'PasswordAsymmetricEncryptionPublicKey',
        'required when PasswordAsymmetricEncryption is True',
      );
    if (!s.PasswordAsymmetricEncryptionPrivateKey)
      throw new SettingError(
        'PasswordAsymmetricEncryptionPrivateKey',
        'required when PasswordAsymmetricEncryption is True',
      );
  }
  if (s.OAuthAuthentication && s.NegotiateAuthentication) {
    // spec: Identity schemes 1 — mutually exclusive.
    throw new SettingError('NegotiateAuthentication', 'cannot be True while OAuthAuthentication is True');
  }
  if (s.OAuthAuthentication) {
    for (const name of ['OAuthAuthority', 'OAuthClientId'] as const) {
      if (!s[name]) throw new SettingError(name, 'required when OAuthAuthentication is True');
    }
    let authority: URL | undefined;
    try {
      authority = new URL(s.OAuthAuthority ?? '');
    } catch {
      /* reported below */
    }
    if (!authority || (authority.protocol !== 'https:' && authority.protocol !== 'http:'))
      throw new SettingError(
        'OAuthAuthority',
        'allowed values are http(s) URLs of an OpenID Provider issuer',
      );
  }
  // spec: OAuth 5 — the explicit redirect is a local URL too (the open-redirect guard applies to it).
  const forced = s.OAuthForceRedirect;
  if (forced !== undefined && (!forced.startsWith('/') || forced.startsWith('//') || /[\\\s]/.test(forced)))
    throw new SettingError('OAuthForceRedirect', 'allowed values are local paths starting with a single /');
  if (s.NegotiateAuthentication) {
    checkNegotiateKeytab(s.NegotiateKeytab, env);
  }
  if (s.DatabaseProvider !== 'sqlite') {
    if (!s.ConnectionString)
      throw new SettingError('ConnectionString', `required when DatabaseProvider is ${s.DatabaseProvider}`);
    const scheme = s.DatabaseProvider === 'postgres' ? ['postgres', 'postgresql'] : ['mssql', 'sqlserver'];
    let url: URL | undefined;
    try {
      url = new URL(s.ConnectionString);
    } catch {
      /* reported below */
    }
    if (!url || !scheme.includes(url.protocol.replace(/:$/, '')))
      throw new SettingError(
        'ConnectionString',
        `allowed values are URLs with scheme ${scheme.join(' or ')}`,
      );
    if (s.DatabaseProvider === 'mssql') checkSqlServerUrl(url);
    for (const name of ['JwtKey', 'ApiHmacKey'] as const) {
      if (!s[name]) throw new SettingError(name, `required when DatabaseProvider is ${s.DatabaseProvider}`);
    }
  }
  if (
    s.ShutdownTimeoutMilliseconds <
    s.ShutdownGraceMilliseconds + s.ShutdownDrainMilliseconds + SHUTDOWN_FLUSH_MS
  )
    throw new SettingError(
      'ShutdownTimeoutMilliseconds',
      `allowed values are at least ShutdownGraceMilliseconds + ShutdownDrainMilliseconds + ${SHUTDOWN_FLUSH_MS} (the flush bound)`,
    );
  for (const name of ['JwtKey', 'ApiHmacKey', 'ApiHmacKeyPrevious'] as const) {
    const v = s[name];
    if (v !== undefined && v.length < 32)
      throw new SettingError(name, 'allowed values are secrets of at least 32 characters');
  }
  if (
    s.OutboundHttpMfaAmCertificateThumbprint !== undefined &&
    !/^[0-9a-f]{40}$/i.test(s.OutboundHttpMfaAmCertificateThumbprint.replace(/:/g, ''))
  )
    throw new SettingError(
      'OutboundHttpMfaAmCertificateThumbprint',
      'allowed values are a SHA-1 thumbprint in hex',
    );
  if (s.RedisConnectionString) {
    let protocol = '';
    try {
      protocol = new URL(s.RedisConnectionString).protocol;
    } catch {
      /* reported below */
    }
    if (protocol !== 'redis:' && protocol !== 'rediss:')
      throw new SettingError('RedisConnectionString', 'allowed values are URLs with scheme redis or rediss');
  }
  if (s.RedisSentinels) {
    if (!parseSentinelEndpoints(s.RedisSentinels))
      throw new SettingError(
        'RedisSentinels',
        'allowed values are comma-separated host:port endpoints with ports from 1 to 65535',
      );
    // The URL still gives the master's scheme, credentials and database.
    if (!s.RedisConnectionString)
      throw new SettingError('RedisConnectionString', 'required when RedisSentinels is set');
    if (/\s/.test(s.RedisSentinelMasterName))
      throw new SettingError('RedisSentinelMasterName', 'allowed values are names without spaces');
  }
}

/**
 * A SQL Server URL must name its database: without one the login's default database (often master) would
 * receive the migrations. encrypt and trustServerCertificate take true or false only (a typo must not
 * quietly mean the default).
 */
function checkSqlServerUrl(url: URL): void {
  if (!url.pathname.replace(/^\//, ''))
    throw new SettingError(
      'ConnectionString',
      'a SQL Server URL must name the database (mssql://user:pass@host:1433/database); without one SQL Server ' +
        "uses the login's default database, often master",
    );
  for (const name of ['encrypt', 'trustServerCertificate']) {
    const v = url.searchParams.get(name);
    if (v !== null && v !== 'true' && v !== 'false')
      throw new SettingError(
        'ConnectionString',
        `allowed values of ${name} in a SQL Server URL are true or false`,
      );
  }
}

/** Names of the settings that must never appear in a log line or an error body. */
export const SECRET_SETTING_NAMES: readonly string[] = (SETTING_DEFINITIONS as readonly SettingDefinition[])
  .filter((d) => d.secret)
  .map((d) => d.name);
