import { constants, generateKeyPairSync, publicEncrypt } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { LogoutOutcome, LogoutReason } from '@app/audit';
import { BOOTSTRAP_ADMINISTRATOR, UserRegistry, wirePasswordHashOf } from '@app/identity';
import { startTestApp, TestApp, TEST_ADMIN_PASSWORD } from '../support/test-app';
import { TEST_PROVIDERS } from '../support/databases';
import { createUser } from '../factories/identity.factory';
import { cookieValue, loginRows, logoutRows, setCookiesOf, signIn } from '../support/auth';

const SIGN_IN = '/api/Authentication/ByUserNamePassword';
const CHANGE = '/api/Authentication/ChangePassword';
const SESSION = '/api/Authentication/Session';
const GENERIC = { status: 401, type: 'urn:problem-type:sign-in-failed' };

describe.each(TEST_PROVIDERS)('password change on %s', (provider) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(provider);
  });
  afterAll(() => t.close());

  it('an expired password is changed through sign-in with newPassword, and the new one works', async () => {
    const newPassword = 'A-new-administrator-password';
    const bad = await request(t.url)
      .post(SIGN_IN)
      .send({
        userName: BOOTSTRAP_ADMINISTRATOR,
        password: TEST_ADMIN_PASSWORD,
        newPassword,
        repeatNewPassword: 'other',
      })
      .expect(422);
    expect(bad.body.errors[0].field).toBe('repeatNewPassword');
    const short = await request(t.url)
      .post(SIGN_IN)
      .send({
        userName: BOOTSTRAP_ADMINISTRATOR,
        password: TEST_ADMIN_PASSWORD,
        newPassword: 'short',
        repeatNewPassword: 'short',
      })
      .expect(422);
    expect(short.body.detail).toMatch(/12 to 128/);
    await request(t.url)
      .post(SIGN_IN)
      .send({
        userName: BOOTSTRAP_ADMINISTRATOR,
        password: TEST_ADMIN_PASSWORD,
        newPassword: TEST_ADMIN_PASSWORD,
        repeatNewPassword: TEST_ADMIN_PASSWORD,
      })
      .expect(422);
    const res = await request(t.url)
      .post(SIGN_IN)
      .send({
        userName: BOOTSTRAP_ADMINISTRATOR,
        password: TEST_ADMIN_PASSWORD,
        newPassword,
        repeatNewPassword: newPassword,
      })
      .expect(200);
    await request(t.url).get(SESSION).set('Authorization', `Bearer ${res.body.token}`).expect(200);
    await request(t.url)
      .post(SIGN_IN)
      .send({ userName: BOOTSTRAP_ADMINISTRATOR, password: TEST_ADMIN_PASSWORD })
      .expect(401);
    await signIn(t.url, BOOTSTRAP_ADMINISTRATOR, newPassword);
    const cuts = await logoutRows(t.app, BOOTSTRAP_ADMINISTRATOR);
    expect(cuts).toHaveLength(1);
    expect(cuts[0]).toMatchObject({
      ReasonId: LogoutReason.PasswordChanged,
      OutcomeId: LogoutOutcome.Revoked,
    });
  });

  it('ChangePassword ends every earlier session and signs the changer in with a new one', async () => {
    const u = await createUser(t.app);
    const a = await signIn(t.url, u.name, u.password);
    const b = await signIn(t.url, u.name, u.password);
    const newPassword = 'Another-long-password-1';
    const res = await request(t.url)
      .post(CHANGE)
      .set('Authorization', `Bearer ${a.token}`)
      .send({ password: u.password, newPassword, repeatNewPassword: newPassword })
      .expect(200);
    expect(res.body.sessionStartedAt).not.toBe(a.body.sessionStartedAt);
    await request(t.url).get(SESSION).set('Authorization', `Bearer ${a.token}`).expect(401);
    await request(t.url).get(SESSION).set('Cookie', b.cookie).expect(401);
    await request(t.url).get(SESSION).set('Authorization', `Bearer ${res.body.token}`).expect(200);
    const row = await t.app.get(DataSource).getRepository(UserRegistry).findOneByOrFail({ Guid: u.guid });
    expect(row.TokensValidFrom?.toISOString()).toBe(res.body.sessionStartedAt);
    const cuts = await logoutRows(t.app, u.name);
    expect(cuts).toHaveLength(1);
    expect(cuts[0]).toMatchObject({
      ReasonId: 3,
      OutcomeId: 1,
      TenantRegistryId: u.actor.tenantId,
      RemoteIp: '127.0.0.1',
      RevokedByUser: null,
    });
    expect(cuts[0].SessionStartedDate?.toISOString()).toBe(a.body.sessionStartedAt);
    expect((await loginRows(t.app, u.name)).map((r) => r.Failed)).toEqual([false, false, false]);
  });

  it('ChangePassword over a cookie answers only the new session cookies', async () => {
    const u = await createUser(t.app);
    const a = await signIn(t.url, u.name, u.password);
    const newPassword = 'Cookie-changed-password-1';
    const res = await request(t.url)
      .post(CHANGE)
      .set('Cookie', a.cookie)
      .set('Sec-Fetch-Site', 'same-origin')
      .send({ password: u.password, newPassword, repeatNewPassword: newPassword })
      .expect(200);
    const cookies = setCookiesOf(res);
    expect(cookies).toHaveLength(2);
    expect(cookieValue(cookies, 'authentication-jwt')).toBe(res.body.token);
    await request(t.url).get(SESSION).set('Cookie', a.cookie).expect(401);
    await request(t.url).get(SESSION).set('Cookie', `authentication-jwt=${res.body.token}`).expect(200);
  });

  it('ChangePassword with a wrong current password is a counted failure', async () => {
    const u = await createUser(t.app);
    const a = await signIn(t.url, u.name, u.password);
    const res = await request(t.url)
      .post(CHANGE)
      .set('Authorization', `Bearer ${a.token}`)
      .send({
        password: 'not-the-password',
        newPassword: 'Another-long-password-1',
        repeatNewPassword: 'Another-long-password-1',
      })
      .expect(401);
    expect(res.body).toMatchObject(GENERIC);
    const row = await t.app.get(DataSource).getRepository(UserRegistry).findOneByOrFail({ Guid: u.guid });
    expect(row.FailedPasswordCount).toBe(1);
    await request(t.url).get(SESSION).set('Authorization', `Bearer ${a.token}`).expect(200);
  });

  it('ChangePassword needs a credential', async () => {
    await request(t.url)
      .post(CHANGE)
      .send({ password: 'a', newPassword: 'b', repeatNewPassword: 'b' })
      .expect(401);
  });
});

