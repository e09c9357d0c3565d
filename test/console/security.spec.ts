import { createHash } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ALL_PERMISSIONS, Permission } from '@app/common';
import { DEMO_MODEL_GUID, demoTransaction } from '@app/engine';
import { RoleService, UserRegistry } from '@app/identity';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser, landlordActor, type CreatedUser } from '../factories/identity.factory';
import { logoutRows, signIn } from '../support/auth';
import { launchChromium } from '../support/chromium';
import { axeViolations, recordBodies, screenshot, watchPage } from '../support/console-browser';
import { signInThroughPage } from '../support/console-telemetry';
import { waitFor } from '../support/spawn-server';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const SIGN_IN = '/api/Authentication/ByUserNamePassword';

/** The Security pages (users, API keys, Revoke Sessions, roles, tenants) in Debian's Chromium. */
describe('the console in Chromium: Security pages', () => {
  let t: TestApp;
  let browser: Browser;
  let admin: CreatedUser;
  let landlordTenant: string;
  let context: BrowserContext;
  let page: Page;
  let problems: string[];
  const others: BrowserContext[] = [];

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    landlordTenant = (await landlordActor(t.app)).tenantGuid;
    admin = await createUser(t.app, { tenantGuid: landlordTenant, permissions: ALL_PERMISSIONS });
    browser = await launchChromium();
    context = await browser.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
    page = await signInThroughPage(context, t.url, admin.name, admin.password);
    problems = watchPage(page);
  });
  afterAll(async () => {
    for (const c of others) await c.close();
    await context?.close();
    await browser?.close();
    await t?.close();
  });

  const userRow = (guid: string) =>
    t.app.get(DataSource).getRepository(UserRegistry).findOneBy({ Guid: guid });

  it('users: create with WirePasswordHash (hashed in the browser), reset the password choosing the flag there, unlock, deactivate, delete', async () => {
    const sent = recordBodies(page);
    await page.goto(`${t.url}/Security/Users`);
    await page.getByRole('link', { name: admin.name }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, '30-security-users');

    const name = `console-made-${Date.now().toString(36)}`;
    const password = 'Made-By-The-Console-1';
    await page.getByRole('button', { name: 'New user' }).click();
    await page.getByLabel('User name').fill(name);
    await page.getByLabel('Role', { exact: true }).selectOption(admin.roleGuid);
    await page.getByLabel('Initial password (optional)').fill(password);
    await page.getByLabel('Repeat the password').fill(password);
    await page.getByLabel('Must change the password at first sign-in').uncheck();
    await page.getByLabel('WirePasswordHash').check();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, '31-security-new-user');
    await page.getByRole('button', { name: 'Create user' }).click();
    await page.waitForURL(/\/Security\/Users\/[0-9a-f-]{36}$/);
    const guid = page.url().split('/').pop()!;
    await page.getByRole('heading', { name: new RegExp(`^${name}`) }).waitFor();
    const created = JSON.parse(
      sent.find((r) => r.path === '/api/UserRegistry' && r.method === 'POST')!.body!,
    );
    expect(created).toEqual({
      name,
      email: null,
      roleGuid: admin.roleGuid,
      password: sha256(password + name),
      passwordExpired: false,
      wirePasswordHash: true,
    });
    expect((await userRow(guid))!.WirePasswordHash).toBe(true);
    // The browser at sign-in sends the same hash; the service accepts it.
    await signIn(t.url, name, sha256(password + name));
    // The sign-in changed the user's record (its last sign-in, so its version): the page reads it again, or
    // its edit would be told "changed by someone else" (412).
    await page.reload();
    await page.getByRole('heading', { name: new RegExp(`^${name}`) }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, '32-security-user');

    // Edit: the e-mail address (the role stays: only roles of the user's tenant are offered).
    await page.getByLabel('E-mail', { exact: true }).fill(`${name}@example.test`);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('The changes are saved.').waitFor();
    expect((await userRow(guid))!.Email).toBe(`${name}@example.test`);

    // The rules are checked in the page before anything is hashed and sent.
    const resetBox = page.getByRole('region', { name: 'Reset password' });
    const before = sent.length;
    await resetBox.getByLabel('New password', { exact: true }).fill('short');
    await resetBox.getByLabel('Repeat the new password').fill('short');
    await page.getByRole('button', { name: 'Reset password' }).click();
    await page.getByText('The password must be between 12 and 128 characters.').waitFor();
    expect(sent.slice(before).filter((r) => r.method === 'POST')).toEqual([]);

    // Reset without the flag: the password travels as typed, the flag goes with it.
    const plain = 'Reset-Plain-Password-2';
    await resetBox.getByLabel('New password', { exact: true }).fill(plain);
    await resetBox.getByLabel('Repeat the new password').fill(plain);
    await page.getByLabel('Must change it at the next sign-in').uncheck();
    await page.getByLabel('WirePasswordHash').uncheck();
    await page.getByRole('button', { name: 'Reset password' }).click();
    await page.getByText(`The password of ${name} is reset.`).waitFor();
    const reset = JSON.parse(sent.find((r) => r.path === `/api/UserRegistry/${guid}/ResetPassword`)!.body!);
    expect(reset).toEqual({ password: plain, passwordExpired: false, wirePasswordHash: false });
    expect((await userRow(guid))!.WirePasswordHash).toBe(false);
    await signIn(t.url, name, plain);

    // Four wrong passwords lock the account; Unlock clears it.
    for (let i = 0; i < 4; i++)
      await request(t.url)
        .post(SIGN_IN)
        .send({ userName: name, password: `wrong-${i}-password` });
    await page.reload();
    await page.getByText('Password locked').waitFor();
    await page.getByRole('button', { name: 'Unlock' }).click();
    await page.getByText(`${name} is unlocked.`).waitFor();
    expect((await userRow(guid))!.PasswordLocked).toBe(false);

    await page.getByRole('button', { name: 'Deactivate' }).click();
    const dialog = page.getByRole('dialog', { name: 'Deactivate this user?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Deactivate' }).click();
    await page.getByText(`${name} is deactivated.`).waitFor();
    expect((await userRow(guid))!.Active).toBe(false);

    await page.getByRole('button', { name: 'Delete user' }).click();
    await page
      .getByRole('dialog', { name: 'Delete this user?' })
      .getByRole('button', { name: 'Delete user' })
      .click();
    await page.waitForURL(`${t.url}/Security/Users`);
    await page.getByRole('link', { name: admin.name }).waitFor();
    expect(await page.getByRole('link', { name }).count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('Generate API Key shows the key once (copy, "not shown again"), the list never shows it; it invokes; revoke asks first', async () => {
    const invoker = await createUser(t.app, { tenantGuid: landlordTenant, permissions: [Permission.Invoke] });
    const answers: string[] = [];
    page.on('response', (r) => {
      if (r.url().includes('/api/UserRegistryApiKey') && r.request().method() === 'GET')
        void r.text().then((body) => answers.push(body));
    });
    await page.goto(`${t.url}/Security/Users/${invoker.guid}`);
    await page.getByText('This user has no API key.').waitFor();
    await page.getByLabel('Name', { exact: true }).fill('console key');
    await page.getByLabel('Description (optional)').fill('made by the console test');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const field = page.getByLabel('The new API key');
    await field.waitFor();
    const key = await field.inputValue();
    expect(key.length).toBeGreaterThan(20);
    expect(await page.getByRole('alert').textContent()).toContain('It will not be shown again');
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, '33-security-api-key-shown-once');

    const row = page.locator('tr[data-key-guid]');
    await row.waitFor();
    expect(await row.textContent()).toContain(`${key.slice(0, 8)}…`);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await field.waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(key);
    await page.reload();
    await row.waitFor();
    expect(await page.content()).not.toContain(key);
    expect(answers.length).toBeGreaterThanOrEqual(2);
    for (const body of answers) expect(body).not.toContain(key);
    await screenshot(page, '34-security-api-key-listed');

    // The key works where integrations use it.
    const invoke = () =>
      request(t.url)
        .post(`/api/Invoke/EntityAnalysisModel/${DEMO_MODEL_GUID}`)
        .set('x-api-key', key)
        .send(demoTransaction(1));
    expect((await invoke()).status).toBe(200);

    await page.getByRole('button', { name: 'Revoke the key console key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this API key?' });
    await dialog.waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, '35-security-api-key-revoke-confirm');
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('This user has no API key.').waitFor();
    await waitFor(async () => (await invoke()).status === 401, 5_000, 'the revoked key to be refused');

    // Keys are made only for users of the signed-in user's own tenant: elsewhere the page does not offer it.
    const elsewhere = await createUser(t.app);
    await page.goto(`${t.url}/Security/Users/${elsewhere.guid}`);
    await page
      .getByText('API keys are listed, generated and revoked only for users of your own tenant.')
      .waitFor();
    expect(await page.getByRole('heading', { name: 'Generate API Key' }).count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('Revoke Sessions in one browser signs the user out in another: its open stream sends it to the Login page, its next request is refused', async () => {
    const target = await createUser(t.app, {
      tenantGuid: landlordTenant,
      permissions: [Permission.ReadSecurityAudit],
    });
    const second = await browser.newContext();
    others.push(second);
    const theirs = await signInThroughPage(second, t.url, target.name, target.password);
    const cookie = (await second.cookies()).find((c) => c.name === 'authentication-jwt')!;
    await theirs.goto(`${t.url}/Administration/CaptureQueueHealth`);
    await theirs.locator('[data-live="live"]').waitFor();

    await page.goto(`${t.url}/Security/Users/${target.guid}`);
    await page.getByRole('button', { name: 'Revoke Sessions' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke every session of this user?' });
    await dialog.waitFor();
    await screenshot(page, '36-security-revoke-sessions-confirm');
    const revoked = Date.now();
    await dialog.getByRole('button', { name: 'Revoke Sessions' }).click();
    await page.getByText(`Every session of ${target.name} has ended.`).waitFor();

    // The open stream is closed by the service and the page goes to the Login page at once.
    await theirs.waitForURL(/\/Account\/Login\?returnUrl=%2FAdministration%2FCaptureQueueHealth&ended=1$/, {
      timeout: 5_000,
    });
    expect(Date.now() - revoked).toBeLessThan(5_000);
    await theirs.getByLabel('User name').waitFor();
    await screenshot(theirs, '37-security-revoked-user-at-login');
    // Its token is refused on its next request.
    await request(t.url)
      .get('/api/Authentication/Session')
      .set('Cookie', `authentication-jwt=${cookie.value}`)
      .expect(401);
    const rows = await logoutRows(t.app, target.name);
    expect(rows.map((r) => [r.ReasonId, r.RevokedByUser])).toEqual([[2, admin.name]]);
    expect(problems).toEqual([]);
  });

  it('a second editor is told "changed by someone else" (412 through If-Match), and nothing of theirs is written', async () => {
    const landlord = await landlordActor(t.app);
    const roles = t.app.get(RoleService);
    const role = await roles.create(landlord, {
      name: `Contested ${Date.now().toString(36)}`,
      permissions: [1],
    });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${t.url}/Security/Roles`);
    await page.getByRole('button', { name: `Edit the role ${role.name}` }).click();
    await page.getByLabel('Name', { exact: true }).fill(`${role.name} (mine)`);
    // Someone else saves the same role while this editor still has it open.
    await roles.update(landlord, role.guid, { name: `${role.name} (theirs)` });
    const sent: (string | undefined)[] = [];
    const onRequest = (r: { method(): string; url(): string; headers(): Record<string, string> }) => {
      if (r.method() === 'PUT' && r.url().includes(role.guid)) sent.push(r.headers()['if-match']);
    };
    page.on('request', onRequest);
    await page.getByRole('button', { name: 'Save role' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'changed by someone else' });
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/nothing was saved/);
    page.off('request', onRequest);
    expect(sent).toEqual(['"1"']);
    expect((await roles.get(landlord, role.guid)).name).toBe(`${role.name} (theirs)`);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, '43-security-role-changed-by-someone-else');
    await page.setViewportSize({ width: 390, height: 844 });
    await alert.waitFor();
    await screenshot(page, '44-security-role-changed-by-someone-else-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
    // Read again, the edit goes through with the version now current.
    await page.reload();
    await page.getByRole('button', { name: `Edit the role ${role.name} (theirs)` }).click();
    await page.getByLabel('Name', { exact: true }).fill(`${role.name} (mine)`);
    await page.getByRole('button', { name: 'Save role' }).click();
    await page.getByText(`The role ${role.name} (mine) is saved.`).waitFor();
  });

  it('roles and tenants: create, edit, delete; a tenant administrator sees only its pages and "not permitted" by URL', async () => {
    await page.goto(`${t.url}/Security/Roles`);
    await page.getByRole('button', { name: 'New role' }).click();
    const role = `Console role ${Date.now().toString(36)}`;
    await page.getByLabel('Name', { exact: true }).fill(role);
    await page.getByLabel('Read Security Audit').check();
    await page.getByLabel('Invoke', { exact: true }).check();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, '38-security-new-role');
    await page.getByRole('button', { name: 'Create role' }).click();
    const line = page.getByRole('row', { name: new RegExp(role) });
    await line.waitFor();
    expect(await line.textContent()).toContain('Read Security Audit, Invoke');
    await page.getByRole('button', { name: `Edit the role ${role}` }).click();
    await page.getByLabel('Invoke', { exact: true }).uncheck();
    await page.getByRole('button', { name: 'Save role' }).click();
    await page.getByText(`The role ${role} is saved.`).waitFor();
    await waitFor(async () => !(await line.textContent())!.includes('Invoke'), 5_000, 'the edited role');
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, '39-security-roles');
    await page.getByRole('button', { name: `Delete the role ${role}` }).click();
    await page
      .getByRole('dialog', { name: 'Delete this role?' })
      .getByRole('button', { name: 'Delete role' })
      .click();
    await page.getByText(`The role ${role} is deleted.`).waitFor();
    await line.waitFor({ state: 'detached' });

    await page.goto(`${t.url}/Security/Tenants`);
    const tenant = `Console tenant ${Date.now().toString(36)}`;
    await page.getByLabel('Name', { exact: true }).fill(tenant);
    await page.getByRole('button', { name: 'Create tenant' }).click();
    await page.getByText(`The tenant ${tenant} is created.`).waitFor();
    await page.getByRole('button', { name: `Rename the tenant ${tenant}` }).click();
    await page.getByLabel(`New name of ${tenant}`).fill(`${tenant} renamed`);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText(`The tenant is now called ${tenant} renamed.`).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, '40-security-tenants');
    await page.getByRole('button', { name: `Delete the tenant ${tenant} renamed` }).click();
    await page
      .getByRole('dialog', { name: 'Delete this tenant?' })
      .getByRole('button', { name: 'Delete tenant' })
      .click();
    await page.getByText(`The tenant ${tenant} renamed is deleted.`).waitFor();

    // A tenant's administrator: users and roles of that tenant only, no tenants, no telemetry.
    const tenantAdmin = await createUser(t.app, {
      permissions: [Permission.ReadWriteSecurityUser, Permission.ReadWriteSecurityRole],
    });
    const c = await browser.newContext();
    others.push(c);
    const p = await signInThroughPage(c, t.url, tenantAdmin.name, tenantAdmin.password);
    const seen = watchPage(p);
    const nav = p.getByRole('navigation', { name: 'Console' });
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Home', 'Users', 'Roles']);
    await p.goto(`${t.url}/Security/Users`);
    await p.getByRole('link', { name: tenantAdmin.name }).waitFor();
    expect(await p.getByRole('link', { name: admin.name }).count()).toBe(0);
    expect(await axeViolations(p)).toEqual([]);
    await screenshot(p, '41-security-users-of-a-tenant');
    await p.goto(`${t.url}/Security/Tenants`);
    await p.getByRole('alert').waitFor();
    expect(await p.getByRole('alert').textContent()).toMatch(/^Not permitted/);
    await screenshot(p, '42-security-tenants-not-permitted');
    expect(seen).toEqual([]);
  });
});
