import request from 'supertest';
import type { Browser } from 'playwright-core';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser } from '../factories/identity.factory';
import { logoutRows, signIn } from '../support/auth';
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

  it('is an anonymous console page with a strict CSP and no inline script; a GET never logs anyone out', async () => {
    const u = await createUser(t.app);
    const s = await signIn(t.url, u.name, u.password);
    const page = await request(t.url).get('/Account/Logout').set('Cookie', s.cookie);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self';/);
    expect(page.headers['content-security-policy']).not.toMatch(/unsafe-inline/);
    expect(page.headers['set-cookie']).toBeUndefined();
    expect(page.text).toMatch(/<script type="module" crossorigin src="\/assets\/[\w-]+\.js"><\/script>/);
    expect(page.text).not.toMatch(/<script>|<script [^>]*>[^<]+<\/script>|\son[a-z]+=|style=|<style/i);
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
    expect(paths.filter((p) => p.startsWith('/Account') || p === '/')).toEqual([]);
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
    const button = page.getByRole('button', { name: 'Log out' });
    await button.waitFor();
    // still signed in after the GET
    await request(t.url).get(SESSION).set('Cookie', s.cookie).expect(200);
    expect(await page.getByText('every session of your account, on every device').isVisible()).toBe(true);
    const answered = page.waitForResponse((r) => r.url().endsWith('/api/Authentication/Logout'));
    await button.click();
    const response = await answered;
    expect(response.status()).toBe(200);
    expect(response.request().method()).toBe('POST');
    const done = page.getByRole('status').filter({ hasText: 'You are logged out.' });
    await done.waitFor({ timeout: 10_000 });
    expect(await button.count()).toBe(0);
    expect(await page.getByRole('alert').count()).toBe(0);
    expect((await context.cookies(t.url)).filter((c) => c.name.startsWith('authentication-'))).toEqual([]);
    expect(violations).toEqual([]);

    await request(t.url).get(SESSION).set('Cookie', s.cookie).expect(401);
    expect(await logoutRows(t.app, u.name)).toEqual([expect.objectContaining({ ReasonId: 1, OutcomeId: 1 })]);
  });
});
