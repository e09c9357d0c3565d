import request from 'supertest';
import { ApiKeyService } from '@app/api-keys';
import { Permission } from '@app/access';
import { DEMO_MODEL_GUID } from '@app/engine';
import { createUser, landlordActor } from '../factories/identity.factory';
import { setCookiesOf, signIn } from '../support/auth';
import { startTestApp, TestApp } from '../support/test-app';

/** Which credential a route takes, and where the cookie is maintained. */
describe('credentials per route', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(() => t.close());

  it('ChangePassword takes a session only: an API-key caller gets a 403 problem, no cookie, no token', async () => {
    const user = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
    const { key } = await t.app
      .get(ApiKeyService)
      .create(user.actor, { userRegistryGuid: user.guid, name: 'k' });
    const res = await request(t.url)
      .post('/api/Authentication/ChangePassword')
      .set('x-api-key', key)
      .send({
        password: user.password,
        newPassword: 'Another-Password-9',
        repeatNewPassword: 'Another-Password-9',
      })
      .expect(403);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.detail).toMatch(/session.*not an API key/);
    expect(setCookiesOf(res)).toEqual([]);
    expect(res.body.token).toBeUndefined();
    // The password is unchanged.
    await signIn(t.url, user.name, user.password);
  });

  it('an API key needs a Name: whitespace only is a 400 naming the field, and no key is made', async () => {
    const user = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
    const { token } = await signIn(t.url, user.name, user.password);
    const res = await request(t.url)
      .post('/api/UserRegistryApiKey')
      .set('Authorization', `Bearer ${token}`)
      .send({ userRegistryGuid: user.guid, name: '   ' })
      .expect(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'name' })]);
    expect((await t.app.get(ApiKeyService).list(user.actor, user.guid)).items).toEqual([]);
  });

  it('Invoke with the session cookie is answered without Set-Cookie (spec: Credentials 5); other routes refresh it', async () => {
    const admin = await landlordActor(t.app);
    const user = await createUser(t.app, { tenantGuid: admin.tenantGuid, permissions: [Permission.Invoke] });
    const { cookie } = await signIn(t.url, user.name, user.password);
    const invoked = await request(t.url)
      .post(`/api/Invoke/EntityAnalysisModel/${DEMO_MODEL_GUID}`)
      .set('Cookie', cookie)
      .set('Origin', t.url)
      .send({ transactionId: 'cookie-1', account: { id: 'ACC-1' }, amount: 1, country: 'DE' })
      .expect(200);
    expect(setCookiesOf(invoked)).toEqual([]);
    const session = await request(t.url).get('/api/Authentication/Session').set('Cookie', cookie).expect(200);
    expect(setCookiesOf(session).some((c) => c.startsWith('authentication-jwt='))).toBe(true);
  });
});