describe.each(TEST_PROVIDERS)('WirePasswordHash on %s', (provider) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(provider);
  });
  afterAll(() => t.close());
  const wire = wirePasswordHashOf;

  it('answers a user by their flag (an unknown name: a stable draw, so the answer tells no name apart), and signs in with the hex SHA-256 of password + normalised user name', async () => {
    const name = `wire-${provider}`;
    const plain = 'The-plain-password-1';
    const u = await createUser(t.app, { name, password: wire(plain, name) });
    const ask = (userName: string) =>
      request(t.url).post('/api/Authentication/WirePasswordHash').send({ userName }).expect(200);
    expect((await ask(name)).body).toEqual({ wirePasswordHash: false });
    await t.app
      .get(DataSource)
      .getRepository(UserRegistry)
      .update({ Guid: u.guid }, { WirePasswordHash: true });
    expect((await ask(name)).body).toEqual({ wirePasswordHash: true });
    const unknown = (await ask('no-such-user-at-all')).body;
    expect(unknown).toEqual({ wirePasswordHash: expect.any(Boolean) });
    expect((await ask('NO-SUCH-USER-AT-ALL')).body).toEqual(unknown);
    await signIn(t.url, name, wire(plain, name));
    await request(t.url).post(SIGN_IN).send({ userName: name, password: plain }).expect(401);
    // A new password of a flagged user must itself be a wire hash (strength is enforced in the browser).
    const bad = await request(t.url)
      .post(SIGN_IN)
      .send({
        userName: name,
        password: wire(plain, name),
        newPassword: 'plain-new-password',
        repeatNewPassword: 'plain-new-password',
      })
      .expect(422);
    expect(bad.body.errors[0].field).toBe('newPassword');
    const next = wire('Next-plain-password-2', name);
    await request(t.url)
      .post(SIGN_IN)
      .send({ userName: name, password: wire(plain, name), newPassword: next, repeatNewPassword: next })
      .expect(200);
    await signIn(t.url, name, next);
  });
});

describe('RSA-OAEP-SHA256 password transport', () => {
  let t: TestApp;
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  beforeAll(async () => {
    t = await startTestApp('sqlite', {
      PasswordAsymmetricEncryption: 'True',
      PasswordAsymmetricEncryptionPublicKey: publicPem.replace(/\n/g, '\\n'),
      PasswordAsymmetricEncryptionPrivateKey: privatePem,
    });
  });
  afterAll(() => t.close());

  const encrypt = (pem: string, text: string) =>
    publicEncrypt(
      { key: pem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      Buffer.from(text),
    ).toString('base64');

  it('publishes the public key and accepts an encrypted password (round trip)', async () => {
    const res = await request(t.url).get('/api/Authentication/PasswordPublicKey').expect(200);
    expect(res.body.algorithm).toBe('RSA-OAEP-256');
    const served: string = res.body.publicKey;
    const u = await createUser(t.app);
    await signIn(t.url, u.name, encrypt(served, u.password));
    // The plaintext itself is not a valid ciphertext.
    await request(t.url).post(SIGN_IN).send({ userName: u.name, password: u.password }).expect(401);
  });

  it('treats a ciphertext that does not decrypt exactly like a wrong password', async () => {
    const u = await createUser(t.app);
    const wrong = await request(t.url)
      .post(SIGN_IN)
      .send({ userName: u.name, password: encrypt(publicPem, 'wrong-password') });
    const garbage = await request(t.url)
      .post(SIGN_IN)
      .send({ userName: u.name, password: Buffer.alloc(256, 7).toString('base64') });
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .publicKey.export({ type: 'spki', format: 'pem' })
      .toString();
    const foreign = await request(t.url)
      .post(SIGN_IN)
      .send({ userName: u.name, password: encrypt(other, u.password) });
    for (const r of [wrong, garbage, foreign]) {
      expect(r.status).toBe(401);
      expect(r.body).toEqual(wrong.body);
    }
    expect(wrong.body).toMatchObject(GENERIC);
    expect((await loginRows(t.app, u.name)).map((r) => r.FailureTypeId)).toEqual([5, 5, 5]);
  });

  it('changes a password sent encrypted (each field its own ciphertext)', async () => {
    const u = await createUser(t.app);
    const next = 'Encrypted-new-password-1';
    await request(t.url)
      .post(SIGN_IN)
      .send({
        userName: u.name,
        password: encrypt(publicPem, u.password),
        newPassword: encrypt(publicPem, next),
        repeatNewPassword: encrypt(publicPem, next),
      })
      .expect(200);
    await signIn(t.url, u.name, encrypt(publicPem, next));
  });

  it('answers 404 for the public key when the transport is off', async () => {
    const plain = await startTestApp('sqlite');
    try {
      await request(plain.url).get('/api/Authentication/PasswordPublicKey').expect(404);
    } finally {
      await plain.close();
    }
  });
});
