import Redis from 'ioredis';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { API_KEY_CHANNEL, ApiKeyCache, ApiKeyService } from '@app/api-keys';
import { ALL_PERMISSIONS, Permission } from '@app/access';
import { ActorService, UserRegistry } from '@app/identity';
// The repository itself: the gate holds a reload between its snapshot and applying it.
import { ApiKeyRepository } from '../../libs/api-keys/src/api-key.repository';
import { createUser, CreatedUser, landlordActor } from '../factories/identity.factory';
import { signIn } from '../support/auth';
import { TEST_PROVIDERS } from '../support/databases';
import { RedisServer } from '../support/redis-server';
import { waitFor } from '../support/spawn-server';
import { startTestApp, startTwoNodesSharingRedis, TestApp } from '../support/test-app';
import { gateAfter, gateBefore } from './gate';

// The stress run is a hundred key creations on a possibly loaded 2-core machine.
jest.setTimeout(180_000);

/** Answers 200 with the key, or the refusal's status. */
const withKey = (t: TestApp, key: string, path = '/api/Authentication/Session') =>
  request(t.url).get(path).set('x-api-key', key);

/** A reload never undoes a later change; identity changes apply at once. */
describe.each(TEST_PROVIDERS)('the API-key cache orders reloads after changes (%s)', (provider) => {
  let t: TestApp;
  let admin: CreatedUser;
  beforeAll(async () => {
    t = await startTestApp(provider, { ApiKeyCacheRefreshIntervalMilliseconds: '3600000' });
    admin = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
  });
  afterAll(() => t.close());

  it('a key created while a reload holds an older snapshot stays accepted after the reload', async () => {
    const gate = gateAfter(t.app.get(ApiKeyRepository), 'listActive');
    const reloading = t.app.get(ApiKeyCache).reload();
    await gate.reached;
    const { key } = await t.app
      .get(ApiKeyService)
      .create(admin.actor, { userRegistryGuid: admin.guid, name: 'new' });
    await withKey(t, key).expect(200);
    gate.open();
    await reloading;
    await withKey(t, key).expect(200);
  });

  it('a key revoked while a reload holds an older snapshot stays refused after the reload', async () => {
    const svc = t.app.get(ApiKeyService);
    const { key, guid } = await svc.create(admin.actor, { userRegistryGuid: admin.guid, name: 'old' });
    const gate = gateAfter(t.app.get(ApiKeyRepository), 'listActive');
    const reloading = t.app.get(ApiKeyCache).reload();
    await gate.reached;
    await svc.revoke(admin.actor, guid);
    await withKey(t, key).expect(401);
    gate.open();
    await reloading;
    await withKey(t, key).expect(401);
  });

  it('stress: 50 reloads racing creates and revokes; no key is lost or brought back', async () => {
    const svc = t.app.get(ApiKeyService);
    const cache = t.app.get(ApiKeyCache);
    let wrong = 0;
    for (let i = 0; i < 50; i++) {
      const old = await svc.create(admin.actor, { userRegistryGuid: admin.guid, name: `old-${i}` });
      const [created] = await Promise.all([
        svc.create(admin.actor, { userRegistryGuid: admin.guid, name: `new-${i}` }),
        cache.reload(),
        svc.revoke(admin.actor, old.guid),
        cache.reload(),
      ]);
      if ((await withKey(t, created.key)).status !== 200) wrong++;
      if ((await withKey(t, old.key)).status !== 401) wrong++;
    }
    expect(wrong).toBe(0);
  });

  it('a password lockout does not stop the API keys of the user (spec: API keys 5)', async () => {
    const user = await createUser(t.app, { tenantGuid: admin.tenantGuid });
    const { key } = await t.app
      .get(ApiKeyService)
      .create(admin.actor, { userRegistryGuid: user.guid, name: 'svc' });
    for (let i = 0; i < 4; i++)
      await request(t.url)
        .post('/api/Authentication/ByUserNamePassword')
        .send({ userName: user.name, password: 'not-the-password' })
        .expect(401);
    await request(t.url)
      .post('/api/Authentication/ByUserNamePassword')
      .send({ userName: user.name, password: user.password })
      .expect(401); // locked
    await withKey(t, key).expect(200);
    await t.app.get(ApiKeyCache).reload();
    await withKey(t, key).expect(200);
  });
});

