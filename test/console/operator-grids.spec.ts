import { readFileSync } from 'node:fs';
import request from 'supertest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { CaptureQueueHealth } from '@app/capture-queues';
import { ALL_PERMISSIONS } from '@app/access';
import { CONSOLE_GRID_PAGES } from '@app/console';
import { ArchiverStagePerformanceCounter } from '@app/engine';
import { ARCHIVER_STAGE_NAMES, ArchiverStage } from '@app/telemetry';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser, landlordActor, type CreatedUser } from '../factories/identity.factory';
import { signIn } from '../support/auth';
import { launchChromium } from '../support/chromium';
import {
  axeViolations,
  DESKTOP,
  LAPTOP,
  PHONE,
  screenshotAt,
  sidewaysScroll,
  watchPage,
} from '../support/console-browser';
import { signInThroughPage } from '../support/console-telemetry';
import { waitFor } from '../support/spawn-server';

/** uPlot's axis font (its default): what the labels are drawn in. */
const AXIS_FONT =
  '12px system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif, "Apple Color Emoji", "Segoe UI Emoji", "Segoe UI Symbol", "Noto Color Emoji"';
/** A past hour that holds exactly the 1 000 CaptureQueueHealth rows inserted for paging. */
const PAGED_FROM = new Date(Date.now() - 2 * 86_400_000);
const PAGED_TO = new Date(PAGED_FROM.getTime() + 3_600_000);

/** The labels a histogram's x axis shows, where they stand, and how wide they are drawn. */
async function axisLabels(chart: Locator) {
  return chart.evaluate((el, font) => {
    const doc = (
      globalThis as unknown as {
        document: {
          createElement(t: 'canvas'): {
            getContext(k: '2d'): { font: string; measureText(t: string): { width: number } };
          };
        };
      }
    ).document;
    const over = (
      el as unknown as {
        querySelector(s: string): { getBoundingClientRect(): { left: number; width: number } };
      }
    ).querySelector('.u-over');
    const box = over.getBoundingClientRect();
    const ctx = doc.createElement('canvas').getContext('2d');
    ctx.font = font;
    const shown = JSON.parse(
      (el as unknown as { getAttribute(n: string): string }).getAttribute('data-axis-labels'),
    ) as [number, string][];
    return shown.map(([i, text]) => ({
      text,
      centre: box.left + (i / 10) * box.width,
      width: ctx.measureText(text).width,
    }));
  }, AXIS_FONT);
}

/** The CSV's header holds the labels the page's table shows (times with their zone). */
async function expectPageLabelsInCsv(page: Page, text: string) {
  const header = text
    .replace(/^\uFEFF/, '')
    .split('\r\n')[0]
    .split(',');
  const shown = (await page.locator('thead th[data-column]').allInnerTexts()).map((l) => l.trim());
  expect(shown.length).toBeGreaterThan(5);
  for (const label of shown)
    expect([label, header.includes(`"${label}"`) || header.includes(`"${label} (UTC)"`)]).toEqual([
      label,
      true,
    ]);
}

