import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Settings } from './settings';

export const EMBEDDED_SECRETS_FILE = 'embedded-secrets.json';

interface EmbeddedSecrets {
  JwtKey: string;
  ApiHmacKey: string;
}

/**
 * Embedded first start (sqlite only): when JwtKey or ApiHmacKey are unset, generate strong random values
 * once and keep them in DataDirectory with mode 0600, so sessions and API keys survive restarts.
 * Returns the settings with the secrets filled in, and whether any were taken from the file.
 */
export function withEmbeddedSecrets(settings: Settings): { settings: Settings; generated: string[] } {
  if (settings.DatabaseProvider !== 'sqlite' || (settings.JwtKey && settings.ApiHmacKey)) {
    return { settings, generated: [] };
  }
  const dir = resolve(settings.DataDirectory);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, EMBEDDED_SECRETS_FILE);
  let stored: Partial<EmbeddedSecrets> = {};
  if (existsSync(file)) {
    stored = JSON.parse(readFileSync(file, 'utf8')) as Partial<EmbeddedSecrets>;
  }
  const next: EmbeddedSecrets = {
    JwtKey: stored.JwtKey ?? randomBytes(48).toString('base64url'),
    ApiHmacKey: stored.ApiHmacKey ?? randomBytes(48).toString('base64url'),
  };
  if (stored.JwtKey !== next.JwtKey || stored.ApiHmacKey !== next.ApiHmacKey) {
    writeFileSync(file, JSON.stringify(next), { mode: 0o600 });
  }
  chmodSync(file, 0o600);
  const generated = (['JwtKey', 'ApiHmacKey'] as const).filter((k) => !settings[k]);
  return {
    settings: Object.freeze({
      ...settings,
      JwtKey: settings.JwtKey ?? next.JwtKey,
      ApiHmacKey: settings.ApiHmacKey ?? next.ApiHmacKey,
    }),
    generated,
  };
}