describe("identity changes reach every node's API-key cache at once (two nodes, PostgreSQL, Redis; refresh 1 h)", () => {
  let redis: RedisServer;
  let a: TestApp;
  let b: TestApp;
  let admin: CreatedUser;
  let adminToken: string;
  beforeAll(async () => {
    ({ redis, a, b } = await startTwoNodesSharingRedis());
    admin = await createUser(a.app, {
      permissions: [
        Permission.ReadWriteSecurityUser,
        Permission.ReadWriteSecurityRole,
        Permission.ReadWriteTenant,
      ],
    });
    adminToken = (await signIn(a.url, admin.name, admin.password)).token;
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await redis.stop();
  });

  /** A user with a key (known on both nodes) whose role allows reading the user list. */
  async function keyed(): Promise<{ user: CreatedUser; key: string }> {
    const user = await createUser(a.app, {
      tenantGuid: admin.tenantGuid,
      permissions: [Permission.ReadWriteSecurityUser],
    });
    const { key } = await a.app
      .get(ApiKeyService)
      .create(admin.actor, { userRegistryGuid: user.guid, name: 'k' });
    for (const node of [a, b])
      await waitFor(async () => (await withKey(node, key)).status === 200, 5000, 'the key on both nodes');
    return { user, key };
  }

  const admin_ = (method: 'put' | 'post' | 'delete', path: string) =>
    request(a.url)[method](path).set('Authorization', `Bearer ${adminToken}`);

  async function refusedOnB(key: string, path?: string, status = 401): Promise<void> {
    const start = Date.now();
    await waitFor(
      async () => (await withKey(b, key, path)).status === status,
      1000,
      `node B to answer ${status}`,
    );
    expect(Date.now() - start).toBeLessThan(1000);
  }

  // What only takes rights away is applied the moment the message arrives.
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
      await admin_(method, path(user)).send(body).expect(200);
      await gate.reached;
      await refusedOnB(key, '/api/UserRegistry', refused);
      gate.open();
    },
  );

  it('a message on Redis only ever takes rights away: a forged ceiling grants nothing', async () => {
    const { user, key } = await keyed();
    const id = (await a.app.get(DataSource).getRepository(UserRegistry).findOneByOrFail({ Guid: user.guid }))
      .Id;
    await admin_('put', `/api/RoleRegistry/${user.roleGuid}`).send({ permissions: [] }).expect(200);
    await refusedOnB(key, '/api/UserRegistry', 403);
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
      // A later change through A, published after the forged message and applied by B before A answers (A waits
      // for every node's acknowledgement): once B refuses that key, B has handled the forged message too.
      const later = await keyed();
      await admin_('put', `/api/UserRegistry/${later.user.guid}`).send({ active: false }).expect(200);
      await refusedOnB(later.key);
      await withKey(b, key, '/api/UserRegistry').expect(403);
      await withKey(b, key).expect(200);
    } finally {
      client.disconnect();
    }
  });

  it('a deactivated user', async () => {
    const { user, key } = await keyed();
    await admin_('put', `/api/UserRegistry/${user.guid}`).send({ active: false }).expect(200);
    await refusedOnB(key);
  });

  it('a deleted user', async () => {
    const { user, key } = await keyed();
    await admin_('delete', `/api/UserRegistry/${user.guid}`).expect(204);
    await refusedOnB(key);
  });

  it("a role's permissions changed", async () => {
    const { user, key } = await keyed();
    await withKey(b, key, '/api/UserRegistry').expect(200);
    await admin_('put', `/api/RoleRegistry/${user.roleGuid}`).send({ permissions: [] }).expect(200);
    await refusedOnB(key, '/api/UserRegistry', 403);
  });

  it('a user moved to another role', async () => {
    const { user, key } = await keyed();
    const role = await admin_('post', '/api/RoleRegistry')
      .send({ name: `empty-${Date.now()}`, permissions: [] })
      .expect(201);
    await admin_('put', `/api/UserRegistry/${user.guid}`).send({ roleGuid: role.body.guid }).expect(200);
    await refusedOnB(key, '/api/UserRegistry', 403);
  });

  it('a deleted tenant', async () => {
    const other = await createUser(a.app, { permissions: [Permission.ReadWriteSecurityUser] });
    const { key } = await a.app
      .get(ApiKeyService)
      .create(other.actor, { userRegistryGuid: other.guid, name: 'k' });
    await waitFor(async () => (await withKey(b, key)).status === 200, 5000, 'the key on node B');
    const landlordAdmin = await createUser(a.app, {
      permissions: [Permission.ReadWriteTenant],
      tenantGuid: (await landlordActor(a.app)).tenantGuid,
    });
    const token = (await signIn(a.url, landlordAdmin.name, landlordAdmin.password)).token;
    await request(a.url)
      .delete(`/api/TenantRegistry/${other.tenantGuid}`)
      .set('Authorization', `Bearer ${token}`)
      .expect(204);
    await refusedOnB(key);
  });
});
