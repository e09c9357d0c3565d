import request from 'supertest';
import type { Browser } from 'playwright-core';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser } from '../factories/identity.factory';
import { logoutRows, signIn } from '../support/auth';
import { ACCOUNT_PAGE_CSP } from '@app/sessions';
import { launchChromium } from '../support/chromium';

const SESSION = '/api/Authentication/Session';

describe('GET /Account/Logout', () => {
  let t: TestApp;
  let browser: Browser | undefined;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(async () => {
    await browser?.close();
    await t.close();
  });

  it('is an anonymous page with a strict CSP and no inline script; a GET never logs anyone out', async () => {
    const u = await createUser(t.app);
    const s = await signIn(t.url, u.name, u.password);
    const page = await request(t.url).get('/Account/Logout').set('Cookie', s.cookie);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe(ACCOUNT_PAGE_CSP);
    expect(page.headers['set-cookie']).toBeUndefined();
    expect(page.text).toMatch(/<script src="Logout.js" defer><\/script>/);
    expect(page.text).not.toMatch(/<script>|<script [^>]*>[^<]+<\/script>|\son[a-z]+=|style=/i);
    const script = await request(t.url).get('/Account/Logout.js');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    await request(t.url).get(SESSION).set('Cookie', s.cookie).expect(200);
    expect(await logoutRows(t.app)).toHaveLength(0);
  });

  it('the API explorer documents the new endpoints (not the page)', async () => {
    const u = await createUser(t.app);
    const s = await signIn(t.url, u.name, u.password);
    const doc = await request(t.url)
      .get('/swagger/json')
      .set('Authorization', `Bearer ${s.token}`)
      .expect(200);
    const paths = Object.keys((doc.body as { paths: Record<string, unknown> }).paths);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/api/Authentication/Logout',
        '/api/UserRegistry/RevokeTokens/{id}',
        '/api/Stream/Telemetry',
      ]),
    );
    expect(paths.filter((p) => p.startsWith('/Account'))).toEqual([]);
  });

  it('in Chromium: signed in, the button logs out, the message shows, and the old cookie is refused', async () => {
    const u = await createUser(t.app);
    const s = await signIn(t.url, u.name, u.password);
    browser = await launchChromium();
    const context = await browser.newContext();
    await context.addCookies([
      { name: 'authentication-jwt', value: s.token, url: t.url, httpOnly: true, sameSite: 'Lax' },
    ]);
    const page = await context.newPage();
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    await page.goto(`${t.url}/Account/Logout`);
    // still signed in after the GET
    await request(t.url).get(SESSION).set('Cookie', s.cookie).expect(200);
    expect(await page.isVisible('#done')).toBe(false);
    const answered = page.waitForResponse((r) => r.url().endsWith('/api/Authentication/Logout'));
    await page.click('#logout');
    const response = await answered;
    expect(response.status()).toBe(200);
    expect(response.request().method()).toBe('POST');
    await page.waitForSelector('#done', { state: 'visible', timeout: 10_000 });
    expect(await page.textContent('#done')).toBe('You are logged out.');
    expect(await page.isVisible('#confirm')).toBe(false);
    expect(await page.isVisible('#warning')).toBe(false);
    expect((await context.cookies(t.url)).filter((c) => c.name.startsWith('authentication-'))).toEqual([]);
    expect(violations).toEqual([]);

    await request(t.url).get(SESSION).set('Cookie', s.cookie).expect(401);
    expect(await logoutRows(t.app, u.name)).toEqual([expect.objectContaining({ ReasonId: 1, OutcomeId: 1 })]);
  });
});
