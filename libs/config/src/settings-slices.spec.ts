import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Test } from '@nestjs/testing';
import { ConfigModule, SETTINGS } from './config.module';
import { loadSettings, SECRET_SETTING_NAMES } from './settings';
import {
  API_KEY_SETTINGS,
  CASE_NOTIFICATION_SETTINGS,
  IDENTITY_SETTINGS,
  OAUTH_SETTINGS,
  SECOND_FACTOR_SETTINGS,
  SESSION_TOKEN_SETTINGS,
  SETTINGS_SLICES,
} from './settings-slices';

const settings = loadSettings({
  JwtKey: 'slice-jwt-key-0123456789abcdefghijklmnopqrstuvwxyz',
  ApiHmacKey: 'slice-api-hmac-key-0123456789abcdefghijklmnopqrstuvwxyz',
  SmtpPassword: 'smtp-secret',
  OAuthClientSecret: 'oauth-secret',
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
  });
}

describe('typed settings slices', () => {
  it('the config module provides each slice with only its names, frozen, and the whole settings once', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [ConfigModule.forRoot(settings)] }).compile();
    expect(moduleRef.get(SETTINGS)).toBe(settings);
    for (const slice of SETTINGS_SLICES) {
      const value = moduleRef.get<Record<string, unknown>>(slice.token);
      expect(Object.keys(value).sort()).toEqual([...slice.keys].sort());
      for (const key of slice.keys) expect(value[key]).toEqual(settings[key]);
      expect(Object.isFrozen(value)).toBe(true);
    }
  });

  it('each secret reaches only the slices of the features that use it, and no slice holds every secret', () => {
    const holders = (name: string) =>
      SETTINGS_SLICES.filter((s) => (s.keys as readonly string[]).includes(name)).map((s) => s.name);
    expect(holders('JwtKey').sort()).toEqual(
      [SESSION_TOKEN_SETTINGS.name, OAUTH_SETTINGS.name, IDENTITY_SETTINGS.name].sort(),
    );
    expect(holders('ApiHmacKey')).toEqual([API_KEY_SETTINGS.name]);
    expect(holders('SmtpPassword')).toEqual([CASE_NOTIFICATION_SETTINGS.name]);
    expect(holders('OAuthClientSecret')).toEqual([OAUTH_SETTINGS.name]);
    expect(holders('MultifactorAuthenticationClientKey')).toEqual([SECOND_FACTOR_SETTINGS.name]);
    for (const slice of SETTINGS_SLICES) {
      const secrets = SECRET_SETTING_NAMES.filter((n) => (slice.keys as readonly string[]).includes(n));
      expect(secrets.length).toBeLessThan(SECRET_SETTING_NAMES.length);
    }
  });

  it('no feature library injects the whole settings (only the application composes with them)', () => {
    const libs = join(__dirname, '..', '..');
    const offenders = sourceFiles(libs)
      .filter((path) => !path.startsWith(join(libs, 'config')))
      .filter((path) => /\bSETTINGS\b/.test(readFileSync(path, 'utf8').replace(/\w+_SETTINGS\b/g, '')))
      .map((path) => relative(libs, path));
    expect(offenders).toEqual([]);
  });
});
