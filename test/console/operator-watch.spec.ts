import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Locator, Page, Route } from 'playwright-core';
import { DataSource } from 'typeorm';
import { ArchiverWarning, CaptureQueueHealth } from '@app/capture-queues';
import { ALL_PERMISSIONS } from '@app/access';
import { CONSOLE_GRID_PAGES } from '@app/console';
import { GRID_PAGE_COLUMNS } from '@app/declarations';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser, landlordActor, type CreatedUser } from '../factories/identity.factory';
import { launchChromium } from '../support/chromium';
import { axeViolations, DESKTOP, LAPTOP, PHONE, screenshotAt, watchPage } from '../support/console-browser';
import { signInThroughPage } from '../support/console-telemetry';

/**
 * A past hour whose queue 1 is silent from minute 21 to minute 30 (a 10-minute gap): 10:00 to 11:00 UTC three days
 * ago, so the window never spans a midnight (the axis then names the day, "Nov 26, 23:00") whenever the test runs.
 */
const GAP_FROM = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000 - 3 * 86_400_000 + 10 * 3_600_000);
const GAP_TO = new Date(GAP_FROM.getTime() + 3_600_000);
/** Another past hour holding 1 500 rows: more than a page may ask for. */
const MANY_FROM = new Date(GAP_FROM.getTime() - 86_400_000);
const MANY_TO = new Date(MANY_FROM.getTime() + 3_600_000);
const AXIS_FONT = '12px system-ui, sans-serif';

const at = (from: Date, minute: number) => new Date(from.getTime() + minute * 60_000);
const fileStamp = (at: Date) => at.toISOString().slice(0, 16).replace(':', '') + 'Z';
const windowQuery = (from: Date, to: Date) =>
  `from=${encodeURIComponent(from.toISOString())}&to=${encodeURIComponent(to.toISOString())}`;

/**
 * Separate runs of canvas columns holding the first line's blue (TimeSeriesChart's PALETTE[0], #1d4f91, at any
 * blend with the white behind it: blue well above red; the grid and the labels are grey and black). A line
 * drawn across a gap is one run; a gap drawn as a gap splits it in two.
 */
function blueRuns(chart: Locator): Promise<number> {
  return chart.evaluate((el) => {
    const canvas = (
      el as unknown as {
        querySelector(s: 'canvas'): {
          width: number;
          height: number;
          getContext(k: '2d'): {
            getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
          };
        };
      }
    ).querySelector('canvas');
    const { width, height } = canvas;
    const data = canvas.getContext('2d').getImageData(0, 0, width, height).data;
    const blue = new Array<boolean>(width).fill(false);
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        const i = (y * width + x) * 4;
        if (data[i + 3] > 0 && data[i + 2] - data[i] > 40) blue[x] = true;
      }
    let runs = 0;
    for (let x = 0; x < width; x++) if (blue[x] && (x === 0 || !blue[x - 1])) runs++;
    return runs;
  });
}

/** The x axis's labels with their centres, and how wide each is drawn. */
function timeLabels(chart: Locator) {
  return chart.evaluate((el, font) => {
    const ticks = JSON.parse(
      (el as unknown as { getAttribute(n: string): string }).getAttribute('data-x-ticks'),
    ) as [number, string][];
    const doc = (
      globalThis as unknown as {
        document: {
          createElement(t: 'canvas'): {
            getContext(k: '2d'): { font: string; measureText(t: string): { width: number } };
          };
        };
      }
    ).document;
    const ctx = doc.createElement('canvas').getContext('2d');
    ctx.font = font;
    return ticks.map(([centre, text]) => ({ centre, text, width: ctx.measureText(text).width }));
  }, AXIS_FONT);
}

/**
 * Issue 51, items 2, 3 and 5 in Debian's Chromium: failures look like the product (a blocked script chunk,
 * an unexpected error, an address that names nothing, a slow answer, a service that stopped answering);
 * charts cannot mislead (a 10-minute gap drawn as a gap, series shown and hidden from the legend, whole
 * ticks for a depth, 24-hour time labels that never touch); the console never asks for more rows than it
 * shows.
 */
