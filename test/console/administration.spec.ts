import { readFileSync } from 'node:fs';
import request from 'supertest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { CaptureQueueHealth } from '@app/capture-queues';
import { ALL_PERMISSIONS, Permission } from '@app/access';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser, landlordActor, type CreatedUser } from '../factories/identity.factory';
import { signIn } from '../support/auth';
import { launchChromium } from '../support/chromium';
import { axeViolations, chartPaint, screenshot, watchPage } from '../support/console-browser';
import { fillTelemetry, signInThroughPage } from '../support/console-telemetry';
import { waitFor } from '../support/spawn-server';

/** CaptureQueueHealth rows are written (and pushed to the streams) this often here. */
const FLUSH_MS = 4_000;
/** The histograms' bar fill and edge colours (apps/console pages/grids/charts/Histogram.tsx). */
const BAR: [number, number, number][] = [
  [0x3f, 0x6f, 0xb0],
  [0x1d, 0x4f, 0x91],
];
/** A zone with a half-hour offset, so a time shown or sent in UTC by mistake cannot pass. */
const ZONE = 'Asia/Kolkata';

/** The eight grid pages and how many statistics panels each draws. */
const GRID_PAGES = [
  ['ArchiverStagePerformanceCounter', 4],
  ['ArchiverWarning', 1],
  ['CaseCreationStagePerformanceCounter', 4],
  ['CaseCreationWarning', 1],
  ['ModelInvokeWarning', 2],
  ['CaptureQueueHealth', 2],
  ['UserLogin', 0],
  ['UserLogout', 0],
] as const;

