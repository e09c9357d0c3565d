import { accessSync, constants } from 'node:fs';
import { SettingError, SHUTDOWN_FLUSH_MS } from './setting-kinds';
import { parseSentinelEndpoints } from './setting-parsers';
import type { SettingValues } from './settings';

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

/** The rules between settings, after each one was read on its own: the first broken one is thrown. */
export function crossCheck(s: SettingValues, env: NodeJS.ProcessEnv): void {
  checkSignInSchemes(s, env);
  checkDatabase(s);
  checkSecretsAndShutdown(s);
  checkRedis(s);
}

/** Password transport, OpenID Connect and Negotiate. */
function checkSignInSchemes(s: SettingValues, env: NodeJS.ProcessEnv): void {
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
}

/** A network database needs its URL (of its own scheme) and the two keys that SQLite would generate. */
function checkDatabase(s: SettingValues): void {
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
}

/** The shutdown's bounds, the secrets' length, the second factor's certificate thumbprint. */
function checkSecretsAndShutdown(s: SettingValues): void {
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
}

/** Redis: its URL's scheme, and Sentinels with the URL that still gives the master's credentials. */
function checkRedis(s: SettingValues): void {
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
