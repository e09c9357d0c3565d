import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium, never a downloaded browser (DECISIONS: browser tests). */
export const CHROMIUM = '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * A headless Debian Chromium for one test file; close it in a finally. `args` are added to the defaults
 * (e.g. `--host-resolver-rules`, `--auth-server-allowlist`), `env` to the browser's environment (e.g. a
 * Kerberos credential cache).
 */
export function launchChromium(options: { args?: string[]; env?: NodeJS.ProcessEnv } = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [...CHROMIUM_ARGS, ...(options.args ?? [])],
    headless: true,
    ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
  });
}