/** The Administration pages (the eight grids) in Debian's Chromium, over demo traffic. */
describe('the console in Chromium: Administration, the grid pages', () => {
  let t: TestApp;
  let browser: Browser;
  let admin: CreatedUser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  const others: BrowserContext[] = [];

  beforeAll(async () => {
    t = await startTestApp('sqlite', {
      CaptureQueueFlushIntervalMilliseconds: String(FLUSH_MS),
      StageRollupIntervalMilliseconds: '3600000',
      ArchiverWarnThresholdMilliseconds: '0',
      CaseCreationWarnThresholdMilliseconds: '0',
    });
    const landlord = await landlordActor(t.app);
    admin = await createUser(t.app, { tenantGuid: landlord.tenantGuid, permissions: ALL_PERMISSIONS });
    await fillTelemetry(t.app, t.url, admin);
    // One sign-out for the UserLogout grid.
    const other = await signIn(t.url, admin.name, admin.password);
    await request(t.url).post('/api/Authentication/Logout').set('Cookie', other.cookie).expect(200);
    browser = await launchChromium();
    context = await browser.newContext({ timezoneId: ZONE, acceptDownloads: true });
    page = await signInThroughPage(context, t.url, admin.name, admin.password);
    problems = watchPage(page);
  }, 60_000);
  afterAll(async () => {
    for (const c of others) await c.close();
    await context?.close();
    await browser?.close();
    await t?.close();
  });

  async function openGrid(name: string, query = '') {
    await page.goto(`${t.url}/Administration/${name}${query}`);
    await page.locator('[data-total]').waitFor();
  }

  it('every grid page loads with rows and draws its ten-bucket histograms and its time series', async () => {
    for (const [name, panels] of GRID_PAGES) {
      await openGrid(name);
      const rows = page.locator('table tbody tr[data-row-id]');
      expect([name, await rows.count()]).toEqual([name, expect.any(Number)]);
      expect(await rows.count()).toBeGreaterThan(0);
      const total = Number(await page.locator('[data-total]').getAttribute('data-total'));
      expect(total).toBeGreaterThanOrEqual(await rows.count());

      const histograms = page.locator('[data-chart="histogram"]');
      expect(await histograms.count()).toBe(panels);
      for (let i = 0; i < panels; i++) {
        const chart = histograms.nth(i);
        await chart.and(page.locator('[data-drawn="10"]')).waitFor();
        expect(await chart.getAttribute('data-buckets')).toBe('10');
        const paint = await chartPaint(chart, BAR);
        // The canvas is the box's size in device pixels, and holds one bar per non-empty bucket.
        expect(paint.canvasWidth).toBe(Math.round(paint.boxWidth * paint.ratio));
        expect(paint.canvasHeight).toBe(Math.round(170 * paint.ratio));
        expect(paint.runs).toBe(Number(await chart.getAttribute('data-nonzero')));
        expect(paint.runs).toBeGreaterThan(0);
      }
      if (panels > 0) {
        // the largest value per bucket (the warning grids also chart their count beside it)
        const series = page.locator('[data-series-value="max"] [data-chart="time-series"]');
        await series.and(page.locator('[data-drawn]')).waitFor();
        const paint = await chartPaint(series);
        expect(paint.canvasWidth).toBe(Math.round(paint.boxWidth * paint.ratio));
        expect(paint.painted).toBeGreaterThan(500);
      }
      expect([name, await axeViolations(page)]).toEqual([name, []]);
      await screenshot(page, `20-grid-${name}`);
    }
    expect(problems).toEqual([]);
  }, 120_000);

  it('the toolbar is the URL: a stage filter, take and a header sort change the URL and the rows; the sort is the service’s', async () => {
    await openGrid('ArchiverStagePerformanceCounter');
    const stages = () => page.locator('tbody tr[data-row-id] td:nth-child(2)').allTextContents();
    expect(new Set(await stages()).size).toBeGreaterThan(1);

    await page.getByLabel('Stage', { exact: true }).selectOption('2');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/[?&]stageId=2(&|$)/);
    await waitFor(
      async () => (await stages()).every((s) => s === 'CaseCreationDispatch'),
      5_000,
      'the rows of stage 2 only',
    );
    const filteredTotal = Number(await page.locator('[data-total]').getAttribute('data-total'));

    await page.getByRole('textbox', { name: 'Rows' }).fill('3');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/[?&]take=3(&|$)/);
    await page.locator('[data-shown="3"]').waitFor();
    expect(await page.getByRole('status').filter({ hasText: 'Showing' }).textContent()).toMatch(
      new RegExp(`Showing rows 1–3 of ${filteredTotal} in the window`),
    );

    // Sorting asks the service: the three smallest totals of the whole window, not a re-sorted page.
    await page.getByRole('button', { name: /^Total/ }).click();
    await page.waitForURL(/sortField=totalMicroseconds&sortDirection=asc/);
    await page.locator('th[aria-sort="ascending"]').waitFor();
    const api = await request(t.url)
      .get(
        '/api/ArchiverStagePerformanceCounter?stageId=2&take=3&sortField=totalMicroseconds&sortDirection=asc',
      )
      .set('Cookie', (await signIn(t.url, admin.name, admin.password)).cookie)
      .expect(200);
    const expected = (api.body.rows as { id: number }[]).map((r) => String(r.id));
    const ids = () =>
      page
        .locator('tbody tr[data-row-id]')
        .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-row-id')));
    await waitFor(async () => (await ids()).join() === expected.join(), 5_000, 'the service-sorted rows');
    await page.getByRole('button', { name: /^Total/ }).click();
    await page.waitForURL(/sortDirection=desc/);
    await screenshot(page, '21-grid-toolbar-stage-take-sort');

    // The bookmark reproduces the view.
    const bookmark = page.url();
    await page.goto(`${t.url}/`);
    await page.goto(bookmark);
    await page.locator('[data-shown="3"]').waitFor();
    expect(await page.getByLabel('Stage', { exact: true }).inputValue()).toBe('2');
    expect(await page.getByRole('textbox', { name: 'Rows' }).inputValue()).toBe('3');
    expect(problems).toEqual([]);
  });

  it('times are typed and shown in the browser’s zone and sent with its offset; a refused parameter is named', async () => {
    await openGrid('CaptureQueueHealth');
    expect(await page.getByText("Times are in this browser's zone (UTC+05:30)").count()).toBe(1);
    expect(await page.locator('tbody tr[data-row-id] td').first().textContent()).toContain('GMT+5:30');
    // From in the future with To left to the service (now): the service refuses, and the page names from.
    const later = new Date(Date.now() + 3_600_000);
    const local = new Date(later.getTime() + 5.5 * 3_600_000).toISOString().slice(0, 19);
    await page.getByLabel('Window', { exact: true }).selectOption('custom');
    await page.getByRole('textbox', { name: 'From' }).fill(local);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/from=/);
    const from = new URL(page.url()).searchParams.get('from')!;
    expect(from).toBe(`${local}+05:30`);
    expect(Date.parse(from)).toBe(Math.floor(later.getTime() / 1000) * 1000);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('The parameter from was refused');
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, '22-grid-400-names-the-parameter');
    expect(problems).toEqual([]);
  });

  it('live: a new CaptureQueueHealth row appears within one flush interval, and Pause stops it', async () => {
    await openGrid('CaptureQueueHealth');
    await page.locator('[data-live="live"]').waitFor();
    const newest = async () =>
      Number(await page.locator('tbody tr[data-row-id]').first().getAttribute('data-row-id'));
    const before = await newest();
    const started = Date.now();
    await waitFor(async () => (await newest()) > before, FLUSH_MS + 1_500, 'a newer CaptureQueueHealth row');
    expect(Date.now() - started).toBeLessThanOrEqual(FLUSH_MS + 1_500);
    await screenshot(page, '23-grid-live-capture-queue-health');

    await page.getByRole('button', { name: 'Pause' }).click();
    await page.locator('[data-live="paused"]').waitFor();
    expect(await page.getByRole('button', { name: 'Resume' }).getAttribute('aria-pressed')).toBe('true');
    const paused = await newest();
    await page.waitForTimeout(FLUSH_MS + 1_000);
    expect(await newest()).toBe(paused);
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.locator('[data-live="live"]').waitFor();
    expect(problems).toEqual([]);
  }, 30_000);

  it('the UserLogin CSV download holds the header and the rows of the same window', async () => {
    await openGrid('UserLogin', `?search=${admin.name}`);
    const link = page.getByRole('link', { name: 'Download CSV' });
    expect(await link.getAttribute('href')).toBe(`/api/UserLogin?search=${admin.name}&format=csv`);
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toMatch(/^UserLogin_[\dT-]+Z_[\dT-]+Z\.csv$/);
    const lines = readFileSync(await download.path(), 'utf8').split('\r\n');
    // The byte-order mark, then the page's columns in its order with its labels (times in UTC, as it says).
    expect(lines[0]).toBe(
      '\uFEFF"When (UTC)","User name","Scheme","Failed","Failure","Message","Remote address","User agent"',
    );
    const rows = lines.slice(1).filter(Boolean);
    expect(rows.length).toBe(Number(await page.locator('[data-total]').getAttribute('data-total')));
    for (const row of rows) expect(row).toContain(`"${admin.name}"`);
    await screenshot(page, '24-grid-UserLogin-csv');
    expect(problems).toEqual([]);
  });

  it('navigation shows what the user may open; a page opened by URL that the service refuses says "not permitted"', async () => {
    const landlord = await landlordActor(t.app);
    const noAudit = await createUser(t.app, {
      tenantGuid: landlord.tenantGuid,
      permissions: [Permission.ReadWriteSecurityUser],
    });
    const tenantAuditor = await createUser(t.app, { permissions: [Permission.ReadSecurityAudit] });
    for (const [user, shown, hidden, refused] of [
      [
        noAudit,
        ['Archiver stages', 'Capture queue health', 'Users'],
        ['Sign-in audit', 'Sign-out audit', 'Roles', 'Tenants'],
        'UserLogin',
      ],
      [
        tenantAuditor,
        ['Sign-in audit', 'Sign-out audit'],
        ['Archiver stages', 'Capture queue health', 'Users'],
        'CaptureQueueHealth',
      ],
    ] as const) {
      const c = await browser.newContext();
      others.push(c);
      const p = await signInThroughPage(c, t.url, user.name, user.password);
      const seen = watchPage(p);
      const nav = p.getByRole('navigation', { name: 'Console' });
      for (const label of shown)
        expect([label, await nav.getByRole('link', { name: label }).count()]).toEqual([label, 1]);
      for (const label of hidden)
        expect([label, await nav.getByRole('link', { name: label }).count()]).toEqual([label, 0]);
      await screenshot(p, `25-navigation-${user === noAudit ? 'landlord-without-audit' : 'tenant-auditor'}`);
      await p.goto(`${t.url}/Administration/${refused}`);
      const alert = p.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toMatch(/^Not permitted/);
      expect(await axeViolations(p)).toEqual([]);
      await screenshot(p, `26-not-permitted-${refused}`);
      expect(seen).toEqual([]);
    }
  });

  it('a large take: a page asks for 1 000 rows at most and lists them all; the chart covers the whole window', async () => {
    const rows = Array.from({ length: 1_500 }, (_, i) => ({
      QueueId: 1 + (i % 6),
      QueueName: 'ModelInvokeWarning',
      QueueDepth: i % 50,
      DroppedCount: 0,
      CreatedDate: new Date(Date.now() - 60_000 - i * 1_000),
      Instance: 'filler',
    }));
    const repo = t.app.get(DataSource).getRepository(CaptureQueueHealth);
    for (let i = 0; i < rows.length; i += 100) await repo.insert(rows.slice(i, i + 100));
    await openGrid('CaptureQueueHealth', '?take=5000');
    const shown = Number(await page.locator('[data-shown]').getAttribute('data-shown'));
    expect(shown).toBe(1_000);
    expect(Number(await page.locator('[data-total]').getAttribute('data-total'))).toBeGreaterThan(1_500);
    expect(await page.locator('tbody tr[data-row-id]').count()).toBe(1_000);
    // The chart is the service's series of the whole window (its buckets), not of the rows fetched.
    const series = page.locator('[data-chart="time-series"]');
    await series.and(page.locator('[data-drawn]')).waitFor();
    expect(Number(await series.getAttribute('data-drawn'))).toBeGreaterThan(10);
    expect(Number(await series.getAttribute('data-drawn'))).toBeLessThanOrEqual(240);
    expect(problems).toEqual([]);
  });
});
