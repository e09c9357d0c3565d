import type { Page } from 'playwright-core';
import { Permission } from '@app/access';
import { RoleService, TenantService } from '@app/identity';
import { landlordActor } from '../factories/identity.factory';
import {
  axeViolations,
  LAPTOP,
  PHONE,
  screenshot,
  screenshotAt,
  sidewaysScroll,
} from '../support/console-browser';
import { securityConsole } from '../support/console-security';

interface SecurityTable {
  name: string;
  path: () => string;
  /** The table's rows (the details rows aside). */
  rows: string;
  /** The row whose details are opened, and its Details button's name. */
  row: () => string;
  details: () => string;
  keys: string[];
  others: string[];
}

/**
 * Issue 51, item 7 on the Security pages in Debian's Chromium: at 390 px the Users, Roles, Tenants and API keys
 * tables show their key columns, fit their card, and each row's Details (from the keyboard) opens the other
 * columns, actions among them; at 1366 px every column is in the row and no Details is offered; axe at both.
 */
describe('the console in Chromium: the Security tables on a phone', () => {
  const s = securityConsole();
  let roleName: string;
  let tenantName: string;

  beforeAll(async () => {
    const landlord = await landlordActor(s.t.app);
    const role = await s.t.app
      .get(RoleService)
      .create(landlord, { name: 'Phone readers', permissions: [Number(Permission.ReadSecurityAudit)] });
    roleName = role.name;
    tenantName = 'Harbour Bank';
    await s.t.app.get(TenantService).create(landlord, { name: tenantName });
    const created = await s.page.evaluate(async (guid) => {
      const r = await fetch('/api/UserRegistryApiKey', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          userRegistryGuid: guid,
          name: 'Nightly batch',
          description: 'the ledger export',
        }),
      });
      return r.status;
    }, s.admin.guid);
    expect(created).toBe(201);
  });

  const tables = (): SecurityTable[] => [
    {
      name: 'users',
      path: () => '/Security/Users',
      rows: 'tr[data-user-guid]',
      row: () => `tr[data-user-guid="${s.admin.guid}"]`,
      details: () => `Details of the user ${s.admin.name}`,
      keys: ['Name', 'State'],
      others: ['Tenant', 'Role', 'Last sign-in'],
    },
    {
      name: 'roles',
      path: () => '/Security/Roles',
      rows: 'tr[data-role-guid]',
      row: () => 'tr[data-role-guid]:has-text("Phone readers")',
      details: () => `Details of the role ${roleName}`,
      keys: ['Name', 'Users'],
      others: ['Tenant', 'Permissions', 'Actions'],
    },
    {
      name: 'tenants',
      path: () => '/Security/Tenants',
      rows: 'tr[data-tenant-guid]',
      row: () => `tr[data-tenant-guid]:has-text("${tenantName}")`,
      details: () => `Details of the tenant ${tenantName}`,
      keys: ['Name'],
      others: ['Created', 'Actions'],
    },
    {
      name: 'api-keys',
      path: () => `/Security/Users/${s.admin.guid}`,
      rows: 'tr[data-key-guid]',
      row: () => 'tr[data-key-guid]',
      details: () => 'Details of the key Nightly batch',
      keys: ['Name', 'State'],
      others: ['Identifier', 'Description', 'Created', 'Actions'],
    },
  ];

  /** The column headers a reader sees, in order (an actions column by its hidden name). */
  async function visibleHeaders(page: Page, rows: string): Promise<string[]> {
    const headers = page
      .locator('table')
      .filter({ has: page.locator(rows) })
      .locator('thead th[data-column]');
    const out: string[] = [];
    for (const h of await headers.all()) if (await h.isVisible()) out.push((await h.textContent())!.trim());
    return out;
  }
  /** How far the table scrolls sideways inside its card's box (0 or less: it fits). */
  const boxOverflow = (page: Page, rows: string) =>
    page
      .locator('table')
      .filter({ has: page.locator(rows) })
      .evaluate((table) => table.parentElement!.scrollWidth - table.parentElement!.clientWidth);

  it('at 390 px each table shows its key columns, fits its card, and a row’s Details opens and closes its other columns from the keyboard', async () => {
    const { t, page } = s;
    await page.setViewportSize(PHONE);
    for (const table of tables()) {
      await page.goto(`${t.url}${table.path()}`);
      await page.locator(table.row()).waitFor();
      expect([table.name, await visibleHeaders(page, table.rows)]).toEqual([table.name, table.keys]);
      expect(await boxOverflow(page, table.rows)).toBeLessThanOrEqual(0);
      const details = page.getByRole('button', { name: table.details(), exact: true });
      if (table.name === 'users') {
        // in the tab order: from the user's link, Tab reaches the row's Details
        await page.getByRole('link', { name: s.admin.name, exact: true }).focus();
        await page.keyboard.press('Tab');
        expect(await page.locator(':focus').getAttribute('aria-label')).toBe(table.details());
      }
      await details.focus();
      await page.keyboard.press('Enter');
      expect(await details.getAttribute('aria-expanded')).toBe('true');
      const opened = page.locator(`#${(await details.getAttribute('aria-controls'))!}`);
      expect([table.name, (await opened.locator('dt').allInnerTexts()).map((l) => l.trim())]).toEqual([
        table.name,
        table.others,
      ]);
      expect(await boxOverflow(page, table.rows)).toBeLessThanOrEqual(0);
      expect([table.name, await axeViolations(page), await sidewaysScroll(page)]).toEqual([
        table.name,
        [],
        0,
      ]);
      await screenshot(page, `51-security-${table.name}-390-details`);
      await page.keyboard.press('Enter');
      await opened.waitFor({ state: 'detached' });
      expect(await details.getAttribute('aria-expanded')).toBe('false');
    }
    expect(s.problems).toEqual([]);
  }, 60_000);

  it('on a phone a row’s actions are in its details and work there: Edit a role, Rename a tenant, a key’s History', async () => {
    const { t, page } = s;
    await page.setViewportSize(PHONE);
    await page.goto(`${t.url}/Security/Roles`);
    const edit = page.getByRole('button', { name: `Edit the role ${roleName}` });
    expect(await edit.isVisible()).toBe(false);
    await page.getByRole('button', { name: `Details of the role ${roleName}` }).click();
    await edit.click();
    await page.getByRole('heading', { name: `Edit the role ${roleName}` }).waitFor();

    await page.goto(`${t.url}/Security/Tenants`);
    await page.getByRole('button', { name: `Details of the tenant ${tenantName}` }).click();
    await page.getByRole('button', { name: `Rename the tenant ${tenantName}` }).click();
    const field = page.getByLabel(`New name of ${tenantName}`);
    await field.waitFor();
    expect(await boxOverflow(page, 'tr[data-tenant-guid]')).toBeLessThanOrEqual(0);
    await page.getByRole('button', { name: 'Cancel', exact: true }).click();
    await field.waitFor({ state: 'detached' });

    await page.goto(`${t.url}/Security/Users/${s.admin.guid}`);
    await page.getByRole('button', { name: 'Details of the key Nightly batch' }).click();
    await page.getByRole('link', { name: 'History of the key Nightly batch' }).waitFor();
    await page.getByRole('button', { name: 'Revoke the key Nightly batch' }).waitFor();
    expect(s.problems).toEqual([]);
  }, 60_000);

  it('at 1366 px every column is in the row and no Details is offered; screenshots and axe at 390 and 1366 px', async () => {
    const { t, page } = s;
    for (const table of tables()) {
      await page.setViewportSize(LAPTOP);
      await page.goto(`${t.url}${table.path()}`);
      await page.locator(table.row()).waitFor();
      expect([table.name, (await visibleHeaders(page, table.rows)).sort()]).toEqual([
        table.name,
        [...table.keys, ...table.others].sort(),
      ]);
      expect(await page.getByRole('button', { name: table.details() }).isVisible()).toBe(false);
      expect(await boxOverflow(page, table.rows)).toBeLessThanOrEqual(0);
      await page.waitForLoadState('networkidle');
      for (const size of [PHONE, LAPTOP]) {
        await screenshotAt(page, `51-security-${table.name}`, size);
        expect([table.name, size.width, await axeViolations(page), await sidewaysScroll(page)]).toEqual([
          table.name,
          size.width,
          [],
          0,
        ]);
      }
    }
    expect(s.problems).toEqual([]);
  }, 90_000);
});
