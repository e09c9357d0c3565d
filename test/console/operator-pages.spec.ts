import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ApiKeyService } from '@app/api-keys';
import { RoleService } from '@app/identity';
import { ALL_PERMISSIONS, Permission } from '@app/access';
import { DatabaseSizeGauges, EventLoopDelay } from '@app/telemetry';
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
import { fillTelemetry, signInThroughPage } from '../support/console-telemetry';

interface Grid {
  rows: Record<string, unknown>[];
  total: number;
  statistics: Record<string, { count: number; mean: number | null }>;
}

/** The home page's health, the phone layout, the Not Found page, and axe on every page and dialog. */
describe('the console in Chromium, part 3: the home page, a phone, every page and dialog', () => {
  let t: TestApp;
  let browser: Browser;
  let admin: CreatedUser;
  let tenantAdmin: CreatedUser;
  let noAudit: CreatedUser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    t = await startTestApp('sqlite', {
      CaptureQueueFlushIntervalMilliseconds: '3600000',
      StageRollupIntervalMilliseconds: '3600000',
      ArchiverWarnThresholdMilliseconds: '0',
      CaseCreationWarnThresholdMilliseconds: '0',
    });
    const landlord = await landlordActor(t.app);
    admin = await createUser(t.app, { tenantGuid: landlord.tenantGuid, permissions: ALL_PERMISSIONS });
    await fillTelemetry(t.app, t.url, admin, { rounds: 3 });
    tenantAdmin = await createUser(t.app, {
      permissions: [Permission.ReadWriteSecurityUser, Permission.ReadSecurityAudit],
    });
    noAudit = await createUser(t.app, {
      tenantGuid: tenantAdmin.tenantGuid,
      permissions: [Permission.ReadWriteSecurityUser],
    });
    // failed sign-ins: two in the tenant, one against a name that does not exist (the landlord's only)
    for (const userName of [tenantAdmin.name, tenantAdmin.name, 'nobody-at-all'])
      await fetch(`${t.url}/api/Authentication/ByUserNamePassword`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ userName, password: 'not-the-password-1' }),
      });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: LAPTOP });
    page = await signInThroughPage(context, t.url, admin.name, admin.password);
    problems = watchPage(page);
  }, 90_000);
  afterAll(async () => {
    for (const c of contexts) await c.close();
    await context?.close();
    await browser?.close();
    await t?.close();
  });

  const api = <T>(p: Page, path: string) =>
    p.evaluate(async (u) => (await fetch(u)).json(), path) as Promise<T>;
  const figure = (p: Page, id: string) => p.locator(`[data-figure="${id}"]`);
  async function figureValue(p: Page, id: string): Promise<number> {
    await figure(p, id).and(p.locator('[data-value]:not([data-value=""])')).waitFor();
    return Number(await figure(p, id).getAttribute('data-value'));
  }
  /** The figure's link (its grid with the figure's window) as the API query of that grid. */
  async function gridOf(p: Page, id: string): Promise<{ href: string; answer: Grid }> {
    const href = (await figure(p, id).getByRole('link').getAttribute('href'))!;
    const [path, query] = href.split('?');
    return { href, answer: await api<Grid>(p, `/api/${path.split('/').pop()}?${query}`) };
  }

  it('the landlord’s home: queues, warnings, failed sign-ins and throughput of the hour, each the same as its grid', async () => {
    t.app.get(EventLoopDelay).closeWindow(); // a window has ended: the event loop card has figures
    await page.goto(`${t.url}/`);
    // this node's event loop, as GET /api/Runtime has it: p99 and the longest delay of the last window
    const loop = figure(page, 'event-loop').locator('dd[data-value]');
    await loop.first().waitFor();
    const [p99, longest] = (
      await loop.evaluateAll((els) => els.map((e) => e.getAttribute('data-value')))
    ).map(Number);
    expect(p99).toBeGreaterThanOrEqual(0);
    expect(p99).toBeLessThanOrEqual(longest);
    // how much the database holds, as GET /api/Runtime has it (the sizes read at most once a minute)
    await t.app.get(DatabaseSizeGauges).refresh();
    await page.reload();
    const archiveRows = figure(page, 'database').locator('[data-table="EntityAnalysisModelArchive"]');
    await archiveRows.waitFor();
    const runtime = await api<{ database: { tables: { table: string; rows: number | null }[] } }>(
      page,
      '/api/Runtime',
    );
    const archived = runtime.database.tables.find((x) => x.table === 'EntityAnalysisModelArchive')!;
    expect(archived.rows).toBeGreaterThan(0);
    expect(Number(await archiveRows.getAttribute('data-rows'))).toBe(archived.rows);
    for (const table of ['Case', 'AdminEvent', 'UserLogin', 'UserLogout'])
      expect([table, await figure(page, 'database').locator(`[data-table="${table}"]`).count()]).toEqual([
        table,
        1,
      ]);
    for (let q = 1; q <= 6; q++) {
      const depth = await figureValue(page, `queue-${q}`);
      const { answer } = await gridOf(page, `queue-${q}`);
      expect([q, depth]).toEqual([q, (answer.rows[0]?.queueDepth as number | undefined) ?? 0]);
    }
    for (const id of ['ArchiverWarning', 'CaseCreationWarning', 'ModelInvokeWarning', 'failed-sign-ins']) {
      const value = await figureValue(page, id);
      const { answer } = await gridOf(page, id);
      expect([id, value]).toEqual([id, answer.total]);
      expect([id, value > 0]).toEqual([id, true]);
    }
    for (const id of ['archived', 'cases']) {
      const value = await figureValue(page, id);
      const s = (await gridOf(page, id)).answer.statistics.invokeCount;
      expect([id, value]).toEqual([id, Math.round((s.mean ?? 0) * s.count)]);
      expect([id, value > 0]).toEqual([id, true]);
    }
    // the figure opens its grid with the same hour: the grid shows the same count
    const failed = await figureValue(page, 'failed-sign-ins');
    await figure(page, 'failed-sign-ins').getByRole('link').click();
    await page.waitForURL(/\/Administration\/UserLogin\?.*refused=true/);
    await page.locator(`[data-total="${failed}"]`).waitFor();
    // the grid's toolbar shows the view the figure counts
    expect(await page.getByLabel('Attempts').inputValue()).toBe('refused');
    await page.goto(`${t.url}/`);
    await figureValue(page, 'queue-1');
    for (const size of [PHONE, LAPTOP, DESKTOP]) {
      await screenshotAt(page, '42-home', size);
      expect([size.width, await axeViolations(page), await sidewaysScroll(page)]).toEqual([
        size.width,
        [],
        0,
      ]);
    }
    await page.setViewportSize(LAPTOP);
    expect(problems).toEqual([]);
  });

  it('a tenant user’s home shows what their permissions allow, and asks nothing the service would refuse', async () => {
    for (const [user, shown] of [
      [tenantAdmin, ['active-sessions', 'failed-sign-ins']],
      [noAudit, ['active-sessions']],
    ] as const) {
      const c = await browser.newContext({ viewport: LAPTOP });
      contexts.push(c);
      const asked: string[] = [];
      c.on('response', (r) => {
        if (new URL(r.url()).pathname.startsWith('/api/') && r.status() >= 400)
          asked.push(`${r.status()} ${r.url()}`);
      });
      const p = await signInThroughPage(c, t.url, user.name, user.password);
      await p.getByRole('heading', { name: 'Your session' }).waitFor();
      if ((shown as readonly string[]).includes('failed-sign-ins')) {
        // the tenant's own failed sign-ins: two, not the unknown name's
        expect(await figureValue(p, 'failed-sign-ins')).toBe(2);
        // the tenant's own sessions: this one (the landlord's administrator is another tenant's)
        expect(await figureValue(p, 'active-sessions')).toBe(1);
      }
      expect(
        await p.locator('[data-figure]').evaluateAll((els) => els.map((e) => e.getAttribute('data-figure'))),
      ).toEqual(shown);
      await p.waitForTimeout(500);
      expect(asked).toEqual([]);
      expect(await axeViolations(p)).toEqual([]);
    }
  });

  it('a phone: the navigation is behind Menu, and no page scrolls sideways; axe at 390 and 1366 px on every page', async () => {
    await page.setViewportSize(PHONE);
    await page.goto(`${t.url}/`);
    const menu = page.getByRole('button', { name: 'Menu' });
    const nav = page.getByRole('navigation', { name: 'Console' });
    await menu.waitFor();
    expect(await nav.isVisible()).toBe(false);
    await menu.click();
    expect(await page.getByRole('button', { name: 'Close menu' }).getAttribute('aria-expanded')).toBe('true');
    await nav.getByRole('link', { name: 'Users' }).click();
    await page.waitForURL(/\/Security\/Users$/);
    // the menu closes on the render after the navigation: wait for it (a busy machine renders later)
    await nav.waitFor({ state: 'hidden', timeout: 10_000 });
    const pages = [
      '/',
      '/Security/Users',
      `/Security/Users/${tenantAdmin.guid}`,
      `/Security/Users/${admin.guid}`,
      '/Security/Roles',
      '/Security/Tenants',
      '/Account/Logout',
      '/No/Such/Page',
    ];
    for (const size of [PHONE, LAPTOP]) {
      await page.setViewportSize(size);
      for (const path of pages) {
        await page.goto(`${t.url}${path}`);
        await page.locator('h1').first().waitFor();
        await page.waitForLoadState('networkidle');
        expect([path, size.width, await axeViolations(page)]).toEqual([path, size.width, []]);
        expect([path, size.width, await sidewaysScroll(page)]).toEqual([path, size.width, 0]);
      }
    }
    const signedOut = await browser.newContext({ viewport: PHONE });
    contexts.push(signedOut);
    const login = await signedOut.newPage();
    await login.goto(`${t.url}/Account/Login`);
    await login.getByRole('button', { name: 'Sign in' }).waitFor();
    expect([await axeViolations(login), await sidewaysScroll(login)]).toEqual([[], 0]);
    await page.setViewportSize(LAPTOP);
    expect(problems).toEqual([]);
  }, 120_000);

  it('a mistyped console path is the console’s Not Found page (404), inside the shell', async () => {
    await page.setViewportSize(LAPTOP);
    const answer = await page.goto(`${t.url}/Administration/NoSuchGrid/typo`);
    expect(answer!.status()).toBe(404);
    await page.getByRole('heading', { name: 'This page does not exist' }).waitFor();
    await page.getByRole('navigation', { name: 'Console' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('every dialog, at 1366 and 390 px: axe finds nothing serious', async () => {
    const other = await createUser(t.app, { tenantGuid: admin.tenantGuid });
    await t.app.get(ApiKeyService).create(admin.actor, { userRegistryGuid: other.guid, name: 'dialog key' });
    // Delete is offered only on a role no user holds
    await t.app
      .get(RoleService)
      .create(await landlordActor(t.app), { name: 'unused dialog role', permissions: [] });
    // on a phone a row's actions are in its details: the row's Details button opens them first
    const details =
      (name: string | RegExp, nth = 0) =>
      () =>
        page.getByRole('button', { name }).nth(nth).click();
    const dialogs: [string, () => Promise<void>, string, (() => Promise<void>)?][] = [
      [
        `/Security/Users/${other.guid}`,
        () =>
          page.getByRole('region', { name: 'Actions' }).getByRole('button', { name: 'Deactivate' }).click(),
        'Deactivate this user?',
      ],
      [
        `/Security/Users/${other.guid}`,
        () =>
          page.getByRole('region', { name: 'Actions' }).getByRole('button', { name: 'Delete user' }).click(),
        'Delete this user?',
      ],
      [
        `/Security/Users/${other.guid}`,
        () => page.getByRole('button', { name: 'Revoke the key dialog key' }).click(),
        'Revoke this API key?',
        details('Details of the key dialog key'),
      ],
      [
        '/Security/Roles',
        () => page.getByRole('button', { name: 'Delete the role unused dialog role' }).click(),
        'Delete this role?',
        details('Details of the role unused dialog role'),
      ],
      [
        '/Security/Tenants',
        () =>
          page
            .getByRole('button', { name: /^Delete the tenant/ })
            .first()
            .click(),
        'Delete this tenant?',
        // the landlord, listed first, is never deleted
        details(/^Details of the tenant/, 1),
      ],
      ['/', () => page.getByRole('button', { name: 'Change password' }).click(), 'Change password'],
    ];
    for (const size of [LAPTOP, PHONE]) {
      await page.setViewportSize(size);
      for (const [path, open, title, openRow] of dialogs) {
        await page.goto(`${t.url}${path}`);
        await page.locator('h1').first().waitFor();
        if (size === PHONE && path === '/') await page.getByRole('button', { name: 'Menu' }).waitFor();
        if (size === PHONE && openRow) await openRow();
        await open();
        const dialog = page.getByRole('dialog', { name: title });
        await dialog.waitFor();
        expect([title, size.width, await axeViolations(page)]).toEqual([title, size.width, []]);
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'hidden' });
      }
    }
    await page.setViewportSize(LAPTOP);
    expect(problems).toEqual([]);
  }, 120_000);

  it('screenshots of Users and a user at 390, 1366 and 1920 px', async () => {
    await page.goto(`${t.url}/Security/Users`);
    await page.locator('tr[data-user-guid]').first().waitFor();
    for (const size of [PHONE, LAPTOP, DESKTOP]) await screenshotAt(page, '43-users', size);
    await page.goto(`${t.url}/Security/Users/${tenantAdmin.guid}`);
    await page.getByRole('heading', { name: 'Reset password' }).waitFor();
    for (const size of [PHONE, LAPTOP, DESKTOP]) await screenshotAt(page, '44-a-user', size);
    await page.setViewportSize(LAPTOP);
  });
});
