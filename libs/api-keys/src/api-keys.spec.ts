import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { API_KEY_SETTINGS } from '@app/config';
import { Permission } from '@app/access';
import { ProblemException } from '@app/problems';
import { UserService } from '@app/identity';
import { createUser, landlordActor } from '../../../test/factories/identity.factory';
import { TEST_PROVIDERS } from '../../../test/support/databases';
import { startRedisServer, RedisServer } from '../../../test/support/redis-server';
import { waitFor } from '../../../test/support/spawn-server';
import { startTestApp, startTwoNodes, TestApp } from '../../../test/support/test-app';
import { ApiKeyCache } from './api-key-cache';
import { generateApiKey } from './api-key-format';
import { ApiKeyService, KEY_NOT_FOUND } from './api-key.service';
import { UserRegistryApiKey } from './entities/user-registry-api-key.entity';

function refused(svc: ApiKeyService, key: string): boolean {
  try {
    svc.validate(key);
    return false;
  } catch (e) {
    expect(e).toBeInstanceOf(ProblemException);
    expect((e as ProblemException).toProblem()).toMatchObject({ status: 401, reason: KEY_NOT_FOUND });
    return true;
  }
}

/** Puts a key in the key list of `userId` directly, as if it had been issued (whatever made it). */
async function listKey(
  t: TestApp,
  userId: number,
  name: string,
  key: { hash: string; displayIdentifier: string },
): Promise<void> {
  await t.app.get(DataSource).getRepository(UserRegistryApiKey).insert({
    Guid: randomUUID(),
    UserRegistryId: userId,
    Name: name,
    Description: null,
    KeyHash: key.hash,
    DisplayIdentifier: key.displayIdentifier,
    CreatedDate: new Date(),
    CreatedUser: 'test',
    RevokedDate: null,
    RevokedUser: null,
  });
}

