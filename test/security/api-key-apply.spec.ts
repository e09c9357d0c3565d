import Redis from 'ioredis';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { API_KEY_CHANNEL, ApiKeyService } from '@app/api-keys';
import { ALL_PERMISSIONS, Permission } from '@app/common';
import { ActorService, UserRegistry } from '@app/identity';
import { createUser, CreatedUser } from '../factories/identity.factory';
import { signIn } from '../support/auth';
import { TEST_PROVIDERS } from '../support/databases';
import { RedisServer, startRedisServer } from '../support/redis-server';
import { waitFor } from '../support/spawn-server';
import { startTestApp, startTwoNodes, TestApp } from '../support/test-app';
import { gateBefore } from './gate';

/**
 * Security issue 37, item 2: the node that deactivates a user or changes who may act applies it to its
 * API-key cache before it answers, so no request sent after the answer is accepted there. The deterministic
 * form holds the cache's read of the change at a gate and checks that the answer waits for it; the
 * concurrent form sends 50 changes at once and probes each key the moment its change is answered.
 */
const CONCURRENT = 50;
jest.setTimeout(240_000);

/** Whether `answer` settles within `ms`; it keeps running either way. */
async function settlesWithin(answer: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const settled = await Promise.race([answer.then(() => true as const), late]);
  clearTimeout(timer);
  return settled;
}

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
  const withKey = (key: string, path = '/api/UserRegistry') => request(t.url).get(path).set('x-api-key', key);

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
    `concurrent: ${CONCURRENT} × %s at once; each key is refused the moment its change is answered`,
    async (_what, change, refused) => {
      const fixtures = [];
      for (let i = 0; i < CONCURRENT; i++) fixtures.push(await keyed());
      const after = await Promise.all(
        fixtures.map(async ({ user, key }) => {
          const answer = await change(user);
          expect([200, 204]).toContain(answer.status);
          return (await withKey(key)).status;
        }),
      );
      expect(after.filter((status) => status !== refused)).toEqual([]);
    },
  );
});

describe('the other nodes restrict before they re-read (two nodes, PostgreSQL, Redis; refresh 1 h)', () => {
  let redis: RedisServer;
  let a: TestApp;
  let b: TestApp;
  let admin: CreatedUser;
  let adminToken: string;
  beforeAll(async () => {
    redis = await startRedisServer();
    [a, b] = await startTwoNodes({
      RedisConnectionString: redis.url,
      ApiKeyCacheRefreshIntervalMilliseconds: '3600000',
    });
    admin = await createUser(a.app, {
      permissions: [Permission.ReadWriteSecurityUser, Permission.ReadWriteSecurityRole],
    });
    adminToken = (await signIn(a.url, admin.name, admin.password)).token;
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await redis.stop();
  });

  const onB = (key: string, path = '/api/UserRegistry') => request(b.url).get(path).set('x-api-key', key);

  async function keyed(): Promise<{ user: CreatedUser; key: string }> {
    const user = await createUser(a.app, {
      tenantGuid: admin.tenantGuid,
      permissions: [Permission.ReadWriteSecurityUser],
    });
    const { key } = await a.app
      .get(ApiKeyService)
      .create(admin.actor, { userRegistryGuid: user.guid, name: 'integration' });
    await waitFor(async () => (await onB(key)).status === 200, 5000, 'the key on node B');
    return { user, key };
  }

  it.each([
    ['a deactivation', (u: CreatedUser) => `/api/UserRegistry/${u.guid}/Deactivate`, 'post', {}, 401],
    [
      "a role's permissions taken away",
      (u: CreatedUser) => `/api/RoleRegistry/${u.roleGuid}`,
      'put',
      { permissions: [] },
      403,
    ],
  ] as const)(
    'deterministic: %s is applied on node B while its own read of the change is held at a gate',
    async (_what, path, method, body, refused) => {
      const { user, key } = await keyed();
      const gate = gateBefore(b.app.get(ActorService), 'actorsFor');
      await request(a.url)
        [method](path(user))
        .set('Authorization', `Bearer ${adminToken}`)
        .send(body)
        .expect(200);
      await gate.reached;
      await waitFor(async () => (await onB(key)).status === refused, 2000, 'node B to restrict the key');
      gate.open();
    },
  );

  it('a message on Redis only ever takes rights away: a forged ceiling grants nothing', async () => {
    const { user, key } = await keyed();
    const id = (await a.app.get(DataSource).getRepository(UserRegistry).findOneByOrFail({ Guid: user.guid }))
      .Id;
    await request(a.url)
      .put(`/api/RoleRegistry/${user.roleGuid}`)
      .set('Authorization', `Bearer ${adminToken}`)
      .send({ permissions: [] })
      .expect(200);
    await waitFor(async () => (await onB(key)).status === 403, 2000, 'node B to apply the change');
    const client = new Redis(redis.url);
    try {
      await client.publish(
        API_KEY_CHANNEL,
        JSON.stringify({
          v: 1,
          event: 'principals',
          userIds: [id],
          ceiling: [...ALL_PERMISSIONS],
          origin: 'forged',
        }),
      );
      await new Promise((r) => setTimeout(r, 300));
      await onB(key).expect(403);
      await onB(key, '/api/Authentication/Session').expect(200);
    } finally {
      client.disconnect();
    }
  });
});
