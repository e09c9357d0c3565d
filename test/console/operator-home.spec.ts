import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { ArchiverWarning, CaptureQueueHealth } from '@app/capture-queues';
import { ALL_PERMISSIONS } from '@app/access';
import { CAPTURE_QUEUE_CAPACITY, GRID_PAGE_COLUMNS } from '@app/declarations';
import { ArchiverStagePerformanceCounter } from '@app/engine';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser, landlordActor, type CreatedUser } from '../factories/identity.factory';
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

const MINUTE = 60_000;
const ago = (minutes: number) => new Date(Date.now() - minutes * MINUTE);
const MODEL = '5e1ec7ed-0000-4000-8000-0000000051a7';

/**
 * Issue 51, item 7 in Debian's Chromium: the home page an operator watches (a window of the grids' presets in
 * the URL, a sparkline per figure, queue depth against capacity, active sessions, each figure checked on the
 * grid it opens) and tables on a phone (the key columns, a row's details), with screenshots at 390, 1366 and
 * 1920 px and axe at 1366 and 390 px.
 */
describe('the console in Chromium, part 4: the home page an operator watches, tables on a phone', () => {
  let t: TestApp;
  let browser: Browser;
  let admin: CreatedUser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let roleGuid: string;

  beforeAll(async () => {
    t = await startTestApp('sqlite', {
      CaptureQueueFlushIntervalMilliseconds: '3600000',
      StageRollupIntervalMilliseconds: '3600000',
    });
    const landlord = await landlordActor(t.app);
    admin = await createUser(t.app, { tenantGuid: landlord.tenantGuid, permissions: ALL_PERMISSIONS });
    const ds = t.app.get(DataSource);
    // stage 1 of the Archiver: four rollups of 20 000 in the last hour (80 000), three of 1 000 three hours ago
    const rollup = (when: Date, invokeCount: number) => ({
      EntityAnalysisModelGuid: MODEL,
      StageId: 1,
      StageName: 'BuildArchiveJson',
      TotalMicroseconds: 5_000_000,
      MinMicroseconds: 10,
      MaxMicroseconds: 900,
      InvokeCount: invokeCount,
      CreatedDate: when,
      Instance: 'node-a',
    });
    await ds
      .getRepository(ArchiverStagePerformanceCounter)
      .insert([
        ...[10, 20, 30, 40].map((m) => rollup(ago(m), 20_000)),
        ...[180, 181, 182].map((m) => rollup(ago(m), 1_000)),
      ]);
    // archiver warnings: 2 in the last hour, 5 more three to four hours ago
    const warning = (when: Date) => ({
      EntityAnalysisModelGuid: MODEL,
      EntityAnalysisModelInstanceEntryGuid: null,
      StageId: 1,
      DurationMicroseconds: 2_000_000,
      BatchSize: 1,
      CreatedDate: when,
      Instance: 'node-a',
    });
    await ds
      .getRepository(ArchiverWarning)
      .insert([
        ...[5, 15].map((m) => warning(ago(m))),
        ...[190, 200, 210, 220, 230].map((m) => warning(ago(m))),
      ]);
    // queue 1 every 5 minutes for six hours, silent from 200 to 100 minutes ago (a gap); its latest depth 150
    const depth = (when: Date, queueDepth: number) => ({
      QueueId: 1,
      QueueName: 'ModelInvokeWarning',
      QueueDepth: queueDepth,
      DroppedCount: 0,
      CreatedDate: when,
      Instance: 'node-a',
    });
    const minutes = Array.from({ length: 72 }, (_, i) => 355 - i * 5).filter((m) => m > 200 || m < 100);
    await ds
      .getRepository(CaptureQueueHealth)
      .insert(minutes.map((m) => depth(ago(m), m < 5 ? 150 : m % 40)));
    browser = await launchChromium();
    context = await browser.newContext({ viewport: LAPTOP });
    page = await signInThroughPage(context, t.url, admin.name, admin.password);
    problems = watchPage(page);
    // administrators' actions and a record's history: a role created through the service's API
    const created = await page.evaluate(async () => {
      const r = await fetch('/api/RoleRegistry', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Watchers of the home page', permissions: [] }),
      });
      return { status: r.status, body: (await r.json()) as { guid: string } };
    });
    expect(created.status).toBe(201);
    roleGuid = created.body.guid;
  }, 90_000);
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
  });

  const figure = (id: string) => page.locator(`[data-figure="${id}"]`);
  async function figureValue(id: string): Promise<number> {
    await figure(id).and(page.locator('[data-value]:not([data-value=""])')).waitFor();
    return Number(await figure(id).getAttribute('data-value'));
  }
  /** A figure's sparkline points, once drawn ('' is a bucket nothing measured). */
  async function sparkline(id: string): Promise<(number | null)[]> {
    const svg = figure(id).locator('svg[data-sparkline]');
    await svg.waitFor();
    return (await svg.getAttribute('data-sparkline'))!.split(',').map((v) => (v === '' ? null : Number(v)));
  }
  /** Waits (the browser polls) until a figure's sparkline adds up to `sum`, or has a gap. */
  async function sparklineWhere(id: string, want: { sum?: number; gap?: boolean }): Promise<void> {
    await page.waitForFunction(
      ([selector, w]) => {
        const svg = (
          globalThis as unknown as {
            document: { querySelector(s: string): { getAttribute(n: string): string | null } | null };
          }
        ).document.querySelector(selector);
        if (svg === null) return false;
        const points = (svg.getAttribute('data-sparkline') ?? '').split(',');
        const total = points.reduce((a, v) => a + Number(v || 0), 0);
        return (w.sum === undefined || total === w.sum) && (w.gap === undefined || points.includes(''));
      },
      [`[data-figure="${id}"] svg[data-sparkline]`, want] as const,
    );
  }
  const sum = (values: (number | null)[]) => values.reduce<number>((a, v) => a + (v ?? 0), 0);

  it('a preset window changes the figures, their sparklines and the URL; each figure opens its grid where the same sum or count shows', async () => {
    await page.goto(`${t.url}/`);
    // the last hour (the default): 80 000 invocations, 2 warnings
    expect(await figureValue('archived')).toBe(80_000);
    expect(await figureValue('ArchiverWarning')).toBe(2);
    expect(sum(await sparkline('archived'))).toBe(80_000);
    expect(sum(await sparkline('ArchiverWarning'))).toBe(2);

    await page.getByLabel('Window', { exact: true }).selectOption('6h');
    await page.waitForURL(/[?&]range=6h/);
    await figure('archived').and(page.locator('[data-value="83000"]')).waitFor();
    await figure('ArchiverWarning').and(page.locator('[data-value="7"]')).waitFor();
    // a sparkline per figure: the window's buckets, adding up to the figure where the figure is a sum
    for (const id of ['archived', 'cases', 'ArchiverWarning', 'CaseCreationWarning', 'ModelInvokeWarning'])
      expect([id, (await sparkline(id)).length >= 12]).toEqual([id, true]);
    // the sparklines follow the new window (poll until their points add up to the new figures)
    await sparklineWhere('archived', { sum: 83_000 });
    expect(sum(await sparkline('archived'))).toBe(83_000);
    expect(sum(await sparkline('ArchiverWarning'))).toBe(7);
    // queue 1: a depth line with the gap left open (no measurement), and the depth against the capacity
    await sparklineWhere('queue-1', { gap: true }); // the last hour's line has none: wait for the new window's
    const queue = await sparkline('queue-1');
    expect(queue.includes(null)).toBe(true);
    expect(Math.max(...queue.map((v) => v ?? 0))).toBe(150);
    expect(await figureValue('queue-1')).toBe(150);
    const capacity = figure('queue-1').locator('[data-capacity]');
    expect(Number(await capacity.getAttribute('data-capacity'))).toBe(CAPTURE_QUEUE_CAPACITY);
    expect(
      await capacity
        .locator('meter')
        .evaluate((m) => [(m as unknown as { value: number }).value, (m as unknown as { max: number }).max]),
    ).toEqual([150, CAPTURE_QUEUE_CAPACITY]);
    expect(await capacity.innerText()).toContain(`of ${CAPTURE_QUEUE_CAPACITY.toLocaleString('en-US')}`);

    // the figure opens its grid for the same window, whose statistics show the same sum
    const homeUrl = page.url();
    const href = (await figure('archived').getByRole('link').getAttribute('href'))!;
    const window = new URLSearchParams(href.split('?')[1]);
    expect(Date.parse(window.get('to')!) - Date.parse(window.get('from')!)).toBe(6 * 60 * MINUTE);
    await figure('archived').getByRole('link').click();
    await page.waitForURL(/\/Administration\/ArchiverStagePerformanceCounter\?/);
    const gridWindow = new URL(page.url()).searchParams;
    expect([gridWindow.get('from'), gridWindow.get('to'), gridWindow.get('stageId')]).toEqual([
      window.get('from'),
      window.get('to'),
      '1',
    ]);
    const gridSum = page.locator('[data-statistics="invokeCount"] [data-sum]');
    await gridSum.waitFor();
    expect(Number(await gridSum.getAttribute('data-sum'))).toBe(83_000);
    expect(await gridSum.innerText()).toMatch(/^83[,. \u202f]?000$/);
    await page.locator('[data-total="7"]').waitFor(); // 7 rollups in the window: the grid says so too

    await page.goBack();
    await page.waitForURL(homeUrl);
    await figure('ArchiverWarning').and(page.locator('[data-value="7"]')).waitFor();
    await figure('ArchiverWarning').getByRole('link').click();
    await page.waitForURL(/\/Administration\/ArchiverWarning\?/);
    await page.locator('[data-total="7"]').waitFor();
    expect(problems).toEqual([]);
  }, 90_000);

  it('active sessions: the users signed in now, one more after a sign-in, one fewer after Revoke Sessions', async () => {
    const other = await createUser(t.app, { tenantGuid: admin.tenantGuid });
    await page.goto(`${t.url}/`);
    const before = await figureValue('active-sessions');
    expect(before).toBeGreaterThanOrEqual(1); // this browser's session at least
    const answer = await fetch(`${t.url}/api/Authentication/ByUserNamePassword`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userName: other.name, password: other.password }),
    });
    expect(answer.status).toBe(200);
    await page.reload();
    expect(await figureValue('active-sessions')).toBe(before + 1);
    const revoked = await page.evaluate(
      async (guid) => (await fetch(`/api/UserRegistry/RevokeTokens/${guid}`, { method: 'POST' })).status,
      other.guid,
    );
    expect(revoked).toBe(204);
    await page.reload();
    expect(await figureValue('active-sessions')).toBe(before);
    // the figure is the service's count
    const served = await page.evaluate(
      async () => ((await (await fetch('/api/ActiveSessions')).json()) as { count: number }).count,
    );
    expect(served).toBe(before);
    expect(await figure('active-sessions').getByRole('link').getAttribute('href')).toBe('/Security/Users');
    expect(problems).toEqual([]);
  });

  /** The table's headers a reader sees (the visible ones, without a sort arrow). */
  async function visibleHeaders(): Promise<string[]> {
    const headers = page.locator('[aria-labelledby="grid-rows-title"] thead th[data-column]');
    const out: string[] = [];
    for (const h of await headers.all())
      if (await h.isVisible()) out.push((await h.innerText()).replace(/[▲▼↕]/g, '').trim());
    return out;
  }

  it('at 390 px a table shows its key columns and a row opens every column beneath it, from the keyboard', async () => {
    await page.setViewportSize(PHONE);
    await page.goto(`${t.url}/Administration/AdminEvent`);
    await page.locator('tbody tr[data-row-id]').first().waitFor();
    expect(await visibleHeaders()).toEqual(['When', 'Action', 'Outcome']);
    // the table fits its card: nothing to scroll sideways inside it
    const box = page.locator('[aria-labelledby="grid-rows-title"][role="region"]');
    expect(await box.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
    const details = page.getByRole('button', { name: 'Details of row 1' });
    await details.focus();
    await page.keyboard.press('Enter');
    expect(await details.getAttribute('aria-expanded')).toBe('true');
    const opened = page.locator('tr[data-details-for] dt');
    expect((await opened.allInnerTexts()).map((s) => s.trim())).toEqual(
      GRID_PAGE_COLUMNS.AdminEvent.map((c) => c.label),
    );
    expect(await axeViolations(page)).toEqual([]);
    await page.keyboard.press('Enter');
    await page.locator('tr[data-details-for]').waitFor({ state: 'detached' });

    await page.goto(`${t.url}/Administration/ArchiverStagePerformanceCounter?range=6h`);
    await page.locator('tbody tr[data-row-id]').first().waitFor();
    expect(await visibleHeaders()).toEqual(['Created', 'Stage', 'Total']);
    expect(await box.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
    await page.getByRole('button', { name: 'Details of row 1' }).click();
    await page.locator('tr[data-details-for] [data-detail="invokeCount"] dd').waitFor();
    expect(
      await page.locator('tr[data-details-for] [data-detail="entityAnalysisModelGuid"] dd').innerText(),
    ).toBe(MODEL);
    // at 1366 px Administrators' actions keeps Outcome, Status and Message on screen, the table in its card
    await page.setViewportSize(LAPTOP);
    await page.goto(`${t.url}/Administration/AdminEvent`);
    await page.locator('tbody tr[data-row-id]').first().waitFor();
    for (const label of ['Outcome', 'Status', 'Message']) {
      const th = page.locator('thead th[data-column]').filter({ hasText: label }).first();
      const right = (await th.boundingBox())!;
      expect([label, right.x + right.width <= LAPTOP.width]).toEqual([label, true]);
    }
    expect(await box.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);
    expect(problems).toEqual([]);
  }, 60_000);

  it('screenshots at 390, 1366 and 1920 px; axe at 1366 and 390 px finds nothing serious on any of these pages', async () => {
    const pages: [string, string, () => Promise<void>][] = [
      ['51-home', '/?range=6h', () => figure('queue-1').locator('svg[data-sparkline]').waitFor()],
      [
        '51-grid-gap',
        '/Administration/CaptureQueueHealth?range=6h&queueId=1',
        () => page.locator('tbody tr[data-row-id]').first().waitFor(),
      ],
      [
        '51-admin-actions',
        '/Administration/AdminEvent',
        () => page.locator('tbody tr[data-row-id]').first().waitFor(),
      ],
      [
        '51-history',
        `/Administration/AdminEvent?targetGuid=${roleGuid}&from=2000-01-01T00%3A00%3A00Z`,
        () => page.getByRole('heading', { name: /History of Watchers of the home page/ }).waitFor(),
      ],
    ];
    for (const [name, path, ready] of pages) {
      await page.setViewportSize(LAPTOP);
      await page.goto(`${t.url}${path}`);
      await ready();
      await page.waitForLoadState('networkidle');
      for (const size of [PHONE, LAPTOP, DESKTOP]) {
        await screenshotAt(page, name, size);
        if (size !== DESKTOP)
          expect([name, size.width, await axeViolations(page), await sidewaysScroll(page)]).toEqual([
            name,
            size.width,
            [],
            0,
          ]);
      }
    }
    await page.setViewportSize(LAPTOP);
    expect(problems).toEqual([]);
  }, 120_000);
});
