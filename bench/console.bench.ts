/*
 * npm run bench:console — the console's weight and speed, as figures (nothing asserted):
 *   1. the initial JavaScript of the Login page in kB gzip (what index.html loads before the page can run);
 *   2. the time from navigation to an interactive Login page in headless Debian Chromium: the form drawn
 *      and its User name field focused (the page has fetched its sign-in options), measured in the page
 *      from its navigation start (performance.now()); cold (a new browser context: empty cache) and warm
 *      (the same context again: assets from the cache), p50 and p95 over BENCH_CONSOLE_RUNS (default 20).
 * The service runs in this process on SQLite, on 127.0.0.1 (no network latency).
 */
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { consoleIsCurrent, initialScripts } from '../scripts/console';
import { launchChromium } from '../test/support/chromium';
import { benchSettings } from './support';
import { createApp } from '../apps/server/src/create-app';
import type { AddressInfo } from 'node:net';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const RUNS = Number(process.env.BENCH_CONSOLE_RUNS ?? 20);

function percentile(samples: number[], q: number): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

/** ms from the navigation's start until the Login form is drawn and its first field has the focus. */
async function toInteractiveLogin(page: Page, url: string): Promise<number> {
  await page.goto(url, { waitUntil: 'commit' });
  // (Strings: this file is compiled without the DOM's types.)
  await page.waitForFunction("document.activeElement?.id === 'userName'", undefined, { polling: 'raf' });
  return page.evaluate<number>('performance.now()');
}

async function main(): Promise<void> {
  if (!consoleIsCurrent()) {
    const root = join(__dirname, '..');
    const r = spawnSync(
      process.execPath,
      ['-r', join(root, 'scripts/ts-register.js'), join(root, 'scripts/console.ts'), 'bundle'],
      { cwd: root, stdio: 'inherit' },
    );
    if (r.status !== 0) throw new Error('building the console failed');
  }
  const scripts = initialScripts();
  const gzip = scripts.reduce((sum, f) => sum + gzipSync(readFileSync(f), { level: 9 }).length, 0);
  process.stdout.write(
    `console: initial JavaScript of the Login page ${(gzip / 1024).toFixed(1)} kB gzip (aim <= 150 kB)\n`,
  );

  const app = await createApp(benchSettings('console'));
  await app.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/Account/Login`;
  const browser = await launchChromium();
  try {
    // One throwaway load: the first page of a browser process also pays Chromium's own start-up.
    const warmUp = await browser.newContext();
    await toInteractiveLogin(await warmUp.newPage(), url);
    await warmUp.close();
    const cold: number[] = [];
    const warm: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      cold.push(await toInteractiveLogin(page, url));
      warm.push(await toInteractiveLogin(page, url));
      await context.close();
    }
    const line = (name: string, samples: number[]) =>
      `  ${name}: p50 ${percentile(samples, 0.5).toFixed(0)} ms, p95 ${percentile(samples, 0.95).toFixed(0)} ms`;
    process.stdout.write(
      `console: navigation to an interactive Login page, headless Chromium, ${RUNS} runs\n` +
        `${line('cold (empty cache)', cold)}\n${line('warm (assets cached)', warm)}\n`,
    );
  } finally {
    await browser.close();
    await app.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
