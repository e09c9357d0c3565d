import request from 'supertest';
import { DataSource } from 'typeorm';
import { BEARER_CHALLENGE } from '@app/problems';
import { UserRegistry } from '@app/identity';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser } from '../factories/identity.factory';
import { signIn } from '../support/auth';

/**
 * Every 401 carries a challenge (RFC 9110 §15.5.2), in RFC 6750's form, and the same one whatever failed:
 * a missing credential, a refused sign-in, a revoked session, the explorer asked for anonymously. The
 * Negotiate challenge is ByNegotiate's alone (test/auth/negotiate.spec.ts: exactly `Negotiate` there).
 */
describe('WWW-Authenticate on every 401', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(() => t.close());

  it('is Bearer with the service realm', () => {
    expect(BEARER_CHALLENGE).toBe('Bearer realm="decisioning-operations-service"');
  });

  it('on a refused sign-in, whatever the reason, and never names the reason', async () => {
    const u = await createUser(t.app);
    const answers = await Promise.all([
      request(t.url)
        .post('/api/Authentication/ByUserNamePassword')
        .send({ userName: u.name, password: 'wrong-pw-1' }),
      request(t.url)
        .post('/api/Authentication/ByUserNamePassword')
        .send({ userName: `nobody-${u.name}`, password: 'x-pw' }),
      request(t.url).post('/api/Authentication/ByUserNamePassword').send({ userName: u.name }),
    ]);
    for (const res of answers) {
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe(BEARER_CHALLENGE);
    }
  });

  it('on a revoked session, a malformed token and the explorer asked for without a credential', async () => {
    const u = await createUser(t.app);
    const s = await signIn(t.url, u.name, u.password);
    await t.app
      .get(DataSource)
      .getRepository(UserRegistry)
      .update({ Guid: u.guid }, { TokensValidFrom: new Date(Date.parse(s.body.sessionStartedAt) + 1) });
    const answers = await Promise.all([
      request(t.url).get('/api/Authentication/Session').set('Authorization', `Bearer ${s.token}`),
      request(t.url).get('/api/Authentication/Session').set('Authorization', 'Bearer not.a.token'),
      request(t.url).get('/swagger/json'),
      request(t.url).get('/swagger/index.html').set('Accept', 'application/json'),
    ]);
    for (const res of answers) {
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe(BEARER_CHALLENGE);
    }
  });

  it('never on an answer other than 401', async () => {
    const u = await createUser(t.app);
    const s = await signIn(t.url, u.name, u.password);
    // 403: signed in, not the landlord.
    const forbidden = await request(t.url)
      .get('/api/CaptureQueueHealth')
      .set('Authorization', `Bearer ${s.token}`)
      .expect(403);
    expect(forbidden.headers['www-authenticate']).toBeUndefined();
    const ok = await request(t.url).get('/api/Live').expect(200);
    expect(ok.headers['www-authenticate']).toBeUndefined();
  });
});
