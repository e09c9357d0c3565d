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
      TrustProxy: false,
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
    expect(load({ SessionCookie: v, TrustProxy: v }).TrustProxy).toBe(true),
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
    // Not built yet: refused rather than leaving nobody able to sign in, or no second factor.
    [{ OAuthAuthentication: 'True', OAuthAuthority: 'https://x', OAuthClientId: 'c' }, 'OAuthAuthentication'],
    // Negotiate needs the service key, named or through the standard KRB5_KTNAME, and readable.
    [{ NegotiateAuthentication: 'True' }, 'NegotiateKeytab'],
    [{ NegotiateAuthentication: 'True', NegotiateKeytab: '/nonexistent/http.keytab' }, 'NegotiateKeytab'],
    [{ NegotiateServicePrincipal: 'HTTP/host@REALM' }, 'NegotiateServicePrincipal'],
    [{ NegotiateRealm: 'A@B' }, 'NegotiateRealm'],
    [{ EnableMultifactorAuthentication: 'True' }, 'EnableMultifactorAuthentication'],
    [{ OutboundHttpMfaAmCertificateThumbprint: 'zz' }, 'OutboundHttpMfaAmCertificateThumbprint'],
  ])('refuses %p naming %s and what is allowed', (env, setting) => {
    const e = errorOf(env);
    expect(e.setting).toBe(setting);
    expect(e.message).toContain(setting);
    expect(e.allowed.length).toBeGreaterThan(5);
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

  it('marks every key, password and connection string as secret', () => {
    for (const name of [
      'JwtKey',
      'ApiHmacKey',
      'ConnectionString',
      'RedisConnectionString',
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
