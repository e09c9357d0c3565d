import { Agent } from 'node:http';
import request from 'supertest';
import { ApiKeyService } from '@app/api-keys';
import { Permission } from '@app/access';
import { ActorService } from '@app/identity';
import { createUser, CreatedUser } from '../factories/identity.factory';
import { signIn } from '../support/auth';
import { probeKeyWhile, settlesWithin } from '../support/key-probe';
import { TEST_PROVIDERS } from '../support/databases';
import { startTestApp, TestApp } from '../support/test-app';
import { gateBefore } from './gate';

/**
 * The node that deactivates a user or changes who may act applies it to its
 * API-key cache before it answers, so no request sent after the answer is accepted there. The deterministic
 * form holds the cache's read of the change at a gate and checks that the answer waits for it; the
 * concurrent form sends 50 changes at once and probes each key the moment its change is answered. The other
 * nodes: test/security/api-key-cache.spec.ts.
 */
const CONCURRENT = 50;
jest.setTimeout(240_000);

describe.each(TEST_PROVIDERS)('identity changes reach the acting node before it answers (%s)', (provider) => {
  let t: TestApp;
  let admin: CreatedUser;
  let adminToken: string;
  beforeAll(async () => {
    // No periodic reload during the test: only the change itself can update the cache.
    t = await startTestApp(provider, { ApiKeyCacheRefreshIntervalMilliseconds: '3600000' });
    admin = await createUser(t.app, {
      permissions: [Permission.ReadWriteSecurityUser, Permission.ReadWriteSecurityRole],
    });
    adminToken = (await signIn(t.url, admin.name, admin.password)).token;
  });
  afterAll(() => t.close());

  const asAdmin = (method: 'post' | 'put' | 'delete', path: string) =>
    request(t.url)[method](path).set('Authorization', `Bearer ${adminToken}`);
  const withKey = (key: string, path = '/api/UserRegistry?limit=1') =>
    request(t.url).get(path).set('x-api-key', key);

  /** A user in the admin's tenant with a role of its own (Read Write Security User) and an API key. */
  async function keyed(): Promise<{ user: CreatedUser; key: string }> {
    const user = await createUser(t.app, {
      tenantGuid: admin.tenantGuid,
      permissions: [Permission.ReadWriteSecurityUser],
    });
    const { key } = await t.app
      .get(ApiKeyService)
      .create(admin.actor, { userRegistryGuid: user.guid, name: 'integration' });
    await withKey(key).expect(200);
    return { user, key };
  }

  const changes: [string, (u: CreatedUser) => request.Test, number][] = [
    ['a deactivation', (u) => asAdmin('post', `/api/UserRegistry/${u.guid}/Deactivate`), 401],
    ['a deletion', (u) => asAdmin('delete', `/api/UserRegistry/${u.guid}`), 401],
    [
      "a role's permissions taken away",
      (u) => asAdmin('put', `/api/RoleRegistry/${u.roleGuid}`).send({ permissions: [] }),
      403,
    ],
  ];

  it.each(changes)(
    'deterministic: %s is not answered while the cache has not read it; the key is refused right after',
    async (_what, change, refused) => {
      const { user, key } = await keyed();
      const gate = gateBefore(t.app.get(ActorService), 'actorsFor');
      const answer = change(user).then((r) => r);
      await gate.reached;
      const answeredBeforeApplied = await settlesWithin(answer, 3000);
      gate.open();
      expect([200, 204]).toContain((await answer).status);
      expect((await withKey(key)).status).toBe(refused);
      expect(answeredBeforeApplied).toBe(false);
    },
  );

  it.each(changes)(
    `concurrent: ${CONCURRENT} × %s at once, each key asked back to back meanwhile; none accepted after its answer`,
    async (_what, change, refused) => {
      const fixtures = [];
      for (let i = 0; i < CONCURRENT; i++) fixtures.push(await keyed());
      const agent = new Agent({ keepAlive: true });
      // one user a page: the probe asks the key's permission, not for the list
      const path = `${t.url}/api/UserRegistry?limit=1`;
      try {
        const outcomes = await Promise.all(
          fixtures.map(async ({ user, key }) => {
            const { answer, acceptedAfter } = await probeKeyWhile(agent, path, key, refused, () =>
              change(user),
            );
            expect([200, 204]).toContain(answer.status);
            return acceptedAfter;
          }),
        );
        expect(outcomes.filter((accepted) => accepted > 0)).toEqual([]);
      } finally {
        agent.destroy();
      }
    },
  );
});
