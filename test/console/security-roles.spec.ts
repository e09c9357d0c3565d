import { Permission } from '@app/access';
import { RoleService } from '@app/identity';
import { landlordActor, createUser } from '../factories/identity.factory';
import { axeViolations, screenshot, watchPage } from '../support/console-browser';
import { securityConsole } from '../support/console-security';
import { signInThroughPage } from '../support/console-telemetry';
import { waitFor } from '../support/spawn-server';

/** The Security pages of roles and tenants in Debian's Chromium, and an edit that meets someone else's. */
describe('the console in Chromium: Security pages of roles and tenants', () => {
  const s = securityConsole();

  it('a second editor is told "changed by someone else" (412 through If-Match), and nothing of theirs is written', async () => {
    const { t, page } = s;
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
    const { t, page, browser, others, admin } = s;
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
