import request from 'supertest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Permission } from '@app/access';
import { RoleService, UserService } from '@app/identity';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser, landlordActor, type CreatedUser } from '../factories/identity.factory';
import { signIn } from '../support/auth';
import { launchChromium } from '../support/chromium';
import { axeViolations, DESKTOP, LAPTOP, PHONE, screenshotAt, watchPage } from '../support/console-browser';
import { signInThroughPage } from '../support/console-telemetry';

/** The permissions of the tenant administrator: users, roles and the audit, nothing of the pipelines. */
const ADMIN = [
  Permission.ReadWriteSecurityUser,
  Permission.ReadWriteSecurityRole,
  Permission.ReadSecurityAudit,
];

/**
 * A tenant administrator is offered no action the service refuses on the Roles, Users and Tenants pages (issue
 * 51, item 1): roles and users holding a permission they lack cannot be changed, a role in use cannot be
 * deleted, New role offers only their own permissions (never Read Write Tenant outside the landlord); when the
 * service refuses anyway (a change made meanwhile), the page shows the problem's own reason, and that banner
 * leaves with the action that raised it. On PostgreSQL (a security test).
 */
describe('the console in Chromium, part 4: a tenant administrator is offered only what the service accepts', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  let admin: CreatedUser;
  let strong: CreatedUser;
  let colleague: CreatedUser;
  let token: string;
  const refusals: string[] = [];

  beforeAll(async () => {
    t = await startTestApp('postgres');
    admin = await createUser(t.app, { permissions: ADMIN });
    // a user whose role holds Invoke, which the administrator lacks
    strong = await createUser(t.app, {
      tenantGuid: admin.tenantGuid,
      permissions: [Permission.Invoke, Permission.ReadSecurityAudit],
      name: 'strong-user',
    });
    colleague = await createUser(t.app, { tenantGuid: admin.tenantGuid, name: 'plain-user' });
    token = (await signIn(t.url, admin.name, admin.password)).token;
    browser = await launchChromium();
    context = await browser.newContext({ viewport: LAPTOP });
    page = await signInThroughPage(context, t.url, admin.name, admin.password);
    problems = watchPage(page);
    page.on('response', (r) => {
      if (r.status() >= 400)
        refusals.push(`${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`);
    });
  }, 120_000);
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
  });

  const api = () => ({
    put: (path: string, body: object) =>
      request(t.url).put(path).set('Authorization', `Bearer ${token}`).send(body),
    post: (path: string, body: object = {}) =>
      request(t.url).post(path).set('Authorization', `Bearer ${token}`).send(body),
    del: (path: string) => request(t.url).delete(path).set('Authorization', `Bearer ${token}`),
  });
  const roleRow = (guid: string) => page.locator(`tr[data-role-guid="${guid}"]`);
  /** The Role select's roles (not its "Choose…" prompt), which arrive after the page or dialog. */
  const roleChoices = () =>
    page.getByLabel('Role', { exact: true }).locator('option', { hasNotText: /^Choose/ });
  const buttons = async (scope: ReturnType<Page['locator']>) =>
    (await scope.getByRole('button').allInnerTexts()).map((s) => s.trim());

  it('Roles: no Edit or Delete on a role holding more; no Delete on a role in use; New role offers only what is held', async () => {
    await page.goto(`${t.url}/Security/Roles`);
    await roleRow(strong.roleGuid).waitFor();
    expect(await buttons(roleRow(strong.roleGuid))).toEqual([]);
    expect(await buttons(roleRow(admin.roleGuid))).toEqual(['Edit']);
    expect(await roleRow(admin.roleGuid).locator('td').nth(3).innerText()).toBe('1');
    // …which is what the service says
    expect((await api().put(`/api/RoleRegistry/${strong.roleGuid}`, { name: 'x' })).status).toBe(403);
    expect((await api().del(`/api/RoleRegistry/${strong.roleGuid}`)).status).toBe(403);
    expect((await api().del(`/api/RoleRegistry/${admin.roleGuid}`)).status).toBe(409);

    await page.getByRole('button', { name: 'New role' }).click();
    const permissions = page.getByRole('group', { name: 'Permissions' }).locator('label');
    // the catalogue arrives after the dialog opens: read the labels once they are there
    await permissions.first().waitFor();
    const offered = await permissions.allInnerTexts();
    expect(offered).toEqual(['Read Write Security User', 'Read Write Security Role', 'Read Security Audit']);
    await page.getByLabel('Name', { exact: true }).fill('auditors');
    for (const name of offered) await page.getByLabel(name).check();
    await page.getByRole('button', { name: 'Create role' }).click();
    await page.getByText('The role auditors is created.').waitFor();
    for (const size of [LAPTOP, PHONE]) {
      await page.setViewportSize(size);
      expect([size.width, await axeViolations(page)]).toEqual([size.width, []]);
    }
    await page.setViewportSize(LAPTOP);
    expect(refusals).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('Roles: a refusal shows the service’s reason, and the banner leaves with its action', async () => {
    await page.goto(`${t.url}/Security/Roles`);
    const unused = (await api().post('/api/RoleRegistry', { name: 'unused', permissions: [] })).body as {
      guid: string;
    };
    await page.reload();
    await roleRow(unused.guid).getByRole('button', { name: 'Delete the role unused' }).click();
    // meanwhile someone gives the role a user: the service refuses the deletion (409)
    const landlord = await landlordActor(t.app);
    await t.app.get(UserService).create(landlord, { name: 'late-user', roleGuid: unused.guid });
    await page.getByRole('dialog').getByRole('button', { name: 'Delete role' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'The role still has users; move them to another role first.' })
      .waitFor();
    await page.getByRole('button', { name: 'New role' }).click();
    await page.getByRole('heading', { name: 'New role' }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);

    // meanwhile the administrator loses Read Security Audit: the service names it
    const adminRole = (await t.app.get(RoleService).get(landlord, admin.roleGuid)).permissions;
    await t.app.get(RoleService).update(landlord, admin.roleGuid, {
      permissions: adminRole.filter((p) => p !== Number(Permission.ReadSecurityAudit)),
    });
    await page.getByLabel('Name', { exact: true }).fill('readers');
    await page.getByLabel('Read Security Audit').check();
    await page.getByRole('button', { name: 'Create role' }).click();
    await page
      .getByRole('alert')
      .filter({
        hasText:
          'Not permitted: You cannot create this role: it holds Read Security Audit, which you do not hold.',
      })
      .waitFor();
    await t.app.get(RoleService).update(landlord, admin.roleGuid, { permissions: ADMIN });
    expect(refusals.splice(0)).toEqual([
      `409 DELETE /api/RoleRegistry/${unused.guid}`,
      '403 POST /api/RoleRegistry',
    ]);
    expect(problems).toEqual([]);
  });

  it('Users: nothing offered on a user whose role holds more; the ordinary actions on the others', async () => {
    await page.goto(`${t.url}/Security/Users/${strong.guid}`);
    await page.getByRole('heading', { name: /^strong-user/ }).waitFor();
    await page.getByText(/Their role holds a permission you do not hold/).waitFor();
    expect(await buttons(page.getByRole('region', { name: 'Actions' }))).toEqual([]);
    for (const heading of ['Edit', 'Reset password', 'Generate API Key'])
      expect([heading, await page.getByRole('heading', { name: heading, exact: true }).count()]).toEqual([
        heading,
        0,
      ]);
    const refused = [
      await api().post(`/api/UserRegistry/${strong.guid}/Deactivate`),
      await api().post(`/api/UserRegistry/RevokeTokens/${strong.guid}`),
      await api().put(`/api/UserRegistry/${strong.guid}`, { email: 'a@example.com' }),
      await api().post('/api/UserRegistryApiKey', { userRegistryGuid: strong.guid, name: 'k' }),
    ];
    expect(refused.map((r) => r.status)).toEqual([403, 403, 403, 403]);

    await page.goto(`${t.url}/Security/Users/${colleague.guid}`);
    await page.getByRole('heading', { name: /^plain-user/ }).waitFor();
    expect(await buttons(page.getByRole('region', { name: 'Actions' }))).toEqual([
      'Deactivate',
      'Revoke Sessions',
      'Delete user',
      'Save changes',
    ]);
    await page.getByRole('heading', { name: 'Generate API Key' }).waitFor();

    await page.goto(`${t.url}/Security/Users/${admin.guid}`);
    await page.getByRole('heading', { name: new RegExp(`^${admin.name}`) }).waitFor();
    // one's own role cannot be changed (403): the only role offered is the one held
    // the roles arrive after the page: read the options once one is there
    await roleChoices().first().waitFor({ state: 'attached' });
    const roles = await page.getByLabel('Role', { exact: true }).locator('option').allInnerTexts();
    expect(roles.filter((r) => !r.startsWith('Choose'))).toHaveLength(1);

    await page.goto(`${t.url}/Security/Users`);
    await page.getByRole('button', { name: 'New user' }).click();
    await roleChoices().first().waitFor({ state: 'attached' });
    const choices = await page.getByLabel('Role', { exact: true }).locator('option').allInnerTexts();
    expect(choices.filter((r) => !r.startsWith('Choose'))).not.toContain(
      (await t.app.get(RoleService).get(await landlordActor(t.app), strong.roleGuid)).name,
    );
    expect(refusals).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('records people can read: Reset password asks first and then says "must change", History by name, roles by name, no empty "Update"', async () => {
    const landlord = await landlordActor(t.app);
    const oldRole = (await t.app.get(RoleService).get(landlord, colleague.roleGuid)).name;
    await page.goto(`${t.url}/Security/Users/${colleague.guid}`);
    await page.getByRole('heading', { name: /^plain-user/ }).waitFor();
    const resetBox = page.getByRole('region', { name: 'Reset password' });
    await resetBox.getByLabel('New password', { exact: true }).fill('Reset-Readable-Password-1');
    await resetBox.getByLabel('Repeat the new password').fill('Reset-Readable-Password-1');
    await resetBox.getByRole('button', { name: 'Reset password' }).click();
    const confirm = page.getByRole('dialog', { name: 'Reset the password of plain-user?' });
    await confirm.getByText('must change it at the next sign-in').waitFor();
    expect([LAPTOP.width, await axeViolations(page)]).toEqual([LAPTOP.width, []]);
    await confirm.getByRole('button', { name: 'Reset password' }).click();
    await page.getByText('The password of plain-user is reset.').waitFor();
    await page
      .getByRole('definition')
      .filter({ hasText: 'must change the password at the next sign-in' })
      .waitFor();

    // a new role, then a save that changes nothing
    await page.getByLabel('Role', { exact: true }).selectOption({ label: 'auditors' });
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('The changes are saved.').waitFor();
    await page.reload();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('The changes are saved.').waitFor();

    await page.getByRole('link', { name: 'History of the user plain-user' }).click();
    await page.getByRole('heading', { level: 1, name: 'History of plain-user' }).waitFor();
    const updates = page.locator('tbody tr[data-row-id]').filter({ hasText: 'UserRegistry.Update' });
    await updates.first().waitFor();
    expect(await updates.count()).toBe(1);
    expect(await updates.innerText()).toContain(`Role: ${oldRole} → auditors`);
    expect(await page.locator('tbody').innerText()).not.toContain('RoleRegistryId');
    for (const size of [DESKTOP, LAPTOP, PHONE]) await screenshotAt(page, 'part4-history', size);
    await page.goto(`${t.url}/Administration/AdminEvent`);
    await page.locator('[data-total]').waitFor();
    for (const size of [DESKTOP, LAPTOP, PHONE]) await screenshotAt(page, 'part4-admin-actions', size);
    await page.setViewportSize(LAPTOP);
    expect(refusals).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('Tenants: "not permitted" with the service’s reason, and nothing to create', async () => {
    await page.goto(`${t.url}/Security/Tenants`);
    await page
      .getByRole('alert')
      .filter({ hasText: /^Not permitted: (This endpoint needs|Only callers of the landlord)/ })
      .waitFor();
    expect(await page.getByRole('button', { name: 'Create tenant' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /Rename|Delete/ }).count()).toBe(0);
    expect(refusals.splice(0)).toEqual(['403 GET /api/TenantRegistry']);
    expect(problems).toEqual([]);
  });
});
