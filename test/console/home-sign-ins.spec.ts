import type { Browser, Page } from 'playwright-core';
import { FailureType } from '@app/audit';
import { BOOTSTRAP_ADMINISTRATOR } from '@app/identity';
import { startTestApp, TestApp, TEST_ADMIN_PASSWORD } from '../support/test-app';
import { loginRows } from '../support/auth';
import { launchChromium } from '../support/chromium';
import { axeViolations, LAPTOP, PHONE, screenshotAt, watchPage } from '../support/console-browser';

const NEW_PASSWORD = 'Chosen-On-A-Fresh-Install-1';

/**
 * The home page's "Failed sign-ins" on a fresh install: the bootstrap Administrator's first sign-in passes
 * through the expired one-time password (a Failed row, FailureTypeId 4, a step that asks the user to
 * continue), which is no refusal: the figure stays 0 and plain; a wrong password is one, in amber.
 */
describe('the console in Chromium: failed sign-ins on the home page of a fresh install', () => {
  let t: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const figure = (page: Page) => page.locator('[data-figure="failed-sign-ins"]');
  /** The figure once its answer arrived (data-value is empty while it loads). */
  async function shown(page: Page, value: number): Promise<string | null> {
    await figure(page)
      .and(page.locator(`[data-value="${value}"]`))
      .waitFor();
    return figure(page).getAttribute('data-tone');
  }

  it('0 and not amber after the first sign-in with its forced password change; one wrong password makes it 1, amber', async () => {
    const context = await browser.newContext({ viewport: LAPTOP });
    // The home page's hour ends at the whole second the page read the time: a page clock one second ahead of
    // the service's makes that hour hold every row the service wrote before it.
    await context.clock.install({ time: Date.now() + 1_000 });
    try {
      const page = await context.newPage();
      const problems = watchPage(page);
      await page.goto(`${t.url}/`);
      await page.getByLabel('User name').fill(BOOTSTRAP_ADMINISTRATOR);
      await page.getByLabel('Password', { exact: true }).fill(TEST_ADMIN_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      // the one-time password has expired: the page asks for a new one
      await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
      await page.getByLabel('Repeat the new password').fill(NEW_PASSWORD);
      await page.getByRole('button', { name: 'Change password and sign in' }).click();
      await page.waitForURL(`${t.url}/`);
      await page.getByRole('heading', { name: 'Operations console' }).waitFor();

      // The trail holds the step (4) before the success; the figure counts refusals only.
      expect(
        (await loginRows(t.app, BOOTSTRAP_ADMINISTRATOR)).map((r) => [r.Failed, r.FailureTypeId]),
      ).toEqual([
        [true, FailureType.PasswordExpired],
        [false, null],
      ]);
      expect(await shown(page, 0)).toBeNull();
      const href = await figure(page).getByRole('link').getAttribute('href');
      expect(new URLSearchParams(href!.split('?')[1]).get('refused')).toBe('true');
      for (const size of [PHONE, LAPTOP]) await screenshotAt(page, 'home-sign-ins-fresh', size);

      const wrong = await fetch(`${t.url}/api/Authentication/ByUserNamePassword`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ userName: BOOTSTRAP_ADMINISTRATOR, password: 'not-the-password-1' }),
      });
      expect(wrong.status).toBe(401);
      // Refresh reads the hour up to now: two seconds ahead, a second past the hour read before, whenever that was
      await context.clock.setSystemTime(Date.now() + 2_000);
      await page.getByRole('button', { name: 'Refresh' }).click();
      expect(await shown(page, 1)).toBe('bad');
      for (const size of [PHONE, LAPTOP]) {
        await screenshotAt(page, 'home-sign-ins-refused', size);
        expect([size.width, await axeViolations(page)]).toEqual([size.width, []]);
      }
      // The figure opens the sign-in audit with the same view: the one refusal, Refusals only chosen.
      await figure(page).getByRole('link').click();
      await page.waitForURL(/\/Administration\/UserLogin\?.*refused=true/);
      await page.locator('[data-total="1"]').waitFor();
      expect(await page.getByLabel('Attempts').inputValue()).toBe('refused');
      expect(await page.locator('tbody tr[data-row-id]').allTextContents()).toEqual([
        expect.stringContaining('WrongPassword'),
      ]);
      for (const size of [PHONE, LAPTOP]) await screenshotAt(page, 'sign-in-audit-refusals', size);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
