import { createHash } from 'node:crypto';
import request from 'supertest';
import { Permission } from '@app/access';
import { DEMO_MODEL_GUID, demoTransaction } from '@app/engine';
import { createUser } from '../factories/identity.factory';
import { logoutRows, signIn } from '../support/auth';
import { axeViolations, recordBodies, screenshot } from '../support/console-browser';
import { securityConsole, storedUser } from '../support/console-security';
import { signInThroughPage } from '../support/console-telemetry';
import { waitFor } from '../support/spawn-server';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const SIGN_IN = '/api/Authentication/ByUserNamePassword';

type SentBodies = ReturnType<typeof recordBodies>;

/** The Security pages of a user (the user's life, its API key, Revoke Sessions) in Debian's Chromium. */
describe('the console in Chromium: Security pages of a user', () => {
  const s = securityConsole();
  const userRow = (guid: string) => storedUser(s.t, guid);

  /** New user with WirePasswordHash: the browser sends the hash, the service accepts it at sign-in. */
  async function createWithWirePasswordHash(
    sent: SentBodies,
    name: string,
    password: string,
  ): Promise<string> {
    const { t, page, admin } = s;
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
    return guid;
  }

  /** The e-mail address edited; Reset password checks the rules in the page, then sends the flag chosen. */
  async function editThenResetPassword(sent: SentBodies, name: string, guid: string) {
    const { t, page } = s;
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
    // a reset cannot be undone: it asks first
    const confirm = page.getByRole('dialog', { name: `Reset the password of ${name}?` });
    await confirm.getByRole('button', { name: 'Reset password' }).click();
    await page.getByText(`The password of ${name} is reset.`).waitFor();
    const reset = JSON.parse(sent.find((r) => r.path === `/api/UserRegistry/${guid}/ResetPassword`)!.body!);
    expect(reset).toEqual({ password: plain, passwordExpired: false, wirePasswordHash: false });
    expect((await userRow(guid))!.WirePasswordHash).toBe(false);
    await signIn(t.url, name, plain);
  }

  /** Four wrong passwords lock the account; Unlock clears it. */
  async function lockThenUnlock(name: string, guid: string) {
    const { t, page } = s;
    for (let i = 0; i < 4; i++)
      await request(t.url)
        .post(SIGN_IN)
        .send({ userName: name, password: `wrong-${i}-password` });
    await page.reload();
    await page.getByText('Password locked').waitFor();
    // the lock lifts by itself (PasswordLockoutMilliseconds); the page says when, and that sessions keep working
    const until = (await userRow(guid))!.PasswordLockedUntil!;
    await page.getByText(/by itself, or at Unlock \(sessions keep working\)/).waitFor();
    expect(until.getTime()).toBeGreaterThan(Date.now());
    await page.getByRole('button', { name: 'Unlock' }).click();
    await page.getByText(`${name} is unlocked.`).waitFor();
    expect((await userRow(guid))!.PasswordLocked).toBe(false);
  }

  /** Deactivate, then Delete user, each confirmed in its dialog; the list no longer shows the user. */
  async function deactivateThenDelete(name: string, guid: string) {
    const { t, page, admin } = s;
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
  }

  it('users: create with WirePasswordHash (hashed in the browser), reset the password choosing the flag there, unlock, deactivate, delete', async () => {
    const { t, page, admin, problems } = s;
    const sent = recordBodies(page);
    await page.goto(`${t.url}/Security/Users`);
    await page.getByRole('link', { name: admin.name }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, '30-security-users');

    const name = `console-made-${Date.now().toString(36)}`;
    const password = 'Made-By-The-Console-1';
    const guid = await createWithWirePasswordHash(sent, name, password);
    await editThenResetPassword(sent, name, guid);
    await lockThenUnlock(name, guid);
    await deactivateThenDelete(name, guid);
    expect(problems).toEqual([]);
  });

  it('your own user page offers no Reset password (the service refuses it: ChangePassword asks for the current one)', async () => {
    const { t, page, admin, problems } = s;
    await page.goto(`${t.url}/Security/Users/${admin.guid}`);
    await page.getByText('Your own password is changed with the current one').waitFor();
    expect(await page.getByRole('button', { name: 'Reset password' }).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('Generate API Key shows the key once (copy, "not shown again"), the list never shows it; it invokes; revoke asks first', async () => {
    const { t, page, landlordTenant, problems } = s;
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
    // a revoked key stays listed, marked so, with its History and nothing to revoke
    await row.getByText(/^Revoked /).waitFor();
    await row.getByRole('link', { name: 'History of the key console key' }).waitFor();
    expect(await page.getByRole('button', { name: 'Revoke the key console key' }).count()).toBe(0);
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
    const { t, page, browser, others, admin, landlordTenant, problems } = s;
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
});
