import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { AdminEvents } from '@app/audit';
import { ALL_PERMISSIONS, Permission, PERMISSION_NAMES } from '@app/access';
import { RoleService, TenantRegistry, TenantService } from '@app/identity';
import { createUser, landlordActor, type CreatedUser } from '../factories/identity.factory';
import { launchChromium } from '../support/chromium';
import {
  axeViolations,
  LAPTOP,
  PHONE,
  screenshotAt,
  sidewaysScroll,
  watchPage,
} from '../support/console-browser';
import { signIn } from '../support/auth';
import { signInThroughPage } from '../support/console-telemetry';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The administrators' trail in the console: a role's permissions changed on the Roles page are found, old → new,
 * on the role's own history page and in its CSV; a user's refused deletions are one row with their count, first
 * and last target, and the refusing user's tenant by name.
 */
describe("the console in Chromium: Administrators' actions", () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let admin: CreatedUser;
  let role: { guid: string; name: string };
  let landlordTenantName: string;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    const landlord = await landlordActor(t.app);
    admin = await createUser(t.app, { tenantGuid: landlord.tenantGuid, permissions: ALL_PERMISSIONS });
    role = await t.app
      .get(RoleService)
      .create(landlord, { name: 'Night auditors', permissions: [Permission.Invoke] });
    landlordTenantName = (
      await t.app.get(DataSource).getRepository(TenantRegistry).findOneByOrFail({ Guid: landlord.tenantGuid })
    ).Name;
    browser = await launchChromium();
    context = await browser.newContext({ viewport: LAPTOP, acceptDownloads: true });
    page = await signInThroughPage(context, t.url, admin.name, admin.password);
    problems = watchPage(page);
  }, 120_000);
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
  });

  it("a role's permissions changed on the Roles page: on its history page and in the CSV, old → new", async () => {
    await page.goto(`${t.url}/Security/Roles`);
    await page.getByRole('button', { name: `Edit the role ${role.name}` }).click();
    await page.getByLabel(PERMISSION_NAMES[Permission.ReadSecurityAudit], { exact: true }).check();
    await page.getByRole('button', { name: 'Save role' }).click();
    await page
      .getByText(/is saved|are saved/)
      .first()
      .waitFor();

    const after = [Permission.Invoke, Permission.ReadSecurityAudit].sort((a, b) => a - b);
    const expected = `Permissions: Invoke → ${after.map((p) => PERMISSION_NAMES[p]).join(', ')}`;
    await page.getByRole('link', { name: `History of the role ${role.name}` }).click();
    await page.waitForURL(new RegExp(`/Administration/AdminEvent\\?targetGuid=${role.guid}`));
    // titled by the record's name, never its identifier
    await page.getByRole('heading', { level: 1, name: `History of ${role.name}` }).waitFor();
    expect(await page.locator(`[data-target-guid="${role.guid}"]`).innerText()).toContain(
      'Every action on this record',
    );
    const row = page.locator('tbody tr[data-row-id]').filter({ hasText: 'RoleRegistry.Update' });
    await row.first().waitFor();
    expect(await row.count()).toBe(1);
    const text = await row.innerText();
    expect(text).toContain(expected);
    expect(text).toContain(admin.name);
    // the actor's tenant is a column from 100rem (a 1920 px screen) and in the row's details below it
    expect(await row.textContent()).toContain(landlordTenantName);
    expect(text).toContain('Applied');
    // Only this role's history: the creation by the service (no administrator) is not there, nothing else is.
    expect(await page.locator('tbody tr[data-row-id]').count()).toBe(1);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download CSV' }).click(),
    ]);
    const csv = readFileSync(await download.path()).toString('utf8');
    expect(csv).toContain('Changed fields');
    expect(csv).toContain(expected);
    expect(csv).toContain('RoleRegistry.Update');
    expect(problems).toEqual([]);
  });

  it("a user's refused deletions: one row with the count, the first and last target and the user's tenant", async () => {
    const landlord = await landlordActor(t.app);
    const tenantName = 'Probing partners';
    const tenant = await t.app.get(TenantService).create(landlord, { name: tenantName });
    const prober = await createUser(t.app, {
      tenantGuid: tenant.guid,
      permissions: [Permission.ReadSecurityAudit],
    });
    const { token } = await signIn(t.url, prober.name, prober.password);
    const targets = [randomUUID(), randomUUID(), randomUUID()];
    for (const target of targets) {
      const res = await fetch(`${t.url}/api/UserRegistry/${target}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${token}` },
      });
      await res.arrayBuffer();
      expect(res.status).toBe(403);
    }
    await t.app.get(AdminEvents).flushRefusals();

    await page.goto(`${t.url}/Administration/AdminEvent?search=${encodeURIComponent(prober.name)}`);
    const row = page.locator('tbody tr[data-row-id]').filter({ hasText: 'UserRegistry.Delete' });
    await row.first().waitFor();
    expect(await row.count()).toBe(1);
    // The headings without the sort arrow.
    const headers = (await page.locator('thead th').allInnerTexts()).map((h) =>
      h.replace(/[▲▼↕]/g, '').trim(),
    );
    const cell = async (label: string) =>
      (await row.locator('td').nth(headers.indexOf(label)).innerText()).trim();
    // the first and last target are in the row's details (the table leaves identifiers to them)
    await row.getByRole('button', { name: /^Details of row/ }).click();
    const detail = (key: string) =>
      page.locator(`tr[data-details-for] [data-detail="${key}"] dd`).innerText();
    expect({
      actor: await cell('Actor'),
      tenant: await cell("Actor's tenant"),
      count: await cell('Count'),
      outcome: await cell('Outcome'),
      first: await detail('targetGuid'),
      last: await detail('lastTargetGuid'),
    }).toEqual({
      actor: prober.name,
      tenant: tenantName,
      count: '3',
      outcome: 'Refused',
      first: targets[0],
      last: targets[2],
    });
    expect(problems).toEqual([]);
  });

  it('the page at 1366 and 390 px: axe finds nothing serious, no sideways scroll; screenshots', async () => {
    await page.goto(`${t.url}/Administration/AdminEvent`);
    await page.locator('tbody tr[data-row-id]').filter({ hasText: 'UserRegistry.Delete' }).first().waitFor();
    for (const size of [LAPTOP, PHONE]) {
      await screenshotAt(page, '60-admin-events', size);
      expect([size.width, await axeViolations(page)]).toEqual([size.width, []]);
      expect([size.width, await sidewaysScroll(page)]).toEqual([size.width, 0]);
    }
    await page.setViewportSize(LAPTOP);
    await page.goto(`${t.url}/Security/Users/${admin.guid}`);
    await page.getByRole('link', { name: `History of the user ${admin.name}` }).click();
    await page.waitForURL(new RegExp(`targetGuid=${admin.guid}`));
    await page.getByRole('heading', { level: 1, name: /^History of / }).waitFor();
    expect(problems).toEqual([]);
  });
});
