import request from 'supertest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ALL_PERMISSIONS, Permission } from '@app/access';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser, landlordActor, type CreatedUser } from '../factories/identity.factory';
import { signIn } from '../support/auth';
import { launchChromium } from '../support/chromium';
import { axeViolations, LAPTOP, PHONE, sidewaysScroll, watchPage } from '../support/console-browser';
import { signInThroughPage } from '../support/console-telemetry';

const ACTIONS = ['Deactivate', 'Activate', 'Unlock', 'Revoke Sessions', 'Delete user'];

/**
 * The Security pages offer what the service allows, to a landlord, a tenant administrator and a reader;
 * roles are shown and chosen by name; the Users list is searched and paged by the service.
 */
describe('the console in Chromium, part 3: what the Security pages offer', () => {
  let t: TestApp;
  let browser: Browser;
  let landlordAdmin: CreatedUser;
  let landlordColleague: CreatedUser;
  let tenantAdmin: CreatedUser;
  let tenantUser: CreatedUser;
  let reader: CreatedUser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    const landlord = await landlordActor(t.app);
    landlordAdmin = await createUser(t.app, {
      tenantGuid: landlord.tenantGuid,
      permissions: ALL_PERMISSIONS,
    });
    landlordColleague = await createUser(t.app, { tenantGuid: landlord.tenantGuid });
    // A tenant administrator who may administer users and read the audit, but not manage roles.
    tenantAdmin = await createUser(t.app, {
      permissions: [Permission.ReadWriteSecurityUser, Permission.ReadSecurityAudit],
    });
    tenantUser = await createUser(t.app, { tenantGuid: tenantAdmin.tenantGuid, name: 'pager-user-00' });
    for (let i = 1; i < 55; i++)
      await createUser(t.app, {
        tenantGuid: tenantAdmin.tenantGuid,
        name: `pager-user-${String(i).padStart(2, '0')}`,
      });
    reader = await createUser(t.app, {
      tenantGuid: tenantAdmin.tenantGuid,
      permissions: [Permission.ReadSecurityAudit],
    });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await t?.close();
  });

  async function signedIn(user: CreatedUser): Promise<{ page: Page; problems: string[]; refused: string[] }> {
    const context = await browser.newContext({ viewport: LAPTOP });
    contexts.push(context);
    const page = await signInThroughPage(context, t.url, user.name, user.password);
    const refused: string[] = [];
    page.on('response', (r) => {
      if (r.status() === 403 || r.status() === 409)
        refused.push(`${r.status()} ${new URL(r.url()).pathname}`);
    });
    return { page, problems: watchPage(page), refused };
  }
  const offered = async (page: Page) => {
    const box = page.getByRole('region', { name: 'Actions' });
    const names: string[] = [];
    for (const name of ACTIONS)
      if ((await box.getByRole('button', { name, exact: true }).count()) > 0) names.push(name);
    return names;
  };
  async function openUser(page: Page, user: CreatedUser) {
    await page.goto(`${t.url}/Security/Users/${user.guid}`);
    await page.getByRole('heading', { name: new RegExp(`^${user.name}`) }).waitFor();
  }

  it('a landlord: never Deactivate or Delete on their own account; no Revoke Sessions or API keys for another tenant’s user', async () => {
    const { page, problems, refused } = await signedIn(landlordAdmin);
    await openUser(page, landlordAdmin);
    expect(await offered(page)).toEqual(['Revoke Sessions']);
    await page.getByText('This is your own account: you cannot deactivate or delete it.').waitFor();
    // …which is what the service says too
    const token = (await signIn(t.url, landlordAdmin.name, landlordAdmin.password)).token;
    await request(t.url)
      .post(`/api/UserRegistry/${landlordAdmin.guid}/Deactivate`)
      .set('Authorization', `Bearer ${token}`)
      .expect(409);

    await openUser(page, tenantUser);
    expect(await offered(page)).toEqual(['Deactivate', 'Delete user']);
    await page.getByText(/Revoke Sessions reaches users of your own tenant only/).waitFor();
    await page
      .getByText('API keys are listed, generated and revoked only for users of your own tenant.')
      .waitFor();
    expect(await page.getByRole('heading', { name: 'Generate API Key' }).count()).toBe(0);
    await request(t.url)
      .post(`/api/UserRegistry/RevokeTokens/${tenantUser.guid}`)
      .set('Authorization', `Bearer ${token}`)
      .expect(404);
    await request(t.url)
      .get(`/api/UserRegistryApiKey?userRegistryGuid=${tenantUser.guid}`)
      .set('Authorization', `Bearer ${token}`)
      .expect(404);

    await openUser(page, landlordColleague);
    expect(await offered(page)).toEqual(['Deactivate', 'Revoke Sessions', 'Delete user']);
    await page
      .getByRole('region', { name: 'Actions' })
      .getByRole('button', { name: 'Revoke Sessions' })
      .click();
    const dialog = page.getByRole('dialog', { name: 'Revoke every session of this user?' });
    await dialog.waitFor();
    for (const size of [LAPTOP, PHONE]) {
      await page.setViewportSize(size);
      expect([size.width, await axeViolations(page)]).toEqual([size.width, []]);
    }
    await page.setViewportSize(LAPTOP);
    await dialog.getByRole('button', { name: 'Revoke Sessions' }).click();
    await page.getByText(`Every session of ${landlordColleague.name} has ended.`).waitFor();
    expect(refused).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('a tenant administrator without role rights: roles by name, the actions on their tenant’s users, no call refused', async () => {
    const { page, problems, refused } = await signedIn(tenantAdmin);
    await page.goto(`${t.url}/Security/Users`);
    const row = page.locator(`tr[data-user-guid="${tenantUser.guid}"]`);
    await row.waitFor();
    const roleName = (
      await request(t.url)
        .get('/api/UserRegistry/AssignableRoles')
        .set('Authorization', `Bearer ${(await signIn(t.url, tenantAdmin.name, tenantAdmin.password)).token}`)
    ).body.items.find((r: { guid: string }) => r.guid === tenantUser.roleGuid).name as string;
    expect(await row.locator('td').nth(2).innerText()).toBe(roleName);
    expect(await page.locator('table').innerText()).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);

    await page.getByRole('button', { name: 'New user' }).click();
    const role = page.getByLabel('Role', { exact: true });
    expect(await role.evaluate((s) => (s as unknown as { tagName: string }).tagName)).toBe('SELECT');
    // the roles arrive after the dialog opens: wait for this one
    await role.locator('option', { hasText: roleName }).first().waitFor({ state: 'attached' });
    expect(await role.locator('option').allInnerTexts()).toContain(roleName);
    expect(await page.getByText(/identifier \(a GUID\)/).count()).toBe(0);

    await openUser(page, tenantUser);
    expect(await offered(page)).toEqual(['Deactivate', 'Revoke Sessions', 'Delete user']);
    await page.getByRole('heading', { name: 'Generate API Key' }).waitFor();
    await page.getByRole('definition').filter({ hasText: roleName }).first().waitFor();
    expect(await page.getByLabel('Role', { exact: true }).locator('option:checked').innerText()).toBe(
      roleName,
    );
    await page.goto(`${t.url}/Security/Roles`);
    await page.getByRole('alert').filter({ hasText: 'Not permitted' }).waitFor();
    expect(await page.getByRole('button', { name: 'New role' }).count()).toBe(0);
    // the page asked for roles once (by URL, not offered in the navigation); nothing else was refused
    expect(refused).toEqual(['403 /api/RoleRegistry']);
    expect(problems).toEqual([]);
  });

  it('a reader: the Security pages say "not permitted" and offer nothing to create', async () => {
    const { page, problems } = await signedIn(reader);
    for (const [path, create] of [
      ['/Security/Users', 'New user'],
      ['/Security/Roles', 'New role'],
      ['/Security/Tenants', 'Create tenant'],
    ] as const) {
      await page.goto(`${t.url}${path}`);
      await page.getByRole('alert').filter({ hasText: 'Not permitted' }).waitFor();
      expect([path, await page.getByRole('button', { name: create }).count()]).toEqual([path, 0]);
      expect([path, await axeViolations(page)]).toEqual([path, []]);
    }
    expect(problems).toEqual([]);
  });

  it('Users is searched and paged by the service: 50 a page, Next and First, a search by part of the name', async () => {
    const { page, problems } = await signedIn(tenantAdmin);
    const token = (await signIn(t.url, tenantAdmin.name, tenantAdmin.password)).token;
    const all = (
      await request(t.url).get('/api/UserRegistry?limit=1000').set('Authorization', `Bearer ${token}`)
    ).body.items as { guid: string }[];
    await page.goto(`${t.url}/Security/Users`);
    await page.getByRole('heading', { name: `Users 1–50 of ${all.length}` }).waitFor();
    const guids = () =>
      page
        .locator('tr[data-user-guid]')
        .evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-user-guid')));
    expect(await guids()).toEqual(all.slice(0, 50).map((u) => u.guid));
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByRole('heading', { name: `Users 51–${all.length} of ${all.length}` }).waitFor();
    expect(await guids()).toEqual(all.slice(50).map((u) => u.guid));
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await page.goBack();
    await page.getByRole('heading', { name: `Users 1–50 of ${all.length}` }).waitFor();

    await page.getByLabel('Search by name').fill('PAGER-USER-1');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL(/search=PAGER-USER-1/);
    await page.getByRole('heading', { name: '10 users whose name holds “PAGER-USER-1”' }).waitFor();
    const names = await page.locator('tr[data-user-guid] td:first-child').allInnerTexts();
    expect(names).toEqual(Array.from({ length: 10 }, (_, i) => `pager-user-1${i}`));
    for (const size of [LAPTOP, PHONE]) {
      await page.setViewportSize(size);
      expect([size.width, await axeViolations(page), await sidewaysScroll(page)]).toEqual([
        size.width,
        [],
        0,
      ]);
    }
    expect(problems).toEqual([]);
  });
});
