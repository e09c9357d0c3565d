import { hostname } from 'node:os';
import { parseTrustProxy, parseTrustProxyHeaders } from './setting-parsers';
import { bool, choice, int, optionalInt, text, textWithDefault } from './setting-kinds';

/** The hosting settings (not named by the spec): ports, database, logging, limits, Redis, shutdown. */
export const HOSTING_SETTINGS = [
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
  int(
    'GridLargeReadConcurrency',
    2,
    1,
    64,
    'Large grid reads (a grid answer or CSV export of more than 1 000 rows) one node serves at once; more wait their turn for GridLargeReadWaitMilliseconds, then answer 503 with Retry-After (docs/grids.md, Heavy reads).',
  ),
  int(
    'GridLargeReadWaitMilliseconds',
    10_000,
    0,
    120_000,
    'How long a large grid read waits for its turn (GridLargeReadConcurrency) before it is answered 503 with Retry-After.',
  ),
  int(
    'GridStatementTimeoutMilliseconds',
    10_000,
    100,
    3_600_000,
    'PostgreSQL: how long one statement of a large grid read may run (statement_timeout) before it is cancelled and answered 503 with Retry-After. SQL Server: SqlServerRequestTimeoutMilliseconds. SQLite cannot cancel a statement: there every statement of a read is one short indexed batch.',
  ),
  int(
    'GridUnindexedSortMaxRows',
    10_000,
    0,
    100_000,
    'Rows a filtered window may hold for a grid to sort it by a column without an index (any but the time column); a larger window sorted so is a 400 problem naming sortField (narrow from, to, or filter).',
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
      "Which reverse proxies are trusted to say who the client is: `False` (none: the socket's address is the client), `True` (exactly one hop, the balancer in front), a number of hops, or a comma-separated list of the balancers' addresses and CIDR ranges (`loopback`, `linklocal`, `uniquelocal` too), as Express takes it. The client address is then read from X-Forwarded-For hop by hop, never what the client wrote before the trusted hops; the scheme and host from X-Forwarded-Proto / -Host, which the balancer must overwrite (Express reads their first value; an appending balancer needs TrustProxyHeaders=X-Forwarded-For) (docs/SECURITY.md, Behind a balancer).",
  },
  {
    name: 'TrustProxyHeaders',
    kind: {
      type: 'string' as const,
      maxLength: 256,
      accepts: (value: string) => parseTrustProxyHeaders(value) !== null,
      patternText:
        'X-Forwarded-For, and X-Forwarded-Proto and X-Forwarded-Host if the balancer sets them, comma-separated',
    },
    default: 'X-Forwarded-For, X-Forwarded-Proto, X-Forwarded-Host',
    description:
      "With TrustProxy, the forwarded headers the trusted balancer sets, and so the only ones read: X-Forwarded-For always (the client address), X-Forwarded-Proto and X-Forwarded-Host only when listed. A balancer that sets only X-Forwarded-For must be run with `X-Forwarded-For` alone, or a client's own X-Forwarded-Proto and -Host would pass through it and be believed. The node logs the headers it trusts at start.",
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
    'PasswordLockoutMilliseconds',
    300_000,
    1_000,
    86_400_000,
    "How long the automatic password lock (more than PasswordAttempts consecutive wrong passwords) lasts the first time; each consecutive lock lasts twice as long as the one before, up to PasswordLockoutMaximumMilliseconds. It only stops new password sign-ins (sessions and API keys keep working); an administrator's Unlock lifts it at once.",
  ),
  int(
    'PasswordLockoutMaximumMilliseconds',
    3_600_000,
    1_000,
    604_800_000,
    'The longest an automatic password lock lasts, however many consecutive locks came before it.',
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
    'ApiKeyChangeAckTimeoutMilliseconds',
    2_000,
    0,
    60_000,
    'With Redis, how long the answer to an API-key creation or revocation (and to a change of who may act) waits for every node subscribed to apply it and say so. Past it the answer goes out anyway, the nodes that did not answer are logged and counted (service.api_keys.changes.unacknowledged), and they apply the change at their next refresh (ApiKeyCacheRefreshIntervalMilliseconds) at the latest.',
  ),
  int(
    'LogoutRevocationTimeoutMilliseconds',
    3_000,
    100,
    60_000,
    'Logout gives up waiting for the database after this long: the browser is still logged out, with X-Service-Logout-Warning. Also the longest wait for the UserLogout row of Revoke Sessions and of a deactivation, Unlock or password reset by an administrator (the answer stays a success, the failure is logged).',
  ),
  int(
    'StreamHeartbeatMilliseconds',
    10_000,
    100,
    15_000,
    'Heartbeat of the streaming connections (GET /api/Stream/Telemetry); at most 15 seconds.',
  ),
] as const;
