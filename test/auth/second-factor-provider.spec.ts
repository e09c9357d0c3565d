import request from 'supertest';
import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { FailureType } from '@app/audit';
import { UserRegistry } from '@app/identity';
import { HttpAdapterHost } from '@nestjs/core';
import { loadSettings } from '@app/config';
import { HttpSecondFactorProvider, MOCK_PASSCODE, SecondFactorUnavailable } from '@app/auth';
import { startTestApp, TestApp } from '../support/test-app';
import { freePort } from '../support/free-port';
import { createUser } from '../factories/identity.factory';
import { loginRows } from '../support/auth';

const SIGN_IN = '/api/Authentication/ByUserNamePassword';
const PASSCODE = '/api/Authentication/Passcode';
const SESSION = '/api/Authentication/Session';
const MFA = { EnableMultifactorAuthentication: 'True' };

/** Signs in with the password and expects the 202 of a pending second factor; returns the passcode token. */
async function passwordStep(url: string, body: object): Promise<string> {
  const res = await request(url).post(SIGN_IN).send(body);
  if (res.status !== 202) throw new Error(`sign-in answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.passcodeToken as string;
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (e) {
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    });
    req.on('error', reject);
  });
}

describe('second factor against an external provider', () => {
  let provider: Server;
  let received: unknown[] = [];
  let answer: { status: number; body: string } = { status: 200, body: '{"valid":false}' };
  let t: TestApp;

  beforeAll(async () => {
    provider = createServer((req, res) => {
      void readJson(req).then((body) => {
        received.push({ method: req.method, url: req.url, body });
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
      });
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    const port = (provider.address() as AddressInfo).port;
    t = await startTestApp('sqlite', {
      ...MFA,
      MultifactorAuthenticationEndpoint: `http://127.0.0.1:${port}/otp/verify`,
      MultifactorAuthenticationApplicationId: 'decisioning-test',
      MultifactorAuthenticationClientKey: 'client-key-of-the-provider',
    });
  });
  afterAll(async () => {
    await t.close();
    await new Promise((resolve) => provider.close(resolve));
  });
  beforeEach(() => {
    received = [];
  });

  it('receives applicationId, clientKey, userName and passcode, and its answer decides', async () => {
    const u = await createUser(t.app);
    const passcodeToken = await passwordStep(t.url, { userName: u.name.toUpperCase(), password: u.password });
    answer = { status: 200, body: '{"valid":false}' };
    await request(t.url).post(PASSCODE).send({ passcodeToken, passcode: MOCK_PASSCODE }).expect(401);
    answer = { status: 200, body: '{"valid":true}' };
    const res = await request(t.url).post(PASSCODE).send({ passcodeToken, passcode: '424242' }).expect(200);
    await request(t.url).get(SESSION).set('authorization', `Bearer ${res.body.token}`).expect(200);
    const body = {
      applicationId: 'decisioning-test',
      clientKey: 'client-key-of-the-provider',
      userName: u.name, // as registered, not as typed
    };
    expect(received).toEqual([
      { method: 'POST', url: '/otp/verify', body: { ...body, passcode: MOCK_PASSCODE } },
      { method: 'POST', url: '/otp/verify', body: { ...body, passcode: '424242' } },
    ]);
    // CreatedUser is the name as typed.
    expect((await loginRows(t.app, u.name.toUpperCase())).map((r) => [r.Failed, r.FailureTypeId])).toEqual([
      [true, FailureType.SecondFactorRequired],
      [true, FailureType.SecondFactorMismatch],
      [false, null],
    ]);
  });

  it('a provider error is a 503 problem, recorded as FailureTypeId 12 (not counted), leaks no key, and the token stays usable', async () => {
    const u = await createUser(t.app);
    const passcodeToken = await passwordStep(t.url, { userName: u.name, password: u.password });
    for (const a of [
      { status: 500, body: '{"error":"boom"}' },
      { status: 200, body: 'not json' },
    ]) {
      answer = a;
      const res = await request(t.url).post(PASSCODE).send({ passcodeToken, passcode: '111111' });
      expect(res.status).toBe(503);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.headers['retry-after']).toBeDefined();
      expect(JSON.stringify(res.body)).not.toMatch(/client-key|otp\/verify|127\.0\.0\.1/);
    }
    expect((await loginRows(t.app, u.name)).map((r) => r.FailureTypeId)).toEqual([
      FailureType.SecondFactorRequired,
      FailureType.SecondFactorUnavailable,
      FailureType.SecondFactorUnavailable,
    ]);
    expect(
      (await t.app.get(DataSource).getRepository(UserRegistry).findOneByOrFail({ Guid: u.guid }))
        .FailedPasswordCount,
    ).toBe(0);
    answer = { status: 200, body: '{"valid":true}' };
    await request(t.url).post(PASSCODE).send({ passcodeToken, passcode: '111111' }).expect(200);
  });

  it('a provider that does not answer within 5 seconds is a 503', async () => {
    const silent = createServer(() => undefined); // accepts, never answers
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const slow = await startTestApp('sqlite', {
      ...MFA,
      MultifactorAuthenticationEndpoint: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/verify`,
    });
    try {
      const u = await createUser(slow.app);
      const passcodeToken = await passwordStep(slow.url, { userName: u.name, password: u.password });
      const started = Date.now();
      const res = await request(slow.url).post(PASSCODE).send({ passcodeToken, passcode: MOCK_PASSCODE });
      expect(res.status).toBe(503);
      expect(Date.now() - started).toBeGreaterThanOrEqual(4_900);
    } finally {
      await slow.close();
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('sends user information of the endpoint URL as Basic authentication, and never puts it in an error', async () => {
    const port = (provider.address() as AddressInfo).port;
    let authorization: string | undefined;
    const seen = (req: IncomingMessage) => (authorization = req.headers.authorization);
    provider.prependOnceListener('request', seen);
    answer = { status: 200, body: '{"valid":true}' };
    const settings = (endpoint: string) =>
      loadSettings({
        MultifactorAuthenticationEndpoint: endpoint,
        MultifactorAuthenticationClientKey: 'client-key-of-the-provider',
      });
    const withUser = new HttpSecondFactorProvider(
      settings(`http://mfa%20user:pa%3Ass-word@127.0.0.1:${port}/otp/verify`),
      new HttpAdapterHost(),
    );
    await expect(withUser.verify('someone', '123456')).resolves.toBe(true);
    expect(authorization).toBe(`Basic ${Buffer.from('mfa user:pa:ss-word').toString('base64')}`);
    const closed = new HttpSecondFactorProvider(
      settings(`http://mfa:pa55-word@127.0.0.1:${await freePort()}/otp/verify`),
      new HttpAdapterHost(),
    );
    const err = await closed.verify('someone', '123456').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SecondFactorUnavailable);
    expect(String((err as Error).message)).not.toMatch(/pa55|client-key|otp\/verify|someone|123456/);
  });

  it('an unreachable provider is a 503', async () => {
    const closed = await startTestApp('sqlite', {
      ...MFA,
      MultifactorAuthenticationEndpoint: `http://127.0.0.1:${await freePort()}/verify`,
    });
    try {
      const u = await createUser(closed.app);
      const passcodeToken = await passwordStep(closed.url, { userName: u.name, password: u.password });
      const res = await request(closed.url).post(PASSCODE).send({ passcodeToken, passcode: MOCK_PASSCODE });
      expect(res.status).toBe(503);
      expect((await loginRows(closed.app, u.name)).map((r) => r.FailureTypeId)).toEqual([
        FailureType.SecondFactorRequired,
        FailureType.SecondFactorUnavailable,
      ]);
    } finally {
      await closed.close();
    }
  });
});
