import request from 'supertest';
import type { Browser } from 'playwright-core';
import { AuthenticationType, FailureType } from '@app/audit';
import { OAUTH_CALLBACK_PATH } from '@app/auth';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser } from '../factories/identity.factory';
import { loginRows } from '../support/auth';
import {
  OIDC_CLIENT_ID,
  OIDC_CLIENT_SECRET,
  reserveOidcProvider,
  TestOidcProvider,
} from '../support/oidc-provider';
import { launchChromium } from '../support/chromium';

/**
 * OpenID Connect sign-in in a real browser against a real provider: the form_post page's own script posts
 * the code back, and the browser's own cookie rules (SameSite) decide what the callback sees.
 */
describe.each([
  ['form_post', 'False'],
  ['query (OAuthForceGet)', 'True'],
])('OpenID Connect sign-in in Chromium, %s', (_mode, forceGet) => {
  let t: TestApp;
  let idp: TestOidcProvider;
  let browser: Browser;
  beforeAll(async () => {
    idp = await reserveOidcProvider();
    t = await startTestApp('sqlite', {
      OAuthAuthentication: 'True',
      OAuthAuthority: idp.issuer,
      OAuthClientId: OIDC_CLIENT_ID,
      OAuthClientSecret: OIDC_CLIENT_SECRET,
      OAuthForceGet: forceGet,
    });
    // The service is reached as 127.0.0.1 (same site as the provider) and as localhost (another site).
    const port = new URL(t.url).port;
    await idp.start([`${t.url}${OAUTH_CALLBACK_PATH}`, `http://localhost:${port}${OAUTH_CALLBACK_PATH}`]);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await idp?.close();
  });

  async function signIn(appOrigin: string, login: string, returnUrl: string) {
    const context = await browser.newContext();
    const page = await context.newPage();
    const callbacks: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes(OAUTH_CALLBACK_PATH)) callbacks.push(r.method());
    });
    await page.goto(`${appOrigin}/Account/Login?returnUrl=${encodeURIComponent(returnUrl)}`);
    expect(new URL(page.url()).origin).toBe(idp.issuer);
    await page.fill('input[name="login"]', login);
    await page.fill('input[name="password"]', 'any password');
    await Promise.all([
      page.waitForURL((u) => u.origin === appOrigin && !u.pathname.startsWith('/api/'), { timeout: 15_000 }),
      page.click('button[type="submit"]'),
    ]);
    const cookies = await context.cookies(appOrigin);
    const landed = page.url();
    await context.close();
    return { landed, callbacks, cookies };
  }

  it('same site: signs in and lands on the local returnUrl with the session cookie', async () => {
    const u = await createUser(t.app);
    const { landed, callbacks, cookies } = await signIn(t.url, u.name, '/Account/Logout');
    expect(callbacks).toEqual([forceGet === 'True' ? 'GET' : 'POST']);
    expect(landed).toBe(`${t.url}/Account/Logout`);
    const jwt = cookies.find((c) => c.name === 'authentication-jwt');
    expect(jwt).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    expect(cookies.find((c) => c.name === 'oauth-transaction')).toBeUndefined();
    await request(t.url)
      .get('/api/Authentication/Session')
      .set('Cookie', `authentication-jwt=${jwt!.value}`)
      .expect(200);
    expect(await loginRows(t.app, u.name)).toEqual([
      expect.objectContaining({ AuthenticationTypeId: AuthenticationType.OAuth, Failed: false }),
    ]);
  });

  it('another site over plain HTTP: form_post loses the SameSite=Lax transaction cookie, GET keeps it', async () => {
    const u = await createUser(t.app);
    const other = `http://localhost:${new URL(t.url).port}`;
    const { landed, cookies } = await signIn(other, u.name, '/Account/Logout');
    const rows = await loginRows(t.app, u.name);
    if (forceGet === 'True') {
      expect(landed).toBe(`${other}/Account/Logout`);
      expect(cookies.map((c) => c.name)).toContain('authentication-jwt');
      expect(rows).toEqual([expect.objectContaining({ Failed: false })]);
    } else {
      // The documented limitation (docs/authentication.md): over HTTPS the cookie is SameSite=None; Secure.
      expect(landed).toBe(`${other}/Account/Login?failed=1`);
      expect(cookies.map((c) => c.name)).not.toContain('authentication-jwt');
      const before = await loginRows(t.app);
      expect(before.at(-1)).toMatchObject({
        Failed: true,
        FailureTypeId: FailureType.OAuthLocalValidationFailure,
      });
      expect(before.at(-1)!.FailureMessage).toMatch(/transaction cookie is missing/);
    }
  });
});