describe.each(TEST_PROVIDERS)('API keys on %s', (provider) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(provider);
  });
  afterAll(() => t.close());

  it('a created key authenticates as its user, is stored only as a hash, and is listed without it', async () => {
    // An administrator hands out only permissions they hold (no escalation through a key), Invoke included.
    const admin = await createUser(t.app, {
      permissions: [Permission.ReadWriteSecurityUser, Permission.Invoke],
    });
    const user = await createUser(t.app, { tenantGuid: admin.tenantGuid, permissions: [Permission.Invoke] });
    const svc = t.app.get(ApiKeyService);
    const created = await svc.create(admin.actor, {
      userRegistryGuid: user.guid,
      name: 'integration',
      description: 'for tests',
    });
    expect(created.key).toHaveLength(108);
    expect(created.displayIdentifier).toBe(created.key.slice(0, 8));
    const actor = svc.validate(created.key);
    expect(actor).toMatchObject({ userGuid: user.guid, tenantGuid: admin.tenantGuid, credential: 'api-key' });
    expect([...actor.permissions]).toEqual([Permission.Invoke]);

    const listed = (await svc.list(admin.actor, user.guid)).items;
    expect(listed).toEqual([
      expect.objectContaining({ guid: created.guid, name: 'integration', revokedDate: null }),
    ]);
    expect(JSON.stringify(listed)).not.toContain(created.key);

    // the raw key is nowhere in the database
    const ds = t.app.get(DataSource);
    for (const m of ds.entityMetadatas) {
      const rows = await ds.getRepository(m.target).find();
      expect(JSON.stringify(rows)).not.toContain(created.key);
      expect(JSON.stringify(rows)).not.toContain(created.key.slice(8, 40));
    }
  });

  it('refuses a changed character, a truncated key, another secret, an empty value and a revoked key, all alike', async () => {
    const admin = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
    const svc = t.app.get(ApiKeyService);
    const { key, guid } = await svc.create(admin.actor, { userRegistryGuid: admin.guid, name: 'k' });
    const flipped = key.slice(0, 50) + (key[50] === 'A' ? 'B' : 'A') + key.slice(51);
    for (const bad of [flipped, key.slice(0, -1), '', ' ', 'x']) expect(refused(svc, bad)).toBe(true);
    expect(refused(svc, key)).toBe(false);
    await svc.revoke(admin.actor, guid);
    expect(refused(svc, key)).toBe(true);
    expect((await svc.list(admin.actor, admin.guid)).items[0].revokedDate).not.toBeNull();
  });

  it('a user may hold several keys (rotation); each is revoked on its own', async () => {
    const admin = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
    const svc = t.app.get(ApiKeyService);
    const a = await svc.create(admin.actor, { userRegistryGuid: admin.guid, name: 'old' });
    const b = await svc.create(admin.actor, { userRegistryGuid: admin.guid, name: 'new' });
    await svc.revoke(admin.actor, a.guid);
    expect(refused(svc, a.key)).toBe(true);
    expect(refused(svc, b.key)).toBe(false);
  });

  it("reaches only users of the caller's own tenant (404 otherwise, even for the landlord)", async () => {
    const admin = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
    const other = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
    const svc = t.app.get(ApiKeyService);
    const notFound = async (p: Promise<unknown>) =>
      expect(
        (
          await p.then(
            () => null,
            (e: ProblemException) => e.toProblem(),
          )
        )?.status,
      ).toBe(404);
    await notFound(svc.create(admin.actor, { userRegistryGuid: other.guid, name: 'x' }));
    await notFound(svc.list(admin.actor, other.guid));
    const theirs = await svc.create(other.actor, { userRegistryGuid: other.guid, name: 'theirs' });
    await notFound(svc.revoke(admin.actor, theirs.guid));
    await notFound(svc.create(await landlordActor(t.app), { userRegistryGuid: other.guid, name: 'x' }));
    expect(refused(svc, theirs.key)).toBe(false);
  });

  it("a deactivated user's keys stop at once, and stay stopped after a reload", async () => {
    const admin = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
    const user = await createUser(t.app, { tenantGuid: admin.tenantGuid });
    const svc = t.app.get(ApiKeyService);
    const { key } = await svc.create(admin.actor, { userRegistryGuid: user.guid, name: 'k' });
    await t.app.get(UserService).deactivate(admin.actor, user.guid);
    await waitFor(() => refused(svc, key), 1000, 'the key of the deactivated user to be refused');
    await t.app.get(ApiKeyCache).reload();
    expect(refused(svc, key)).toBe(true);
  });

  it('a listed key whose checksum another secret made is refused every time, before and after a reload; a good key passes every time', async () => {
    const admin = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
    const svc = t.app.get(ApiKeyService);
    const cache = t.app.get(ApiKeyCache);
    // in the key list as if it had been issued, but its checksum is not this service's
    const forged = generateApiKey(admin.guid, 'a-secret-this-service-never-had-0123456789');
    await listKey(t, admin.actor.userId, 'forged', forged);
    await cache.reload();
    const { key } = await svc.create(admin.actor, { userRegistryGuid: admin.guid, name: 'good' });
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 3; i++) {
        expect(refused(svc, forged.key)).toBe(true);
        expect(refused(svc, key)).toBe(false);
      }
      await cache.reload(); // new entries: each key's checksum is verified again
    }
    expect(cache.lookup(forged.hash)).toBeDefined(); // refused for its checksum, not for being unlisted
  });

  it("a listed key with this service's checksum that names another user than its owner is refused every time, before and after a reload", async () => {
    const owner = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
    const named = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
    const svc = t.app.get(ApiKeyService);
    const cache = t.app.get(ApiKeyCache);
    // a genuine checksum, for `named`, stored on `owner`'s row: the key list and the key disagree on the user
    const crossed = generateApiKey(named.guid, t.app.get(API_KEY_SETTINGS.token).ApiHmacKey ?? '');
    await listKey(t, owner.actor.userId, 'crossed', crossed);
    await cache.reload();
    const { key } = await svc.create(owner.actor, { userRegistryGuid: owner.guid, name: 'good' });
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 3; i++) {
        expect(refused(svc, crossed.key)).toBe(true);
        expect(svc.validate(key).userGuid).toBe(owner.guid);
      }
      await cache.reload();
    }
    expect(cache.lookup(crossed.hash)?.actor.userGuid).toBe(owner.guid); // listed, refused for the user it names
  });
});

