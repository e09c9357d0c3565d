import { createHash } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { BOOTSTRAP_ADMINISTRATOR, UserRegistry, wirePasswordHashOf } from '@app/identity';
import { startTestApp, TestApp, TEST_ADMIN_PASSWORD } from '../support/test-app';
import { createUser } from '../factories/identity.factory';
import { logoutRows, signIn } from '../support/auth';
import { launchChromium } from '../support/chromium';
import { axeViolations, recordBodies, screenshot, watchPage } from '../support/console-browser';

const SIGN_IN = '/api/Authentication/ByUserNamePassword';
const GENERIC =
  'Sign-in failed: the user name or password is not right, or the account cannot sign in. If this keeps happening, ask an administrator.';
/** A name that resolves to 127.0.0.1 in the browser only: a plain-HTTP LAN host, not a secure context. */
const LAN_HOST = 'ops-host.test';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The password-mode Login page and the signed-in shell, driven in Debian's Chromium. */
describe('the console in Chromium: password sign-in', () => {
  let t: TestApp;
  let browser: Browser;
  let contexts: BrowserContext[] = [];
  let origin: string;
  let lanOrigin: string;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    origin = t.url;
    lanOrigin = `http://${LAN_HOST}:${new URL(t.url).port}`;
    browser = await launchChromium({ args: [`--host-resolver-rules=MAP ${LAN_HOST} 127.0.0.1`] });
  });
  afterEach(async () => {
    await Promise.all(contexts.map((c) => c.close()));
    contexts = [];
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function open(url: string, options: { clock?: boolean } = {}) {
    const context = await browser.newContext();
    contexts.push(context);
    if (options.clock) await context.clock.install({ time: Date.now() });
    const page = await context.newPage();
    const problems = watchPage(page);
    const sent = recordBodies(page);
    await page.goto(url);
    return { context, page, problems, sent };
  }

  async function fillSignIn(page: Page, userName: string, password: string) {
    await page.getByLabel('User name').fill(userName);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  async function signedInHome(page: Page, at = origin) {
    await page.waitForURL(`${at}/`);
    await page.getByRole('heading', { name: 'Operations console' }).waitFor();
  }

  it('first sign-in of the bootstrap Administrator: the forced change, in one step, then the console home', async () => {
    const { page, problems, sent } = await open(`${origin}/`);
    // An anonymous browser asking for the console lands on the Login page.
    expect(page.url()).toBe(`${origin}/Account/Login?returnUrl=%2F`);
    await page.getByLabel('User name').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, '01-login-password');

    await fillSignIn(page, BOOTSTRAP_ADMINISTRATOR, TEST_ADMIN_PASSWORD);
    const newPassword = page.getByLabel('New password', { exact: true });
    await newPassword.waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('Your password has expired');
    expect(await page.getByLabel('Current password').inputValue()).toBe(TEST_ADMIN_PASSWORD);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, '02-login-password-expired');

    // The rules are checked in the page before anything is sent.
    const before = sent.filter((r) => r.path === SIGN_IN).length;
    await newPassword.fill('short');
    await page.getByLabel('Repeat the new password').fill('short');
    await page.getByRole('button', { name: 'Change password and sign in' }).click();
    await page.getByText('The new password must be between 12 and 128 characters.').waitFor();
    await newPassword.fill('Chosen-By-The-Admin-1');
    await page.getByLabel('Repeat the new password').fill('Chosen-By-The-Admin-2');
    await page.getByRole('button', { name: 'Change password and sign in' }).click();
    await page.getByText('The two new passwords are not the same.').waitFor();
    expect(sent.filter((r) => r.path === SIGN_IN)).toHaveLength(before);

    await page.getByLabel('Repeat the new password').fill('Chosen-By-The-Admin-1');
    await page.getByRole('button', { name: 'Change password and sign in' }).click();
    await signedInHome(page);
    const last = JSON.parse(sent.filter((r) => r.path === SIGN_IN).at(-1)!.body!);
    expect(last).toEqual({
      userName: BOOTSTRAP_ADMINISTRATOR,
      password: TEST_ADMIN_PASSWORD,
      newPassword: 'Chosen-By-The-Admin-1',
      repeatNewPassword: 'Chosen-By-The-Admin-1',
    });
    // The header names the user and the tenant.
    const header = await page.getByRole('banner').textContent();
    expect(header).toContain(`User ${BOOTSTRAP_ADMINISTRATOR}`);
    expect(header).toMatch(/Tenant \S+/);
    // The session is in the HttpOnly cookie only: nothing in the page's storage, nothing readable by script.
    // (Page expressions as strings: the tests are compiled without the DOM's types.)
    expect(await page.evaluate('[localStorage.length, sessionStorage.length]')).toEqual([0, 0]);
    expect(await page.evaluate('document.cookie')).not.toContain('authentication-jwt');
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, '03-console-home');
    expect(problems).toEqual([]);
    await signIn(origin, BOOTSTRAP_ADMINISTRATOR, 'Chosen-By-The-Admin-1');
  });

  it('WirePasswordHash on a plain-HTTP host: the page sends SHA-256(password + name), never the plaintext', async () => {
    const password = 'Wire-Plain-Password-9';
    const name = `wire-${Date.now()}`; // already in normalised form (the hash is of the normalised name)
    const u = await createUser(t.app, { name, password: sha256(password + name) });
    await t.app
      .get(DataSource)
      .getRepository(UserRegistry)
      .update({ Guid: u.guid }, { WirePasswordHash: true });

    const { page, problems, sent } = await open(`${lanOrigin}/Account/Login`);
    // Not a secure context: no WebCrypto here, the hash comes from the page's own library.
    expect(await page.evaluate('[window.isSecureContext, typeof crypto.subtle]')).toEqual([
      false,
      'undefined',
    ]);
    await fillSignIn(page, name, password);
    await signedInHome(page, lanOrigin);
    const bodies = sent.filter((r) => r.body !== null);
    expect(bodies.map((r) => r.path)).toEqual(['/api/Authentication/WirePasswordHash', SIGN_IN]);
    expect(JSON.parse(bodies[1].body!)).toEqual({ userName: name, password: sha256(password + name) });
    for (const r of sent) {
      expect(r.body ?? '').not.toContain(password);
      expect(r.path).not.toContain(password);
    }
    await screenshot(page, '04-signed-in-wire-password-hash-lan-host');
    expect(problems).toEqual([]);
  });

  it('WirePasswordHash: a name typed in another letter case hashes the normalised name and signs in', async () => {
    const password = 'Wire-Mixed-Password-8';
    const name = `Wire.Mixed.${Date.now()}`;
    const u = await createUser(t.app, { name, password: wirePasswordHashOf(password, name) });
    await t.app
      .get(DataSource)
      .getRepository(UserRegistry)
      .update({ Guid: u.guid }, { WirePasswordHash: true });
    const { page, problems, sent } = await open(`${lanOrigin}/Account/Login`);
    await fillSignIn(page, name.toUpperCase(), password);
    await signedInHome(page, lanOrigin);
    const body = JSON.parse(sent.filter((r) => r.path === SIGN_IN)[0].body!) as { password: string };
    expect(body.password).toBe(sha256(password + name.toLowerCase()));
    expect(problems).toEqual([]);
  });

  it('a locked account shows the same one message as any failure; the right password then fails alike', async () => {
    const u = await createUser(t.app);
    const { page, problems, sent } = await open(`${origin}/Account/Login`);
    const messages: string[] = [];
    /** One refused attempt, to its end: the answer, then the page ready again (not busy). */
    async function refused(userName: string, password: string) {
      const answered = page.waitForResponse((r) => r.url().endsWith(SIGN_IN));
      await fillSignIn(page, userName, password);
      expect((await answered).status()).toBe(401);
      await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
      messages.push((await page.getByRole('alert').textContent())!);
      expect(await page.getByLabel('Password', { exact: true }).inputValue()).toBe('');
    }
    for (let attempt = 1; attempt <= 4; attempt++) await refused(u.name, `wrong-${attempt}-password`);
    const row = await t.app.get(DataSource).getRepository(UserRegistry).findOneByOrFail({ Guid: u.guid });
    expect(row.PasswordLocked).toBe(true);
    await refused(u.name, u.password);
    // An unknown user reads exactly the same.
    await refused(`nobody-${Date.now()}`, 'whatever-password');
    expect(new Set(messages)).toEqual(new Set([GENERIC]));
    // One WirePasswordHash question per name, not per attempt (the sign-in routes are rate-limited per address).
    expect(sent.filter((r) => r.path === '/api/Authentication/WirePasswordHash')).toHaveLength(2);
    expect(page.url()).toBe(`${origin}/Account/Login`);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, '05-login-locked-generic-message');
    expect(problems).toEqual([]);
  });

  it('returnUrl: the explorer asked for anonymously is where the browser lands; a foreign URL is ignored', async () => {
    const u = await createUser(t.app);
    const { page } = await open(`${origin}/swagger/index.html`);
    expect(page.url()).toBe(`${origin}/Account/Login?returnUrl=%2Fswagger%2Findex.html`);
    await fillSignIn(page, u.name, u.password);
    await page.waitForURL(`${origin}/swagger/index.html`);
    await page
      .locator('.swagger-ui .info .title')
      .filter({ hasText: 'Decisioning operations service' })
      .waitFor();
    await screenshot(page, '13-returned-to-the-explorer');

    for (const foreign of ['https://evil.example/', '//evil.example/x', '/\\evil.example']) {
      const second = await open(`${origin}/Account/Login?returnUrl=${encodeURIComponent(foreign)}`);
      await fillSignIn(second.page, u.name, u.password);
      await signedInHome(second.page);
    }
  });

  it('Log out from the console: the page says it ends every session, a GET does not, the button does', async () => {
    const u = await createUser(t.app);
    const { page, context, problems } = await open(`${origin}/Account/Login`);
    await fillSignIn(page, u.name, u.password);
    await signedInHome(page);
    const token = (await context.cookies(origin)).find((c) => c.name === 'authentication-jwt')!.value;
    await page.getByRole('link', { name: 'Log out' }).click();
    await page.waitForURL(`${origin}/Account/Logout`);
    await page.getByText('every session of your account, on every device').waitFor();
    // Opening the page changed nothing.
    await request(origin)
      .get('/api/Authentication/Session')
      .set('Cookie', `authentication-jwt=${token}`)
      .expect(200);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, '06-logout-confirm');
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('status').filter({ hasText: 'You are logged out.' }).waitFor();
    expect((await context.cookies(origin)).filter((c) => c.name.startsWith('authentication-'))).toEqual([]);
    await request(origin)
      .get('/api/Authentication/Session')
      .set('Cookie', `authentication-jwt=${token}`)
      .expect(401);
    expect(await logoutRows(t.app, u.name)).toEqual([expect.objectContaining({ ReasonId: 1, OutcomeId: 1 })]);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, '07-logged-out');
    // Signed out, the console sends the browser back to the Login page.
    await page.goto(`${origin}/`);
    expect(page.url()).toBe(`${origin}/Account/Login?returnUrl=%2F`);
    expect(problems).toEqual([]);
  });

  it('warns before an idle session ends; "Stay signed in" slides it; an ended session goes to the Login page', async () => {
    const u = await createUser(t.app);
    const { page, context, problems } = await open(`${origin}/Account/Login`, { clock: true });
    await fillSignIn(page, u.name, u.password);
    await signedInHome(page);
    const expiry = async () =>
      Date.parse(
        decodeURIComponent(
          (await context.cookies(origin)).find((c) => c.name === 'authentication-expiry')!.value,
        ),
      );
    const first = await expiry();
    expect(await page.getByRole('button', { name: 'Stay signed in' }).count()).toBe(0);

    await page.clock.fastForward('13:30');
    const stay = page.getByRole('button', { name: 'Stay signed in' });
    await stay.waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(
      /You will be signed out at .* because nothing happened/,
    );
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, '08-idle-warning');
    const slid = page.waitForResponse((r) => r.url().endsWith('/api/Authentication/Session'));
    await stay.click();
    // A request through the cookie: the service answers a fresh token in both cookies.
    const answer = await slid;
    expect(answer.status()).toBe(200);
    expect(await answer.headerValue('set-cookie')).toMatch(/authentication-expiry=/);
    await stay.waitFor({ state: 'detached' });
    expect(await expiry()).toBeGreaterThanOrEqual(first);

    // Nothing more happens: the browser clock passes the (slid) expiry and the page leaves for the Login page.
    await page.clock.fastForward('17:00');
    await page.waitForURL(/\/Account\/Login\?returnUrl=%2F&ended=1$/);
    await page.getByText('Your session has ended. Sign in again to continue.').waitFor();
    await screenshot(page, '09-session-ended');
    expect(problems).toEqual([]);
  });

  it('Change password: a wrong current password is refused; the change ends the other sessions', async () => {
    const u = await createUser(t.app);
    const other = await signIn(origin, u.name, u.password);
    const { page, problems } = await open(`${origin}/Account/Login`);
    await fillSignIn(page, u.name, u.password);
    await signedInHome(page);
    await page.getByRole('button', { name: 'Change password' }).click();
    const dialog = page.getByRole('dialog', { name: 'Change password' });
    await dialog.waitFor();
    await dialog.getByLabel('Current password').fill('not-the-password');
    await dialog.getByLabel('New password', { exact: true }).fill('A-Brand-New-Password-7');
    await dialog.getByLabel('Repeat the new password').fill('A-Brand-New-Password-7');
    await dialog.getByRole('button', { name: 'Change password' }).click();
    await dialog.getByText('The current password is not right.').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, '10-change-password-refused');
    await dialog.getByLabel('Current password').fill(u.password);
    await dialog.getByRole('button', { name: 'Change password' }).click();
    await dialog.getByText('Your password has been changed. Your other sessions have ended.').waitFor();
    await screenshot(page, '11-change-password-done');
    await dialog.getByRole('button', { name: 'Close' }).click();
    // This browser has the new session; the other one ended; the new password works.
    const session = await page.request.get(`${origin}/api/Authentication/Session`);
    expect(session.status()).toBe(200);
    await request(origin).get('/api/Authentication/Session').set('Cookie', other.cookie).expect(401);
    await signIn(origin, u.name, 'A-Brand-New-Password-7');
    expect(problems).toEqual([]);
  });
});

describe('the console in Chromium: the absolute session lifetime', () => {
  let t: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    t = await startTestApp('sqlite', {
      SessionAbsoluteLifetimeInterval: 'n',
      SessionAbsoluteLifetimeIntervalValue: '5',
    });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('says, without a way to extend it, when the session reaches its maximum length', async () => {
    const u = await createUser(t.app);
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const problems = watchPage(page);
      await page.goto(`${t.url}/Account/Login`);
      await page.getByLabel('User name').fill(u.name);
      await page.getByLabel('Password', { exact: true }).fill(u.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${t.url}/`);
      const notice = page.getByRole('status').filter({ hasText: 'maximum length' });
      await notice.waitFor();
      expect(await notice.textContent()).toMatch(/in about 5 minutes\) and cannot be extended/);
      expect(await page.getByRole('button', { name: 'Stay signed in' }).count()).toBe(0);
      expect(await axeViolations(page)).toEqual([]);
      await screenshot(page, '12-absolute-lifetime-notice');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
