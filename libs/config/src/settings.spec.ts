import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  intervalToMilliseconds,
  loadSettings,
  SECRET_SETTING_NAMES,
  SettingError,
  SETTING_DEFINITIONS,
} from './settings';

const load = (env: Record<string, string>) => loadSettings(env);
const errorOf = (env: Record<string, string>): SettingError => {
  try {
    load(env);
  } catch (e) {
    if (e instanceof SettingError) return e;
    throw e;
  }
  throw new Error('expected a SettingError');
};

/** A SQL Server start with everything else it requires. */
const sqlServer = (ConnectionString: string) => ({
  DatabaseProvider: 'mssql',
  ConnectionString,
  JwtKey: 'k'.repeat(32),
  ApiHmacKey: 'k'.repeat(32),
});

describe('settings', () => {
  it('applies the spec defaults with no environment', () => {
    const s = load({});
    expect(s).toMatchObject({
      Port: 5001,
      DatabaseProvider: 'sqlite',
      DataDirectory: './data',
      PasswordAttempts: 3,
      SessionCookie: true,
      SessionAbsoluteLifetimeInterval: 'n',
      SessionAbsoluteLifetimeIntervalValue: 720,
      RevokedSessionCheckInterval: 's',
      RevokedSessionCheckIntervalValue: 30,
      PasswordAsymmetricEncryption: false,
      CsrfOriginCheck: true,
      EnableOpenTelemetry: false,
      ArchiverWarnThresholdMilliseconds: 10_000,
      CaseCreationWarnThresholdMilliseconds: 10_000,
      TrustProxy: 'False',
      trustProxy: false,
      RunMigrations: true,
      OAuthAuthentication: false,
      NegotiateAuthentication: false,
      EnableMultifactorAuthentication: false,
    });
    expect(s.sessionAbsoluteLifetimeMs).toBe(12 * 3600 * 1000);
    expect(s.revokedSessionCheckMs).toBe(30_000);
    expect(s.RedisConnectionString).toBeUndefined();
    expect(s.InstanceName.length).toBeGreaterThan(0);
  });

  it.each(['True', 'TRUE', 'true', ' tRuE '])('reads %p as true', (v) =>
    expect(load({ SessionCookie: v }).SessionCookie).toBe(true),
  );

  // What Express's 'trust proxy' takes, except that True is exactly one hop.
  it.each([
    ['False', false],
    ['True', 1],
    [' true ', 1],
    ['0', false],
    ['2', 2],
    ['10.0.0.5', ['10.0.0.5']],
    ['10.0.0.0/8, 192.168.1.0/24 ,::1', ['10.0.0.0/8', '192.168.1.0/24', '::1']],
    ['loopback, fd00::/8', ['loopback', 'fd00::/8']],
  ] as const)('reads TrustProxy %p as %p', (v, trusted) =>
    expect(load({ TrustProxy: v }).trustProxy).toEqual(trusted),
  );
  it.each([
    'yes',
    '-1',
    '10.0.0.0/33',
    '::1/129',
    '10.0.0',
    'example.com',
    '10.0.0.1,,10.0.0.2',
    '10.0.0.1/8/1',
  ])('refuses TrustProxy %p, naming it', (v) =>
    expect(errorOf({ TrustProxy: v }).setting).toBe('TrustProxy'),
  );
  it.each(['False', 'FALSE', 'false'])('reads %p as false', (v) =>
    expect(load({ SessionCookie: v }).SessionCookie).toBe(false),
  );
  it.each(['yes', '1', 'on', 'truthy'])('refuses boolean %p', (v) =>
    expect(errorOf({ SessionCookie: v }).setting).toBe('SessionCookie'),
  );

  it.each([
    ['s', 30, 30_000],
    ['n', 720, 43_200_000],
    ['h', 2, 7_200_000],
    ['d', 1, 86_400_000],
  ] as const)('converts interval %s/%d to %d ms', (unit, value, ms) => {
    expect(intervalToMilliseconds(unit, value)).toBe(ms);
    expect(
      load({
        SessionAbsoluteLifetimeInterval: unit.toUpperCase(),
        SessionAbsoluteLifetimeIntervalValue: String(value),
      }).sessionAbsoluteLifetimeMs,
    ).toBe(ms);
  });

  it.each([
    [{ PasswordAttempts: 'abc' }, 'PasswordAttempts'],
    [{ PasswordAttempts: '3.5' }, 'PasswordAttempts'],
    [{ PasswordAttempts: '0' }, 'PasswordAttempts'],
    [{ SessionAbsoluteLifetimeInterval: 'x' }, 'SessionAbsoluteLifetimeInterval'],
    [{ RevokedSessionCheckIntervalValue: '-1' }, 'RevokedSessionCheckIntervalValue'],
    [{ DatabaseProvider: 'oracle' }, 'DatabaseProvider'],
    [{ Port: '0' }, 'Port'],
    [{ DatabaseProvider: 'postgres' }, 'ConnectionString'],
    [
      {
        DatabaseProvider: 'postgres',
        ConnectionString: 'mysql://x/y',
        JwtKey: 'k'.repeat(32),
        ApiHmacKey: 'k'.repeat(32),
      },
      'ConnectionString',
    ],
    [{ DatabaseProvider: 'postgres', ConnectionString: 'postgres://x/y' }, 'JwtKey'],
    // SQL Server: the database must be named (else the login's default, often master, gets the schema).
    [sqlServer('mssql://u:p@sql.example:1433'), 'ConnectionString'],
    [sqlServer('mssql://u:p@sql.example:1433/'), 'ConnectionString'],
    [sqlServer('sqlserver://u:p@sql.example/?encrypt=true'), 'ConnectionString'],
    [sqlServer('mssql://u:p@sql.example/service?trustServerCertificate=yes'), 'ConnectionString'],
    [sqlServer('mssql://u:p@sql.example/service?encrypt=1'), 'ConnectionString'],
    [{ JwtKey: 'short' }, 'JwtKey'],
    [
      { PasswordAsymmetricEncryption: 'True', PasswordAsymmetricEncryptionPrivateKey: 'x' },
      'PasswordAsymmetricEncryptionPublicKey',
    ],
    [
      { PasswordAsymmetricEncryption: 'True', PasswordAsymmetricEncryptionPublicKey: 'x' },
      'PasswordAsymmetricEncryptionPrivateKey',
    ],
    [
      {
        OAuthAuthentication: 'True',
        NegotiateAuthentication: 'True',
        OAuthAuthority: 'https://x',
        OAuthClientId: 'c',
      },
      'NegotiateAuthentication',
    ],
    [{ RedisConnectionString: 'http://localhost' }, 'RedisConnectionString'],
    [{ RedisConnectionString: 'redis://r', RedisSentinels: 'sentinel-host' }, 'RedisSentinels'],
    [{ RedisConnectionString: 'redis://r', RedisSentinels: ':26379' }, 'RedisSentinels'],
    [{ RedisConnectionString: 'redis://r', RedisSentinels: 'h:0' }, 'RedisSentinels'],
    [{ RedisConnectionString: 'redis://r', RedisSentinels: 'h:65536' }, 'RedisSentinels'],
    [{ RedisConnectionString: 'redis://r', RedisSentinels: 'h:26379,,h2:26379' }, 'RedisSentinels'],
    [{ RedisConnectionString: 'redis://r', RedisSentinels: 'h 1:26379' }, 'RedisSentinels'],
    [{ RedisSentinels: 'h:26379' }, 'RedisConnectionString'],
    [
      { RedisConnectionString: 'redis://r', RedisSentinels: 'h:26379', RedisSentinelMasterName: 'my master' },
      'RedisSentinelMasterName',
    ],
    [{ OAuthAuthentication: 'True', OAuthClientId: 'c' }, 'OAuthAuthority'],
    [{ OAuthAuthentication: 'True', OAuthAuthority: 'https://x' }, 'OAuthClientId'],
    [{ OAuthAuthentication: 'True', OAuthAuthority: 'idp.example', OAuthClientId: 'c' }, 'OAuthAuthority'],
    [{ OAuthForceRedirect: 'https://evil.example/' }, 'OAuthForceRedirect'],
    [{ OAuthForceRedirect: '//evil.example' }, 'OAuthForceRedirect'],
    [{ OAuthForceRedirect: '/\\evil.example' }, 'OAuthForceRedirect'],
    [{ OutboundHttpMfaAmCertificateThumbprint: 'ab:cd' }, 'OutboundHttpMfaAmCertificateThumbprint'],
    [{ MultifactorAuthenticationEndpoint: 'ftp://mfa.example' }, 'MultifactorAuthenticationEndpoint'],
    // Negotiate needs the service key, named or through the standard KRB5_KTNAME, and readable.
    [{ NegotiateAuthentication: 'True' }, 'NegotiateKeytab'],
    [{ NegotiateAuthentication: 'True', NegotiateKeytab: '/nonexistent/http.keytab' }, 'NegotiateKeytab'],
    [{ NegotiateServicePrincipal: 'HTTP/host@REALM' }, 'NegotiateServicePrincipal'],
    [{ NegotiateRealm: 'A@B' }, 'NegotiateRealm'],
    [{ OutboundHttpMfaAmCertificateThumbprint: 'zz' }, 'OutboundHttpMfaAmCertificateThumbprint'],
  ])('refuses %p naming %s and what is allowed', (env, setting) => {
    const e = errorOf(env);
    expect(e.setting).toBe(setting);
    expect(e.message).toContain(setting);
    expect(e.allowed.length).toBeGreaterThan(5);
  });

  it('starts with OAuthAuthentication True once the provider is named (OpenID Connect is built)', () => {
    const s = load({
      OAuthAuthentication: 'True',
      OAuthAuthority: 'https://idp.example',
      OAuthClientId: 'c',
      OAuthClientSecret: 'client-secret',
    });
    expect(s.OAuthAuthentication).toBe(true);
    expect(s.OAuthForceGet).toBe(false);
  });

  it('starts with EnableMultifactorAuthentication True (the second factor is built)', () => {
    const s = load({
      EnableMultifactorAuthentication: 'True',
      OutboundHttpMfaAmCertificateThumbprint: Array(20).fill('Ab').join(':'),
    });
    expect(s.EnableMultifactorAuthentication).toBe(true);
    expect(s.MultifactorAuthenticationClientKey).toBe('ShippedDefaultClientKey');
    expect(s.MultifactorAuthenticationEndpoint).toBeUndefined();
  });

  it('starts with NegotiateAuthentication when a readable keytab is named, or KRB5_KTNAME is set', () => {
    const dir = mkdtempSync(join(tmpdir(), 'settings-keytab-'));
    const keytab = join(dir, 'http.keytab');
    writeFileSync(keytab, '');
    try {
      const s = load({
        NegotiateAuthentication: 'True',
        NegotiateKeytab: keytab,
        NegotiateServicePrincipal: 'HTTP@www.example.com',
        NegotiateRealm: 'EXAMPLE.COM',
      });
      expect(s).toMatchObject({
        NegotiateAuthentication: true,
        NegotiateKeytab: keytab,
        NegotiateServicePrincipal: 'HTTP@www.example.com',
        NegotiateRealm: 'EXAMPLE.COM',
      });
      expect(
        load({ NegotiateAuthentication: 'True', KRB5_KTNAME: 'FILE:/etc/http.keytab' }).NegotiateKeytab,
      ).toBe(undefined);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('never puts a secret value in the error message', () => {
    const e = errorOf({ JwtKey: 'tiny-secret' });
    expect(e.message).not.toContain('tiny-secret');
    const e2 = errorOf({ RedisConnectionString: 'http://user:pa55word@host' });
    expect(e2.message).not.toContain('pa55word');
  });

  it('reads RedisSentinels as host:port endpoints (IPv6 in brackets), with mymaster by default', () => {
    const s = load({
      RedisConnectionString: 'redis://:pw@ignored:1/2',
      RedisSentinels: 's1.example:26379, 10.0.0.2:26380,[::1]:65535',
    });
    expect(s.redisSentinels).toEqual([
      { host: 's1.example', port: 26379 },
      { host: '10.0.0.2', port: 26380 },
      { host: '::1', port: 65535 },
    ]);
    expect(s.RedisSentinelMasterName).toBe('mymaster');
    expect(s.RedisSentinelPassword).toBeUndefined();
    expect(load({}).redisSentinels).toEqual([]);
  });

  it('honours PORT when Port is unset, and prefers Port', () => {
    expect(load({ PORT: '6000' }).Port).toBe(6000);
    expect(load({ PORT: '6000', Port: '7000' }).Port).toBe(7000);
  });

  it('treats an empty value as unset', () => {
    expect(load({ PasswordAttempts: '' }).PasswordAttempts).toBe(3);
  });

  it('accepts a valid postgres configuration', () => {
    const s = load({
      DatabaseProvider: 'Postgres',
      ConnectionString: 'postgres://u:p@localhost:5432/db',
      JwtKey: 'j'.repeat(32),
      ApiHmacKey: 'h'.repeat(32),
    });
    expect(s.DatabaseProvider).toBe('postgres');
  });

  it('accepts a SQL Server URL that names its database, trusting the certificate only when asked', () => {
    for (const url of [
      'mssql://u:p@sql.example:1433/service',
      'sqlserver://u:p@sql.example/service?encrypt=true&trustServerCertificate=false',
      'mssql://u:p@sql.example/service?trustServerCertificate=true',
    ])
      expect(load(sqlServer(url)).DatabaseProvider).toBe('mssql');
  });

  it('marks every key, password and connection string as secret', () => {
    for (const name of [
      'JwtKey',
      'ApiHmacKey',
      'ConnectionString',
      'RedisConnectionString',
      'RedisSentinelPassword',
      'OAuthClientSecret',
      'PasswordAsymmetricEncryptionPrivateKey',
      'BootstrapAdministratorPassword',
      'MultifactorAuthenticationClientKey',
    ]) {
      expect(SECRET_SETTING_NAMES).toContain(name);
    }
    expect(new Set(SETTING_DEFINITIONS.map((d) => d.name)).size).toBe(SETTING_DEFINITIONS.length);
  });
});
