import { constants, createHash, generateKeyPairSync, privateDecrypt } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { UserRegistry } from '@app/identity';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser } from '../factories/identity.factory';
import { launchChromium } from '../support/chromium';
import { axeViolations, recordBodies, screenshot, watchPage } from '../support/console-browser';

const SIGN_IN = '/api/Authentication/ByUserNamePassword';
const LAN_HOST = 'ops-host.test';
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** PasswordAsymmetricEncryption=True: the page encrypts with WebCrypto RSA-OAEP, or refuses to send. */
describe('the console in Chromium: RSA password transport', () => {
  const keys = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const decrypt = (base64: string) =>
    privateDecrypt(
      { key: keys.privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      Buffer.from(base64, 'base64'),
    ).toString('utf8');
  let t: TestApp;
  let browser: Browser;
  let contexts: BrowserContext[] = [];

  beforeAll(async () => {
    t = await startTestApp('sqlite', {
      PasswordAsymmetricEncryption: 'True',
      PasswordAsymmetricEncryptionPublicKey: keys.publicKey,
      PasswordAsymmetricEncryptionPrivateKey: keys.privateKey,
    });
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

  async function open(url: string) {
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    const problems = watchPage(page);
    const sent = recordBodies(page);
    await page.goto(url);
    return { page, problems, sent };
  }

  async function fillSignIn(page: Page, userName: string, password: string) {
    await page.getByLabel('User name').fill(userName);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  it.each([
    ['a plain user', false],
    ['a WirePasswordHash user (hashed, then encrypted)', true],
  ])('on localhost (a secure context): %s signs in; only ciphertext leaves the page', async (_who, wire) => {
    const password = 'Rsa-Transported-Password-4';
    const name = `rsa-${wire ? 'wire' : 'plain'}-${Date.now()}`;
    const u = await createUser(t.app, { name, password: wire ? sha256(password + name) : password });
    if (wire)
      await t.app
        .get(DataSource)
        .getRepository(UserRegistry)
        .update({ Guid: u.guid }, { WirePasswordHash: true });
    const { page, problems, sent } = await open(`${t.url}/Account/Login`);
    await page.getByLabel('User name').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await fillSignIn(page, name, password);
    await page.waitForURL(`${t.url}/`);
    await page.getByRole('heading', { name: 'Operations console' }).waitFor();
    const body = JSON.parse(sent.find((r) => r.path === SIGN_IN)!.body!) as {
      userName: string;
      password: string;
    };
    expect(body.userName).toBe(name);
    expect(body.password).toMatch(/^[A-Za-z0-9+/]{300,}={0,2}$/);
    expect(decrypt(body.password)).toBe(wire ? sha256(password + name) : password);
    for (const r of sent) expect(r.body ?? '').not.toContain(password);
    if (!wire) await screenshot(page, '20-signed-in-rsa-transport');
    expect(problems).toEqual([]);
  });

  it('on a plain-HTTP LAN host, where browsers withhold WebCrypto, refuses to send and says why', async () => {
    const u = await createUser(t.app);
    const { page, problems, sent } = await open(`http://${LAN_HOST}:${new URL(t.url).port}/Account/Login`);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/only on HTTPS .*will not send your password unencrypted/);
    const button = page.getByRole('button', { name: 'Sign in' });
    expect(await button.isDisabled()).toBe(true);
    await page.getByLabel('User name').fill(u.name);
    await page.getByLabel('Password', { exact: true }).fill(u.password);
    await page.getByLabel('Password', { exact: true }).press('Enter');
    await page.waitForTimeout(300);
    expect(sent.filter((r) => r.method === 'POST')).toEqual([]);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, '21-login-rsa-refused-on-plain-http');
    expect(problems).toEqual([]);
  });
});