describe('API key revocation across two nodes (one PostgreSQL, one Redis)', () => {
  let redis: RedisServer;
  let a: TestApp;
  let b: TestApp;
  const REFRESH_MS = 1500;
  beforeAll(async () => {
    redis = await startRedisServer();
    [a, b] = await startTwoNodes({
      RedisConnectionString: redis.url,
      ApiKeyCacheRefreshIntervalMilliseconds: String(REFRESH_MS),
    });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await redis.stop();
  });

  it('with Redis: a key created and revoked on A is applied on B within a second', async () => {
    const admin = await createUser(a.app, { permissions: [Permission.ReadWriteSecurityUser] });
    const onA = a.app.get(ApiKeyService);
    const onB = b.app.get(ApiKeyService);
    const { key, guid } = await onA.create(admin.actor, { userRegistryGuid: admin.guid, name: 'shared' });
    await waitFor(() => !refused(onB, key), 5000, 'B to learn the new key');
    const start = Date.now();
    await onA.revoke(admin.actor, guid);
    await waitFor(() => refused(onB, key), 1000, 'B to refuse the revoked key');
    expect(Date.now() - start).toBeLessThan(1000);
  });

  it('with Redis stopped: within the refresh interval; and after it returns, a key revoked while it was away is refused by both', async () => {
    const admin = await createUser(a.app, { permissions: [Permission.ReadWriteSecurityUser] });
    const onA = a.app.get(ApiKeyService);
    const onB = b.app.get(ApiKeyService);
    const first = await onA.create(admin.actor, { userRegistryGuid: admin.guid, name: 'first' });
    const second = await onA.create(admin.actor, { userRegistryGuid: admin.guid, name: 'second' });
    await waitFor(
      () => !refused(onB, first.key) && !refused(onB, second.key),
      3 * REFRESH_MS,
      'B to know both keys',
    );

    await redis.pause(); // a real stop of the server
    const start = Date.now();
    await onA.revoke(admin.actor, first.guid); // the publish fails; A applies it itself
    expect(refused(onA, first.key)).toBe(true);
    await waitFor(
      () => refused(onB, first.key),
      REFRESH_MS + 1000,
      'B to refuse within the refresh interval',
    );
    expect(Date.now() - start).toBeLessThan(REFRESH_MS + 1000);

    await onA.revoke(admin.actor, second.guid);
    await redis.start();
    await waitFor(
      () => refused(onA, second.key) && refused(onB, second.key),
      5000,
      'both to refuse after Redis returns',
    );
  });
});

describe('API key cache after a Redis reconnect (refresh interval one hour, so only the reconnect can help)', () => {
  let redis: RedisServer;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    redis = await startRedisServer();
    [a, b] = await startTwoNodes({
      RedisConnectionString: redis.url,
      ApiKeyCacheRefreshIntervalMilliseconds: '3600000',
    });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await redis.stop();
  });

  it('B reloads everything when Redis returns, so a revocation it missed takes effect', async () => {
    const admin = await createUser(a.app, { permissions: [Permission.ReadWriteSecurityUser] });
    const onA = a.app.get(ApiKeyService);
    const onB = b.app.get(ApiKeyService);
    const k = await onA.create(admin.actor, { userRegistryGuid: admin.guid, name: 'missed' });
    await waitFor(() => !refused(onB, k.key), 5000, 'B to learn the key through Redis');
    await redis.pause();
    await onA.revoke(admin.actor, k.guid); // the message is lost
    // Redis is stopped, so nothing can reach B, and its refresh is an hour away: only the reconnect can tell it.
    expect(refused(onA, k.key)).toBe(true);
    expect(refused(onB, k.key)).toBe(false);
    await redis.start();
    await waitFor(() => refused(onB, k.key), 6000, 'B to reload after the reconnect');
  });
});