describe('the console in Chromium, part 4: failures, charts and lean answers', () => {
  let t: TestApp;
  let browser: Browser;
  let admin: CreatedUser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    t = await startTestApp('sqlite', {
      CaptureQueueFlushIntervalMilliseconds: '3600000',
      StageRollupIntervalMilliseconds: '3600000',
    });
    const landlord = await landlordActor(t.app);
    admin = await createUser(t.app, { tenantGuid: landlord.tenantGuid, permissions: ALL_PERMISSIONS });
    const health = t.app.get(DataSource).getRepository(CaptureQueueHealth);
    const row = (queue: number, when: Date, depth: number) => ({
      QueueId: queue,
      QueueName: ['ModelInvokeWarning', 'CaseCreationWarning'][queue - 1],
      QueueDepth: depth,
      DroppedCount: 0,
      CreatedDate: when,
      Instance: 'node-a',
    });
    const minutes = Array.from({ length: 59 }, (_, i) => i + 1);
    await health.insert([
      ...minutes.filter((m) => m <= 20 || m > 30).map((m) => row(1, at(GAP_FROM, m), 6)),
      ...minutes.map((m) => row(2, at(GAP_FROM, m), 0)),
    ]);
    // Archiver warnings in the same hour: 3 a minute for 20 minutes, 1 500 ms to 2 500 ms each
    await t.app
      .get(DataSource)
      .getRepository(ArchiverWarning)
      .insert(
        Array.from({ length: 60 }, (_, i) => ({
          EntityAnalysisModelGuid: '5e1ec7ed-0000-4000-8000-00000000de70',
          EntityAnalysisModelInstanceEntryGuid: null,
          StageId: 1,
          DurationMicroseconds: 1_500_000 + (i % 3) * 500_000,
          BatchSize: 1,
          CreatedDate: at(GAP_FROM, 1 + Math.floor(i / 3)),
          Instance: 'node-a',
        })),
      );
    const many = Array.from({ length: 1_500 }, (_, i) =>
      row(1 + (i % 2), new Date(MANY_FROM.getTime() + 1_000 + i * 2_000), i % 9),
    );
    for (let i = 0; i < many.length; i += 250) await health.insert(many.slice(i, i + 250));
    browser = await launchChromium();
    context = await browser.newContext({ viewport: LAPTOP });
    page = await signInThroughPage(context, t.url, admin.name, admin.password);
    problems = watchPage(page);
  }, 60_000);
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
  });

  async function openChart(query: string): Promise<Locator> {
    await page.goto(`${t.url}/Administration/CaptureQueueHealth?${query}`);
    const chart = page.locator('[data-chart="time-series"][data-drawn]');
    await chart.waitFor();
    return chart;
  }

  it('a 10-minute gap is drawn as a gap; the legend hides and shows a line; whole ticks for a depth; 24-hour labels that never touch', async () => {
    const chart = await openChart(`queueId=1&${windowQuery(GAP_FROM, GAP_TO)}`);
    // one queue, one line: two separate runs of its colour, before and after the silence
    expect(await blueRuns(chart)).toBe(2);
    expect(JSON.parse((await chart.getAttribute('data-y-ticks'))!)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^\d+$/)]),
    );
    for (const tick of JSON.parse((await chart.getAttribute('data-y-ticks'))!) as string[])
      expect(tick).toMatch(/^(\d+|)$/);
    const legend = page
      .getByRole('list', { name: /^Series/ })
      .getByRole('button', { name: 'ModelInvokeWarning' });
    expect(await legend.getAttribute('aria-pressed')).toBe('true');
    await legend.click();
    expect(await legend.getAttribute('aria-pressed')).toBe('false');
    expect(await blueRuns(chart)).toBe(0);
    await legend.click();
    expect(await blueRuns(chart)).toBe(2);

    // both queues: the all-zero one says so in the legend
    const both = await openChart(windowQuery(GAP_FROM, GAP_TO));
    await page.getByRole('button', { name: 'CaseCreationWarning (0 throughout)' }).waitFor();
    for (const size of [DESKTOP, LAPTOP, PHONE]) {
      await screenshotAt(page, 'part4-grid-gap', size);
      const labels = await timeLabels(both);
      expect(labels.length).toBeGreaterThan(1);
      for (const l of labels) expect(l.text).toMatch(/^([01]\d|2[0-3]):[0-5]\d$/);
      for (let i = 1; i < labels.length; i++) {
        const gap = labels[i].centre - labels[i - 1].centre - (labels[i].width + labels[i - 1].width) / 2;
        expect([size.width, labels[i].text, gap >= 8]).toEqual([size.width, labels[i].text, true]);
      }
    }
    await page.setViewportSize(LAPTOP);
    expect(
      await page.getByText(/Times in 24-hour form, in this browser.s zone \(UTC[+-]\d\d:\d\d\)/).count(),
    ).toBe(1);
    expect(problems).toEqual([]);
  });

  it('a warnings grid charts how many warnings per bucket beside the largest duration, each in its own unit', async () => {
    await page.goto(`${t.url}/Administration/ArchiverWarning?${windowQuery(GAP_FROM, GAP_TO)}`);
    const count = page.locator('[data-series-value="count"] [data-chart="time-series"][data-drawn]');
    const max = page.locator('[data-series-value="max"] [data-chart="time-series"][data-drawn]');
    await count.waitFor();
    await max.waitFor();
    const countTicks = JSON.parse((await count.getAttribute('data-y-ticks'))!) as string[];
    expect(countTicks.filter(Boolean).every((t) => /^\d+$/.test(t))).toBe(true);
    expect(countTicks).toContain('3');
    // the duration: one unit (s, from 2.5 s) on the axis, in the table and in the statistics
    expect(await max.getAttribute('data-unit')).toBe('s');
    const maxTicks = JSON.parse((await max.getAttribute('data-y-ticks'))!) as string[];
    for (const tick of maxTicks) expect(tick).toMatch(/^[\d.]+ s$/);
    expect(await page.locator('tbody tr[data-row-id] td:nth-child(3)').first().innerText()).toMatch(
      /^[\d.]+ s$/,
    );
    expect(await page.locator('[data-statistics="durationMicroseconds"] dd').nth(2).innerText()).toBe(
      '2.5 s',
    );
    expect(problems).toEqual([]);
  });

  it('never asks for more rows than it shows: take=100000 asks for a page of 1 000, every grid lists what it fetched', async () => {
    /** The next answer of the grid's rows: the take asked for and the rows answered. */
    const rowsAnswer = async (grid: string, load: () => Promise<unknown>) => {
      const answer = page.waitForResponse(
        (r) => new URL(r.url()).pathname === `/api/${grid}` && r.request().method() === 'GET',
      );
      await load();
      const r = await answer;
      const body = (await r.json()) as { rows: unknown[] };
      return { take: new URL(r.url()).searchParams.get('take'), rows: body.rows.length };
    };
    const listed = () => page.locator('tbody tr[data-row-id]').count();
    const many = `${t.url}/Administration/CaptureQueueHealth?${windowQuery(MANY_FROM, MANY_TO)}&take=100000`;
    const first = await rowsAnswer('CaptureQueueHealth', () => page.goto(many));
    await page.getByText('Showing rows 1–1,000 of 1,500 in the window, newest first.').waitFor();
    expect([first, await listed()]).toEqual([{ take: '1000', rows: 1_000 }, 1_000]);
    const older = await rowsAnswer('CaptureQueueHealth', () =>
      page.getByRole('button', { name: 'Older rows' }).click(),
    );
    await page.getByText('Showing rows 1,001–1,500 of 1,500 in the window, newest first.').waitFor();
    expect([older, await listed()]).toEqual([{ take: '1000', rows: 500 }, 500]);

    for (const grid of CONSOLE_GRID_PAGES) {
      const answered = await rowsAnswer(grid, () => page.goto(`${t.url}/Administration/${grid}`));
      await page.locator('[data-total]').waitFor();
      expect([grid, answered.rows]).toEqual([grid, await listed()]);
    }
    expect(problems).toEqual([]);
  });

  it('every grid’s CSV holds the page’s columns in the page’s order with its labels, and its window in the name', async () => {
    for (const grid of CONSOLE_GRID_PAGES) {
      await page.goto(`${t.url}/Administration/${grid}?${windowQuery(GAP_FROM, GAP_TO)}`);
      await page.locator('[data-total]').waitFor();
      // the page's labels: its table's headers (without a sortable header's arrow), or with no rows its declaration
      const shown = (
        await page.locator('[aria-labelledby="grid-rows-title"] thead th[data-column]').allInnerTexts()
      ).map((l) => l.replace(/[▲▼↕]/g, '').trim());
      const labels = GRID_PAGE_COLUMNS[grid].map((c) => c.label as string);
      if (shown.length) expect([grid, shown]).toEqual([grid, labels]);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'Download CSV' }).click(),
      ]);
      const text = readFileSync(await download.path(), 'utf8');
      const header = text
        .replace(/^\uFEFF/, '')
        .split('\r\n')[0]
        .split(',');
      expect([grid, header.length]).toEqual([grid, labels.length]);
      // the page's labels; a time says its zone, a duration the unit of the microseconds it holds
      header.forEach((cell, i) =>
        expect([grid, cell]).toEqual([
          grid,
          expect.stringMatching(new RegExp(`^"${labels[i]}( \\(UTC\\)| \\(µs\\))?"$`)),
        ]),
      );
      expect(download.suggestedFilename()).toBe(`${grid}_${fileStamp(GAP_FROM)}_${fileStamp(GAP_TO)}.csv`);
    }
    const rows = readFileSync(
      await (
        await Promise.all([
          page.waitForEvent('download'),
          page
            .goto(`${t.url}/Administration/CaptureQueueHealth?queueId=1&${windowQuery(GAP_FROM, GAP_TO)}`)
            .then(() => page.getByRole('link', { name: 'Download CSV' }).click()),
        ])
      )[0].path(),
      'utf8',
    )
      .split('\r\n')
      .filter(Boolean);
    expect(rows[0]).toBe('\uFEFF"Created (UTC)","Queue","Depth","Dropped","Instance"');
    expect(rows).toHaveLength(1 + 49);
    expect(problems).toEqual([]);
  });

  it('a slow answer shows the time waited, and "Live" only once rows arrived; a service that stops answering leaves the rows marked with their time', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const hold = async (route: Route) => {
      await held;
      await route.continue();
    };
    await page.route(/\/api\/CaptureQueueHealth\?/, hold);
    await page.goto(`${t.url}/Administration/CaptureQueueHealth`);
    await page.locator('[data-loading="capture queue health"] [data-elapsed]').waitFor();
    expect(await page.locator('[data-loading="capture queue health"]').innerText()).toMatch(
      /^Loading capture queue health… \d+ s$/,
    );
    expect(await page.locator('[data-live]').getAttribute('data-live')).not.toBe('live');
    release();
    await page.locator('[data-total]').waitFor();
    await page.locator('[data-live="live"]').waitFor();
    await page.unroute(/\/api\/CaptureQueueHealth\?/, hold);

    // the service stops answering: the rows stay, with when they were read
    const refuse = (route: Route) => route.abort('connectionrefused');
    await page.route(/\/api\/CaptureQueueHealth\?/, refuse);
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.locator('[data-live="stale"]').waitFor();
    expect(await page.locator('[data-live="stale"]').textContent()).toMatch(
      /^Not updating, last updated \d\d:\d\d:\d\d$/,
    );
    await page.getByRole('alert').filter({ hasText: 'The service could not be reached.' }).waitFor();
    expect(await page.locator('[data-total]').count()).toBe(1);
    await page.unroute(/\/api\/CaptureQueueHealth\?/, refuse);
    expect(problems.filter((p) => !p.includes('ERR_CONNECTION_REFUSED'))).toEqual([]);
    problems.length = 0;
  });

  it('a blocked script chunk shows the console’s reload page; Reload loads the new page', async () => {
    const fresh = await browser.newContext({ viewport: LAPTOP });
    try {
      const p = await signInThroughPage(fresh, t.url, admin.name, admin.password);
      const seen = watchPage(p);
      const block = (route: Route) => route.abort('failed');
      await p.route(/\/assets\/GridPage-[\w-]+\.js$/, block);
      await p
        .getByRole('navigation', { name: 'Console' })
        .getByRole('link', { name: 'Capture queue health' })
        .click();
      await p.getByRole('heading', { name: 'A new version of the console is available' }).waitFor();
      // the shell stays around it: the header and the navigation
      await p.getByRole('navigation', { name: 'Console' }).waitFor();
      expect(await p.locator('body').innerText()).not.toMatch(/Unexpected Application Error|Hey developer/);
      for (const size of [LAPTOP, PHONE]) {
        await p.setViewportSize(size);
        expect([size.width, await axeViolations(p)]).toEqual([size.width, []]);
      }
      await screenshotAt(p, 'part4-new-version', LAPTOP);
      await p.unroute(/\/assets\/GridPage-[\w-]+\.js$/, block);
      await p.getByRole('button', { name: 'Reload' }).click();
      await p.getByRole('heading', { name: 'Capture queue health' }).waitFor();
      expect(seen.filter((s) => !/GridPage|dynamically imported module|ERR_FAILED/.test(s))).toEqual([]);
    } finally {
      await fresh.close();
    }
  });

  it('any other error: a console page with a way back; an address that names no user: the Not Found page, not JSON', async () => {
    const fresh = await browser.newContext({ viewport: LAPTOP });
    try {
      const p = await signInThroughPage(fresh, t.url, admin.name, admin.password);
      // an answer the console cannot use (a session without its fields) breaks the shell's rendering
      await p.route(/\/api\/Authentication\/Session$/, (route) =>
        route.fulfill({ status: 200, contentType: 'application/json', body: '{}' }),
      );
      await p.goto(`${t.url}/Security/Users`);
      await p.getByRole('heading', { name: 'Something went wrong in this page' }).waitFor();
      await p.getByRole('link', { name: 'Go to the console home' }).waitFor();
      expect(await axeViolations(p)).toEqual([]);
      await p.unroute(/\/api\/Authentication\/Session$/);

      const answer = await p.goto(`${t.url}/Security/Users/New`);
      expect(answer?.status()).toBe(404);
      await p.getByRole('heading', { name: 'This page does not exist' }).waitFor();
      expect(await p.locator('body').innerText()).not.toContain('"errors"');
      await p.getByRole('link', { name: 'Go to the console home' }).click();
      await p.getByRole('heading', { name: 'Operations console' }).waitFor();
    } finally {
      await fresh.close();
    }
  });
});
