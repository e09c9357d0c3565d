import { Logger } from '@nestjs/common';
import { Actor, Permission } from '@app/access';
import { API_KEY_SETTINGS, loadSettings, sliceValues } from '@app/config';
import { ActorService, IdentityEvents } from '@app/identity';
import { CacheEventSink } from '@app/redis';
import { ApiKeyCache } from './api-key-cache';
import { ApiKeyRepository } from './api-key.repository';

/**
 * spec: API keys 3 and Limits — the active-key cache is refreshed every minute, so a revocation whose
 * publish message never arrived takes effect within a minute. Stated as a literal; the cache's own timer,
 * on the settings given no environment, under fake timers.
 */
const ONE_MINUTE = 60_000;
const KEY = { Guid: '0195f0d2-0000-7000-8000-00000000000a', KeyHash: 'hash-of-the-key', UserRegistryId: 7 };
const actor: Actor = {
  userId: 7,
  userGuid: '0195f0d2-0000-7000-8000-000000000007',
  userName: 'integration',
  tenantId: 1,
  tenantGuid: '0195f0d2-0000-7000-8000-000000000001',
  landlord: false,
  permissions: new Set([Permission.Invoke]),
  credential: 'api-key',
};
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('API key cache refresh (spec: Limits — API key cache refresh every minute)', () => {
  beforeAll(() => Logger.overrideLogger(false));
  afterEach(() => jest.useRealTimers());

  it('ApiKeyCacheRefreshIntervalMilliseconds defaults to 60000, and a key revoked without a message is refused 60000 ms later', async () => {
    const settings = loadSettings({});
    expect(settings.ApiKeyCacheRefreshIntervalMilliseconds).toBe(ONE_MINUTE);
    jest.useFakeTimers({
      doNotFake: [
        'Date',
        'hrtime',
        'nextTick',
        'performance',
        'queueMicrotask',
        'setImmediate',
        'clearImmediate',
      ],
    });
    // The database: the key is active until the test revokes it there (no publish message reaches this node).
    let active = [KEY];
    let reads = 0;
    const repo = {
      listActive: () => {
        reads++;
        return Promise.resolve(active);
      },
    } as unknown as ApiKeyRepository;
    const actors = {
      actorsFor: (ids: readonly number[]) =>
        Promise.resolve(new Map(ids.includes(actor.userId) ? [[actor.userId, actor]] : [])),
    } as unknown as ActorService;
    const cache = new ApiKeyCache(
      repo,
      actors,
      new IdentityEvents(),
      sliceValues(settings, API_KEY_SETTINGS),
      null,
      new CacheEventSink(),
    );
    await cache.onApplicationBootstrap();
    try {
      expect(cache.lookup(KEY.KeyHash)?.actor.userId).toBe(actor.userId);
      active = [];
      await jest.advanceTimersByTimeAsync(ONE_MINUTE - 1);
      await settle();
      expect(reads).toBe(1);
      expect(cache.lookup(KEY.KeyHash)).toBeDefined();
      await jest.advanceTimersByTimeAsync(1);
      await settle();
      expect(reads).toBe(2);
      expect(cache.lookup(KEY.KeyHash)).toBeUndefined();
      // And again every minute after.
      await jest.advanceTimersByTimeAsync(ONE_MINUTE);
      await settle();
      expect(reads).toBe(3);
    } finally {
      await cache.onModuleDestroy();
    }
  });
});