describe('the console in Chromium, part 3: the grids as an operator uses them', () => {
  let t: TestApp;
  let browser: Browser;
  let admin: CreatedUser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  const encodings = new Map<string, string>();

  beforeAll(async () => {
    t = await startTestApp('sqlite', {
      CaptureQueueFlushIntervalMilliseconds: '3600000',
      StageRollupIntervalMilliseconds: '3600000',
    });
    const landlord = await landlordActor(t.app);
    admin = await createUser(t.app, { tenantGuid: landlord.tenantGuid, permissions: ALL_PERMISSIONS });
    const ds = t.app.get(DataSource);
    // Stage rollups over the last 50 minutes, totals of 95 ms to 318 ms (labels that used to overlap).
    await ds.getRepository(ArchiverStagePerformanceCounter).insert(
      Array.from({ length: 400 }, (_, i) => ({
        EntityAnalysisModelGuid: '5e1ec7ed-0000-4000-8000-00000000de70',
        StageId: 1 + (i % 4),
        StageName: ARCHIVER_STAGE_NAMES[(1 + (i % 4)) as ArchiverStage],
        TotalMicroseconds: 95_400 + ((i * 7_919) % 222_453),
        MinMicroseconds: 90 + (i % 50),
        MaxMicroseconds: 1_000 + ((i * 31) % 9_000),
        InvokeCount: 1 + (i % 40),
        CreatedDate: new Date(Date.now() - 60_000 - Math.floor(i / 4) * 30_000),
        Instance: 'node-a',
      })),
    );
    const health = ds.getRepository(CaptureQueueHealth);
    const rows = Array.from({ length: 1_000 }, (_, i) => ({
      QueueId: 1 + (i % 6),
      QueueName: 'ModelInvokeWarning',
      QueueDepth: i % 40,
      DroppedCount: 0,
      // many rows share a millisecond (six queues flushed at once): the keyset must order them by id
      CreatedDate: new Date(PAGED_FROM.getTime() + 60_000 + Math.floor(i / 6) * 15_000),
      Instance: 'paging',
    }));
    for (let i = 0; i < rows.length; i += 200) await health.insert(rows.slice(i, i + 200));
    // Sign-ins: two failed, the administrator's own succeeded; one sign-out.
    const other = await signIn(t.url, admin.name, admin.password);
    await request(t.url).post('/api/Authentication/Logout').set('Cookie', other.cookie).expect(200);
    for (const password of ['wrong-one-password', 'wrong-two-password'])
      await request(t.url)
        .post('/api/Authentication/ByUserNamePassword')
        .send({ userName: admin.name, password });
    browser = await launchChromium();
    context = await browser.newContext({ acceptDownloads: true, viewport: LAPTOP });
    context.on('response', (r) => {
      const path = new URL(r.url()).pathname;
      if (path.startsWith('/assets/')) encodings.set(path, r.headers()['content-encoding'] ?? 'identity');
    });
    page = await signInThroughPage(context, t.url, admin.name, admin.password);
    problems = watchPage(page);
  }, 60_000);
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
  });

  async function openGrid(name: string, query = '') {
    await page.goto(`${t.url}/Administration/${name}${query}`);
    await page.locator('[data-total]').waitFor();
  }
  const api = <T>(path: string) => page.evaluate(async (p) => (await fetch(p)).json(), path) as Promise<T>;

  it('the console’s scripts and styles arrive compressed (Content-Encoding br or gzip)', async () => {
    await openGrid('ArchiverStagePerformanceCounter');
    expect(encodings.size).toBeGreaterThan(3);
    for (const [path, coding] of encodings)
      if (/\.(js|css)$/.test(path)) expect([path, ['br', 'gzip'].includes(coding)]).toEqual([path, true]);
    process.stdout.write(`console assets: ${[...new Set(encodings.values())].join(', ')}\n`);
  });

  it('histogram axes: as many labels as fit, none overlapping, in the column’s unit; hover gives a bucket’s range and rows', async () => {
    for (const size of [DESKTOP, LAPTOP, PHONE]) {
      await page.setViewportSize(size);
      await openGrid('ArchiverStagePerformanceCounter');
      const charts = page.locator('[data-chart="histogram"]');
      await charts.first().and(page.locator('[data-drawn="10"]')).waitFor();
      await page.waitForTimeout(300);
      for (let c = 0; c < (await charts.count()); c++) {
        const labels = await axisLabels(charts.nth(c));
        expect(labels.length).toBeGreaterThanOrEqual(2);
        for (let i = 1; i < labels.length; i++) {
          const room = labels[i].centre - labels[i - 1].centre - (labels[i].width + labels[i - 1].width) / 2;
          expect([size.width, c, labels[i - 1].text, labels[i].text, room >= 2]).toEqual([
            size.width,
            c,
            labels[i - 1].text,
            labels[i].text,
            true,
          ]);
        }
        // Durations carry their unit (317 852 µs reads 318 ms); counts stay plain numbers.
        const durations = c < 3;
        for (const l of labels) expect([l.text, /(µs|ms|s|min)$/.test(l.text)]).toEqual([l.text, durations]);
      }
      expect(await sidewaysScroll(page)).toBe(0);
      await screenshotAt(page, '40-grid-histogram', size);
    }
    await page.setViewportSize(LAPTOP);
    const total = page.locator('[data-statistics="totalMicroseconds"] [data-chart="histogram"]');
    await total.scrollIntoViewIfNeeded();
    const over = await total.locator('.u-over').boundingBox();
    const buckets = await api<{ statistics: { totalMicroseconds: { histogram: { count: number }[] } } }>(
      '/api/ArchiverStagePerformanceCounter',
    );
    const fullest = buckets.statistics.totalMicroseconds.histogram.reduce(
      (best, b, i, all) => (b.count > all[best].count ? i : best),
      0,
    );
    await page.mouse.move(over!.x + ((fullest + 0.5) / 10) * over!.width, over!.y + over!.height - 4);
    const tip = total.locator('.u-over > div[aria-hidden="true"]');
    await tip.waitFor();
    expect(await tip.innerText()).toMatch(
      new RegExp(`ms – [\\d.]+ ms\\n${buckets.statistics.totalMicroseconds.histogram[fullest].count} rows`),
    );
    expect(problems).toEqual([]);
  });

  it('the chart is the whole window; hover gives its figures; drag zooms into the URL’s window; presets set it', async () => {
    await openGrid('ArchiverStagePerformanceCounter');
    const chart = page.locator('[data-chart="time-series"]');
    await chart.and(page.locator('[data-drawn]')).waitFor();
    const total = Number(await page.locator('[data-total]').getAttribute('data-total'));
    expect(total).toBe(400);
    expect(Number(await page.locator('[data-shown]').getAttribute('data-shown'))).toBe(100);
    const series = await api<{ series: { points: { count: number }[] }[] }>(
      '/api/ArchiverStagePerformanceCounter/Series?buckets=200',
    );
    expect(series.series.flatMap((l) => l.points).reduce((n, p) => n + p.count, 0)).toBe(total);
    expect(Number(await chart.getAttribute('data-drawn'))).toBeGreaterThan(40);

    const over = (await chart.locator('.u-over').boundingBox())!;
    await page.mouse.move(over.x + over.width * 0.85, over.y + over.height / 2);
    const tip = chart.locator('.u-over > div[aria-hidden="true"]');
    await tip.waitFor();
    expect(await tip.innerText()).toMatch(/max [\d.]+ ms · mean [\d.]+ ms · \d+ rows/);

    await page.mouse.move(over.x + over.width * 0.4, over.y + over.height / 2);
    await page.mouse.down();
    await page.mouse.move(over.x + over.width * 0.7, over.y + over.height / 2, { steps: 8 });
    await page.mouse.up();
    await page.waitForURL(/[?&]from=.*&to=/);
    const url = new URL(page.url());
    expect(url.searchParams.has('range')).toBe(false);
    const zoomed = Date.parse(url.searchParams.get('to')!) - Date.parse(url.searchParams.get('from')!);
    expect(zoomed).toBeGreaterThan(60_000);
    expect(zoomed).toBeLessThan(3_600_000 * 0.4);
    await waitFor(
      async () => Number(await page.locator('[data-total]').getAttribute('data-total')) < total,
      5_000,
      'fewer rows in the zoomed window',
    );
    expect(await page.getByLabel('Window', { exact: true }).inputValue()).toBe('custom');
    await screenshotAt(page, '41-grid-zoomed', LAPTOP);

    for (const [preset, param] of [
      ['6h', '6h'],
      ['15m', '15m'],
      ['1h', null],
    ] as const) {
      await page.getByLabel('Window', { exact: true }).selectOption(preset);
      await waitFor(
        async () =>
          new URL(page.url()).searchParams.get('range') === param &&
          !new URL(page.url()).searchParams.has('from'),
        5_000,
        `range=${param}`,
      );
    }
    await page.goto(
      `${t.url}/Administration/ArchiverStagePerformanceCounter?from=2001-01-01T00:00:00Z&to=2001-01-01T01:00:00Z`,
    );
    await page.getByText('No rows in this window: nothing to draw.').waitFor();
    expect(problems).toEqual([]);
  });

  it('Older rows reaches the oldest row of a 1 000-row window, 100 at a time, in the service’s order', async () => {
    const window = `from=${encodeURIComponent(PAGED_FROM.toISOString())}&to=${encodeURIComponent(PAGED_TO.toISOString())}`;
    const expected = (
      await api<{ rows: { id: number }[] }>(`/api/CaptureQueueHealth?${window}&take=1000`)
    ).rows.map((r) => String(r.id));
    expect(expected.length).toBe(1_000);
    await openGrid('CaptureQueueHealth', `?${window}`);
    const ids = () =>
      page
        .locator('tbody tr[data-row-id]')
        .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-row-id')!));
    const seen = await ids();
    for (let next = 2; next <= 10; next++) {
      await page.getByRole('button', { name: 'Older rows' }).click();
      await page.locator(`[data-first="${(next - 1) * 100 + 1}"]`).waitFor();
      expect(new URL(page.url()).searchParams.get('page')).toBe(String(next));
      seen.push(...(await ids()));
    }
    expect(seen).toEqual(expected);
    await page.getByText('Page 10: the oldest rows of the window.').waitFor();
    expect(await page.getByRole('button', { name: 'Older rows' }).isDisabled()).toBe(true);
    expect(Number(await page.locator('[data-total]').getAttribute('data-total'))).toBe(1_000);
    await page.getByRole('button', { name: 'Newest rows' }).click();
    await page.locator('[data-first="1"]').waitFor();
    expect(await ids()).toEqual(expected.slice(0, 100));
    expect(problems).toEqual([]);
  });

  it('the sign-in audit’s views of the attempts; the CSV starts with the BOM, ends lines with CRLF, holds the whole window whatever Rows is, and names it', async () => {
    await openGrid('UserLogin');
    const attempts = page.getByLabel('Attempts');
    await attempts.selectOption({ label: 'Refusals only' });
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/[?&]refused=true/);
    const refused = await api<{ total: number }>('/api/UserLogin?refused=true');
    await page.locator(`[data-total="${refused.total}"]`).waitFor();
    expect(refused.total).toBeGreaterThanOrEqual(2);
    await attempts.selectOption('failed');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/[?&]failed=true/);
    expect(new URL(page.url()).searchParams.has('refused')).toBe(false);
    const failed = await api<{ total: number }>('/api/UserLogin?failed=true');
    await page.locator(`[data-total="${failed.total}"]`).waitFor();
    expect(failed.total).toBeGreaterThanOrEqual(refused.total);
    const cells = await page.locator('tbody tr[data-row-id] td:nth-child(4)').allTextContents();
    expect(new Set(cells)).toEqual(new Set(['Yes']));

    // Rows is a page's size: the export is still every row of the window (a capped export: test/grids.spec.ts)
    await page.getByRole('textbox', { name: 'Rows' }).fill('1');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/[?&]take=1(&|$)/);
    expect(await page.locator('[data-capped]').count()).toBe(0);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(
      /^UserLogin_\d{4}-\d\d-\d\dT\d{4,6}Z_\d{4}-\d\d-\d\dT\d{4,6}Z\.csv$/,
    );
    const bytes = readFileSync(await download.path());
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.toString('utf8');
    expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
    expect(text.split('\r\n').filter(Boolean)).toHaveLength(1 + failed.total);
    await expectPageLabelsInCsv(page, text);
    // the sign-out audit's too
    await openGrid('UserLogout');
    const [logouts] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download CSV' }).click(),
    ]);
    await expectPageLabelsInCsv(page, readFileSync(await logouts.path()).toString('utf8'));
    expect(problems).toEqual([]);
  });

  it('every grid page: axe finds nothing serious at 1366 and 390 px, and the page never scrolls sideways on a phone', async () => {
    for (const size of [LAPTOP, PHONE]) {
      await page.setViewportSize(size);
      for (const name of CONSOLE_GRID_PAGES) {
        await openGrid(name);
        expect([name, size.width, await axeViolations(page)]).toEqual([name, size.width, []]);
        expect([name, size.width, await sidewaysScroll(page)]).toEqual([name, size.width, 0]);
      }
    }
    await page.setViewportSize(LAPTOP);
    expect(problems).toEqual([]);
  }, 120_000);
});
