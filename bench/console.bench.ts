/*
 * npm run bench:console — the console's weight and speed, as figures (nothing asserted):
 *   1. the initial JavaScript of the Login page in kB gzip (what index.html loads before the page can run),
 *      and the JavaScript of every route (the entry, the signed-in shell and the page, with their imports);
 *   2. the time from navigation to an interactive Login page in headless Debian Chromium: the form drawn
 *      and its User name field focused (the page has fetched its sign-in options), measured in the page
 *      from its navigation start (performance.now()); cold (a new browser context: empty cache) and warm
 *      (the same context again: assets from the cache), p50 and p95 over BENCH_CONSOLE_RUNS (default 20);
 *   3. the time from navigation to a drawn grid page with 100 000 rows in its window
 *      (ArchiverStagePerformanceCounter, default toolbar: the last hour, 100 rows shown): the rows in the
 *      table, the four histograms and the time series painted (their uPlot draw hooks ran), on SQLite and
 *      on PostgreSQL (DATABASE_URL when set, else a throwaway cluster); cold (new context, the service's
 *      grid cache emptied by a new row) and warm (the same context, the grid's answer cached on the
 *      service), p50 and p95 over BENCH_CONSOLE_GRID_RUNS (default 10).
 * The service runs in this process, on 127.0.0.1 (no network latency).
 */
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { ALL_PERMISSIONS } from '@app/access';
import { consoleIsCurrent, initialScripts, routeFigures } from '../scripts/console';
import { createUser, landlordActor } from '../test/factories/identity.factory';
import { startPostgresServer } from '../test/support/postgres-server';
import { launchChromium } from '../test/support/chromium';
import { benchSettings } from './support';
import { createApp } from '../apps/server/src/create-app';
import type { AddressInfo } from 'node:net';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const RUNS = Number(process.env.BENCH_CONSOLE_RUNS ?? 20);
const GRID_RUNS = Number(process.env.BENCH_CONSOLE_GRID_RUNS ?? 10);
const GRID_ROWS = 100_000;

function percentile(samples: number[], q: number): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

interface PageDocument {
  activeElement: { id: string } | null;
  querySelectorAll(selector: string): { length: number };
}

/**
 * Waits in the page, frame by frame, until `ready(document)` holds, and answers performance.now() then (ms
 * since the navigation started). A function evaluated through the DevTools protocol, not a string: the
 * page's CSP (script-src 'self', no unsafe-eval) refuses Playwright's string predicates.
 */
function whenReady(page: Page, ready: string): Promise<number> {
  return page.evaluate(
    (test) =>
      new Promise<number>((resolve) => {
        const g = globalThis as unknown as {
          document: PageDocument;
          requestAnimationFrame(f: () => void): void;
          performance: { now(): number };
        };
        const checks: Record<string, (d: PageDocument) => boolean> = {
          login: (d) => d.activeElement?.id === 'userName',
          grid: (d) =>
            d.querySelectorAll('[data-chart="histogram"][data-drawn="10"]').length === 4 &&
            d.querySelectorAll('[data-chart="time-series"][data-drawn]').length === 1 &&
            d.querySelectorAll('tbody tr[data-row-id]').length === 100,
        };
        const frame = () =>
          checks[test](g.document) ? resolve(g.performance.now()) : g.requestAnimationFrame(frame);
        frame();
      }),
    ready,
  );
}

/** ms from the navigation's start until the Login form is drawn and its first field has the focus. */
async function toInteractiveLogin(page: Page, url: string): Promise<number> {
  await page.goto(url, { waitUntil: 'commit' });
  return whenReady(page, 'login');
}

/** 100 000 rollup rows spread over the last 50 minutes: the whole default window of the grid. */
async function fillGrid(ds: DataSource): Promise<void> {
  const cols = `"EntityAnalysisModelGuid", "StageId", "StageName", "TotalMicroseconds", "MinMicroseconds", "MaxMicroseconds", "InvokeCount", "CreatedDate", "Instance"`;
  const names = `CASE x % 4 WHEN 0 THEN 'BuildArchiveJson' WHEN 1 THEN 'CaseCreationDispatch' WHEN 2 THEN 'RdbmsArchiveWrite' ELSE 'BulkCopyArchiveBuffer' END`;
  if (ds.options.type === 'postgres') {
    await ds.query(
      `INSERT INTO "ArchiverStagePerformanceCounter" (${cols})
       SELECT '11111111-2222-4333-8444-555555555555', 1 + x % 4, ${names}, (random() * 10000000)::bigint,
              (random() * 1000)::bigint, (random() * 1000000)::bigint, 1 + (random() * 500)::int,
              now() - (${GRID_ROWS} - x) * interval '30 milliseconds', 'bench'
       FROM generate_series(1, ${GRID_ROWS}) x`,
    );
    await ds.query('VACUUM ANALYZE "ArchiverStagePerformanceCounter"');
  } else {
    await ds.query(
      `WITH RECURSIVE g(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM g WHERE x < ${GRID_ROWS})
       INSERT INTO "ArchiverStagePerformanceCounter" (${cols})
       SELECT '11111111-2222-4333-8444-555555555555', 1 + x % 4, ${names}, abs(random()) % 10000000,
              abs(random()) % 1000, abs(random()) % 1000000, 1 + abs(random()) % 500,
              strftime('%Y-%m-%d %H:%M:%f', julianday('now') - (${GRID_ROWS} - x) * 0.03 / 86400), 'bench'
       FROM g`,
    );
    await ds.query('ANALYZE');
  }
}

