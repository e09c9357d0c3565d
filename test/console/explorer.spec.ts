import request from 'supertest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ApiKeyService } from '@app/api-keys';
import { Permission } from '@app/access';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser } from '../factories/identity.factory';
import { signIn } from '../support/auth';
import { launchChromium } from '../support/chromium';
import { screenshot, watchPage } from '../support/console-browser';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];

type Document = { paths: Record<string, Record<string, unknown>> };

/**
 * The API explorer at the URL the README, the start banner and the spec give (/swagger/index.html), in
 * Debian's Chromium, signed in through the session cookie: every operation of the document is shown, with
 * no CSP violation, and "Try it out" works through the cookie, an API key and a bearer token (Authorize).
 */
describe('the API explorer in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let operations: number;
  const users: Awaited<ReturnType<typeof createUser>>[] = [];
  let cookieToken: string;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    for (let i = 0; i < 3; i++) users.push(await createUser(t.app, { permissions: [Permission.Invoke] }));
    cookieToken = (await signIn(t.url, users[0].name, users[0].password)).token;
    const doc = (
      await request(t.url).get('/swagger/json').set('Authorization', `Bearer ${cookieToken}`).expect(200)
    ).body as Document;
    operations = Object.values(doc.paths)
      .flatMap((item) => Object.keys(item))
      .filter((k) => METHODS.includes(k)).length;
    browser = await launchChromium();
  });
  afterEach(async () => {
    await context?.close();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function openSignedIn(path: string): Promise<{ page: Page; problems: string[] }> {
    context = await browser.newContext();
    await context.addCookies([{ name: 'authentication-jwt', value: cookieToken, url: t.url }]);
    const page = await context.newPage();
    const problems = watchPage(page);
    const failed: string[] = [];
    page.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${new URL(r.url()).pathname}`);
    });
    await page.goto(`${t.url}${path}`);
    await page.locator('.opblock').first().waitFor();
    expect(failed).toEqual([]);
    return { page, problems };
  }

  /** Runs GET /api/Authentication/Session through "Try it out" and answers the userName it shows. */
  async function trySession(page: Page): Promise<{ status: string; userName: string }> {
    const op = page.locator('#operations-Authentication-getSession');
    if (!(await op.locator('.try-out__btn').isVisible())) await op.locator('.opblock-summary').click();
    const tryOut = op.locator('.try-out__btn');
    if ((await tryOut.textContent())?.trim() === 'Try it out') await tryOut.click();
    await op.locator('.execute').click();
    const live = op.locator('.live-responses-table .response');
    await live.first().waitFor();
    const status = (await live.first().locator('.response-col_status').textContent())?.trim() ?? '';
    const body = (await live.first().locator('.response-col_description pre').first().textContent()) ?? '';
    const userName = (JSON.parse(body) as { userName?: string }).userName ?? '';
    await op.locator('.btn-clear').click();
    return { status, userName };
  }

  async function authorize(page: Page, scheme: string, value: string): Promise<void> {
    await page.locator('.auth-wrapper .authorize').click();
    const container = page.locator('.auth-container').filter({ hasText: scheme }).first();
    await container.locator('input').fill(value);
    await container.locator('.auth-btn-wrapper .authorize').click();
    await page.locator('.modal-ux .close-modal').click();
  }

  it('renders every operation of the document at /swagger/index.html, with no CSP violation', async () => {
    const { page, problems } = await openSignedIn('/swagger/index.html');
    await page
      .locator('.swagger-ui .info .title')
      .filter({ hasText: 'Decisioning operations service' })
      .waitFor();
    expect(operations).toBeGreaterThan(60);
    expect(await page.locator('.opblock').count()).toBe(operations);
    await screenshot(page, 'explorer-01-index-html');
    expect(problems).toEqual([]);
  });

  it('renders the same page at /swagger/, and /swagger sends the browser to /swagger/index.html', async () => {
    const { page, problems } = await openSignedIn('/swagger/');
    expect(await page.locator('.opblock').count()).toBe(operations);
    expect(problems).toEqual([]);
    await page.goto(`${t.url}/swagger`);
    expect(page.url()).toBe(`${t.url}/swagger/index.html`);
  });

  it('"Try it out" answers through the session cookie, an API key and a bearer token given under Authorize', async () => {
    const { page, problems } = await openSignedIn('/swagger/index.html');
    expect(await trySession(page)).toEqual({ status: '200', userName: users[0].name });

    // x-api-key comes first among the carriers, the bearer token next, the cookie last.
    const key = await t.app
      .get(ApiKeyService)
      .create(users[1].actor, { userRegistryGuid: users[1].guid, name: 'explorer' });
    await authorize(page, 'api-key', key.key);
    expect(await trySession(page)).toEqual({ status: '200', userName: users[1].name });
    await screenshot(page, 'explorer-02-try-it-out-api-key');

    const bearer = (await signIn(t.url, users[2].name, users[2].password)).token;
    await page.locator('.auth-wrapper .authorize').click();
    await page
      .locator('.auth-container')
      .filter({ hasText: 'api-key' })
      .first()
      .locator('button.authorize, button:has-text("Logout")')
      .first()
      .click();
    await page.locator('.modal-ux .close-modal').click();
    await authorize(page, 'bearer', bearer);
    expect(await trySession(page)).toEqual({ status: '200', userName: users[2].name });
    expect(problems).toEqual([]);
  });
});
