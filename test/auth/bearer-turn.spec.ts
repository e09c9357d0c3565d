import request from 'supertest';
import { authenticateNow, type ResolvedCredential, type StrategyOutcome } from '@app/auth';
import { IdentityAuthService } from '@app/identity';
import { BearerJwtStrategy } from '../../libs/auth/src/strategies/session-jwt.strategies';
import { startTestApp, TestApp } from '../support/test-app';
import { SQLITE_AND_POSTGRES } from '../support/databases';
import { createUser, CreatedUser } from '../factories/identity.factory';
import { signIn, SignedIn } from '../support/auth';

const SESSION = '/api/Authentication/Session';

/**
 * A bearer token whose signature this process already verified is judged by the session read alone. SQLite answers
 * that read at once, so the strategy ends within the guard's own call (no Promise, no microtask turn); PostgreSQL
 * answers later. Either way the user is read on every request: a revocation is seen by the next request.
 */
describe.each(SQLITE_AND_POSTGRES)('a remembered bearer token on %s', (provider) => {
  let t: TestApp;
  let user: CreatedUser;
  let s: SignedIn;
  const judge = () =>
    authenticateNow<ResolvedCredential>(
      t.app.get(BearerJwtStrategy),
      { headers: { authorization: `Bearer ${s.token}` } },
      {},
    );
  const settled = async (outcome: ReturnType<typeof judge>): Promise<StrategyOutcome<ResolvedCredential>> => {
    expect(outcome instanceof Promise).toBe(provider === 'postgres');
    return outcome;
  };

  beforeAll(async () => {
    t = await startTestApp(provider);
    user = await createUser(t.app);
    s = await signIn(t.url, user.name, user.password);
    // the first request verifies the signature and remembers it
    await request(t.url).get(SESSION).set('Authorization', `Bearer ${s.token}`).expect(200);
  });
  afterAll(() => t.close());

  it('ends at once where the database answers at once, with the user read now', async () => {
    const outcome = await settled(judge());
    expect(outcome).toMatchObject({
      kind: 'success',
      user: { actor: { userGuid: user.guid, credential: 'bearer' } },
    });
  });

  it('refuses the very next judgement after the sessions are revoked, at once on SQLite too', async () => {
    await t.app.get(IdentityAuthService).revokeSessions(user.actor.userId, Date.now() + 1000);
    let outcome: ReturnType<typeof judge> | undefined;
    let thrown: unknown;
    try {
      outcome = judge();
    } catch (err) {
      thrown = err;
    }
    if (provider === 'sqlite') expect(outcome).toBeUndefined();
    else await expect(outcome).rejects.toMatchObject({ status: 401 });
    if (provider === 'sqlite') expect(thrown).toMatchObject({ status: 401 });
    await request(t.url).get(SESSION).set('Authorization', `Bearer ${s.token}`).expect(401);
  });
});