/** One more row (now): the service's change check sees it, so the next grid answer is computed afresh. */
async function touchGrid(ds: DataSource): Promise<void> {
  const now = ds.options.type === 'postgres' ? 'now()' : "strftime('%Y-%m-%d %H:%M:%f', 'now')";
  await ds.query(
    `INSERT INTO "ArchiverStagePerformanceCounter" ("EntityAnalysisModelGuid", "StageId", "StageName", "TotalMicroseconds", "MinMicroseconds", "MaxMicroseconds", "InvokeCount", "CreatedDate", "Instance")
     VALUES ('11111111-2222-4333-8444-555555555555', 1, 'BuildArchiveJson', 1, 1, 1, 1, ${now}, 'bench')`,
  );
}

/** ms from the navigation's start until the grid's rows, four histograms and time series are drawn. */
async function toDrawnGrid(page: Page, url: string): Promise<number> {
  await page.goto(url, { waitUntil: 'commit' });
  return whenReady(page, 'grid');
}

async function gridBench(provider: 'sqlite' | 'postgres', connectionString?: string): Promise<string> {
  const app = await createApp(
    benchSettings(`console-grid-${provider}`, {
      DatabaseProvider: provider,
      ...(connectionString ? { ConnectionString: connectionString } : {}),
    }),
  );
  await app.listen(0, '127.0.0.1');
  const origin = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  const browser = await launchChromium();
  try {
    const ds = app.get(DataSource);
    await fillGrid(ds);
    const user = await createUser(app, {
      tenantGuid: (await landlordActor(app)).tenantGuid,
      permissions: ALL_PERMISSIONS,
    });
    const signIn = await browser.newContext();
    const login = await signIn.newPage();
    await login.goto(`${origin}/Account/Login`);
    await login.getByLabel('User name').fill(user.name);
    await login.getByLabel('Password', { exact: true }).fill(user.password);
    await login.getByRole('button', { name: 'Sign in' }).click();
    await login.waitForURL(`${origin}/`);
    const storageState = await signIn.storageState();
    await signIn.close();
    const url = `${origin}/Administration/ArchiverStagePerformanceCounter`;
    const warmUp = await browser.newContext({ storageState });
    await toDrawnGrid(await warmUp.newPage(), url);
    await warmUp.close();
    const cold: number[] = [];
    const warm: number[] = [];
    for (let i = 0; i < GRID_RUNS; i++) {
      await touchGrid(ds);
      const context = await browser.newContext({ storageState });
      const page = await context.newPage();
      cold.push(await toDrawnGrid(page, url));
      warm.push(await toDrawnGrid(page, url));
      await context.close();
    }
    return (
      `  ${provider}: cold (new context, grid answer computed) ${line(cold)}; ` +
      `warm (assets cached, grid answer cached) ${line(warm)}`
    );
  } finally {
    await browser.close();
    await app.close();
  }
}

const line = (samples: number[]) =>
  `p50 ${percentile(samples, 0.5).toFixed(0)} ms, p95 ${percentile(samples, 0.95).toFixed(0)} ms`;

async function gridFigures(): Promise<void> {
  let pg: { url: string; stop(): void } | undefined;
  let base = process.env.DATABASE_URL;
  if (!base) {
    pg = await startPostgresServer();
    base = pg.url;
  }
  const dbName = `bench_console_${Date.now()}`;
  const admin = new Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${dbName}"`);
  await admin.end();
  const target = new URL(base);
  target.pathname = `/${dbName}`;
  try {
    const lines = [await gridBench('sqlite'), await gridBench('postgres', target.toString())];
    process.stdout.write(
      `console: navigation to a drawn grid page, ${GRID_ROWS.toLocaleString('en')} rows in the window, ` +
        `headless Chromium, ${GRID_RUNS} runs\n${lines.join('\n')}\n`,
    );
  } finally {
    if (pg) pg.stop();
    else {
      const cleanup = new Client({ connectionString: base });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
      await cleanup.end();
    }
  }
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
    `console: initial JavaScript of the Login page ${(gzip / 1024).toFixed(1)} kB gzip (aim <= 150 kB)\n` +
      `console: JavaScript per route, kB gzip: ${routeFigures()}\n`,
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
    process.stdout.write(
      `console: navigation to an interactive Login page, headless Chromium, ${RUNS} runs\n` +
        `  cold (empty cache): ${line(cold)}\n  warm (assets cached): ${line(warm)}\n`,
    );
  } finally {
    await browser.close();
    await app.close();
  }
  await gridFigures();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
