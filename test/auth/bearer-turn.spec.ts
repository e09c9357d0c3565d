import request from 'supertest';
import { AppPassport, BEARER_JWT_STRATEGY, type ResolvedCredential } from '@app/auth';
import { IdentityAuthService } from '@app/identity';
import { startTestApp, TestApp } from '../support/test-app';
import { SQLITE_AND_POSTGRES } from '../support/databases';
import { createUser, CreatedUser } from '../factories/identity.factory';
import { signIn, SignedIn } from '../support/auth';

const SESSION = '/api/Authentication/Session';

/**
 * A bearer token is judged by passport-jwt and the session read on every request, on one asynchronous path
 * for every database, so a revocation is seen by the next request, even for a token used before.
 */
describe.each(SQLITE_AND_POSTGRES)('a bearer token used before, on %s', (provider) => {
  let t: TestApp;
  let user: CreatedUser;
  let s: SignedIn;
  const judge = () =>
    t.app
      .get(AppPassport)
      .run<ResolvedCredential>(BEARER_JWT_STRATEGY, { headers: { authorization: `Bearer ${s.token}` } }, {});

  beforeAll(async () => {
    t = await startTestApp(provider);
    user = await createUser(t.app);
    s = await signIn(t.url, user.name, user.password);
    // the token has answered a request before
    await request(t.url).get(SESSION).set('Authorization', `Bearer ${s.token}`).expect(200);
  });
  afterAll(() => t.close());

  it('is judged with the user read now, the same way on every database', async () => {
    const outcome = judge();
    expect(outcome).toBeInstanceOf(Promise);
    expect(await outcome).toMatchObject({
      kind: 'success',
      user: { actor: { userGuid: user.guid, credential: 'bearer' } },
    });
  });

  it('refuses the very next judgement after the sessions are revoked', async () => {
    await t.app.get(IdentityAuthService).revokeSessions(user.actor.userId, Date.now() + 1000);
    await expect(judge()).rejects.toMatchObject({ status: 401 });
    await request(t.url).get(SESSION).set('Authorization', `Bearer ${s.token}`).expect(401);
  });
});
