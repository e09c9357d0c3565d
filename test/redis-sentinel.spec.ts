import Redis from 'ioredis';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { API_KEY_CHANNEL, ApiKeyCache, ApiKeyService, UserRegistryApiKey } from '@app/api-keys';
import { CaptureFlusher } from '@app/capture-queues';
import { Permission } from '@app/access';
import { SettingError } from '@app/config';
import { CacheEventSink, REDIS, SentinelEventWatcher } from '@app/redis';
import { SESSION_CHANNEL } from '@app/sessions';
import { createUser } from './factories/identity.factory';
import { signIn } from './support/auth';
import { freePort } from './support/free-port';
import { RedisSentinelSet, startRedisSentinelSet } from './support/redis-sentinel';
import { waitFor } from './support/spawn-server';
import { startTestApp, TestApp } from './support/test-app';

interface EventRow {
  EventName: string;
  Endpoint: string;
  Details: string | null;
}

/** Calls `check` until it is true, running `poke` (which makes the awaited thing happen) every 250 ms. */
async function pokeUntil(
  poke: () => Promise<unknown>,
  check: () => boolean,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    await poke().catch(() => undefined);
    const until = Date.now() + 250;
    while (Date.now() < until) {
      if (check()) return;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  throw new Error(`Timed out waiting for ${what}`);
}

/** A port nothing listens on (free a moment ago). */
async function deadEndpoint(): Promise<string> {
  return `127.0.0.1:${await freePort()}`;
}

describe('Redis through Sentinel: a real master, replica and Sentinel', () => {
  let set: RedisSentinelSet;
  let t: TestApp;
  let dead: string;
  let sentinelEndpoint: string;
  const probes: Redis[] = [];
  const probe = (port: number, password: string) => {
    const r = new Redis({ host: '127.0.0.1', port, password, maxRetriesPerRequest: 2 });
    r.on('error', () => undefined);
    probes.push(r);
    return r;
  };
  const sentinel = () => probe(set.sentinelPort, set.sentinelPassword);
  const shared = () => t.app.get<Redis>(REDIS);

  /** ROLE and port of the server the shared client is connected to, or null while it is not ready. */
  async function sharedServer(): Promise<{ role: string; port: number } | null> {
    try {
      const role = ((await shared().call('ROLE')) as unknown[])[0] as string;
      const [, port] = (await shared().config('GET', 'port')) as [string, string];
      return { role, port: Number(port) };
    } catch {
      return null;
    }
  }

  async function subscribers(port: number): Promise<number[]> {
    const r = probe(port, set.password);
    const reply = (await r.call('PUBSUB', 'NUMSUB', API_KEY_CHANNEL, SESSION_CHANNEL)) as (string | number)[];
    return [Number(reply[1]), Number(reply[3])];
  }

  beforeAll(async () => {
    set = await startRedisSentinelSet();
    sentinelEndpoint = `127.0.0.1:${set.sentinelPort}`;
    dead = await deadEndpoint();
    t = await startTestApp('sqlite', {
      // Port 1 is never the master: the URL gives only the password, the Sentinels name the master.
      RedisConnectionString: `redis://:${set.password}@127.0.0.1:1/0`,
      // The first Sentinel is unreachable: the clients and the event watcher go on to the second.
      RedisSentinels: `${dead},${sentinelEndpoint}`,
      RedisSentinelPassword: set.sentinelPassword,
      InstanceName: 'node-sentinel',
      CaptureQueueFlushIntervalMilliseconds: '3600000',
      // Only a Redis message can make this node forget a revoked key within the test.
      ApiKeyCacheRefreshIntervalMilliseconds: '3600000',
    });
  });

  afterAll(async () => {
    for (const p of probes) p.disconnect();
    await t?.close();
    await set?.stop();
    // ioredis leaves a 2 s timer (AbstractConnector.disconnect, not unref'd) for each connection that was
    // already closed when it was disconnected: here the failover-detector connections to the unreachable
    // Sentinel. Wait them out so the Jest worker exits cleanly (the service itself exits explicitly).
    await new Promise((r) => setTimeout(r, 2100));
  });

  it('reaches the master named by the Sentinel (not the URL host and port, past an unreachable Sentinel), and /api/Ready says Redis is up', async () => {
    await waitFor(async () => (await sharedServer()) !== null, 10_000, 'the shared client to be ready');
    expect(await sharedServer()).toEqual({ role: 'master', port: set.masterPort });
    expect(shared().stream.remotePort).toBe(set.masterPort);

    const u = await createUser(t.app);
    const { token } = await signIn(t.url, u.name, u.password);
    const ready = await request(t.url).get('/api/Ready').set('Authorization', `Bearer ${token}`).expect(200);
    expect(ready.body.checks.redis).toEqual({ status: 'up' });

    // the API key and session subscribers are on the master too
    await waitFor(
      async () => (await subscribers(set.masterPort)).every((n) => n === 1),
      10_000,
      'both subscribers on the master',
    );
  });

  /** A key revoked behind this node's back (in the database) is refused once the message comes through the new master. */
  const expectRevocationThroughNewMaster = async () => {
    const admin = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
    const keys = t.app.get(ApiKeyService);
    const { key, guid } = await keys.create(admin.actor, { userRegistryGuid: admin.guid, name: 'failover' });
    await t.app.get(ApiKeyCache).reload();
    await t.app
      .get(DataSource)
      .getRepository(UserRegistryApiKey)
      .update({ Guid: guid }, { RevokedDate: new Date(), RevokedUser: 'another node' });
    expect(keys.validate(key).userGuid).toBe(admin.guid);
    const receivers = await probe(set.replicaPort, set.password).publish(
      API_KEY_CHANNEL,
      JSON.stringify({ v: 1, event: 'revoked', keyGuid: guid, origin: 'another-node' }),
    );
    expect(receivers).toBe(1);
    await waitFor(
      () => {
        try {
          keys.validate(key);
          return false;
        } catch {
          return true;
        }
      },
      2000,
      'the node to refuse the revoked key',
    );
  };

  it('after SENTINEL FAILOVER: every client is on the new master, API key messages arrive again, and the Sentinel events are captured', async () => {
    // the watcher listens to the live Sentinel before the failover begins
    await waitFor(
      async () => {
        const clients = (await sentinel().call('CLIENT', 'LIST')) as string;
        return clients
          .split('\n')
          .some((l) => l.includes('name=node-sentinel:sentinel-events') && /psub=1/.test(l));
      },
      10_000,
      'the event watcher to subscribe to the Sentinel',
    );

    expect(await sentinel().call('SENTINEL', 'FAILOVER', set.masterName)).toBe('OK');
    await waitFor(
      async () => {
        const s = await sharedServer();
        return s?.role === 'master' && s.port === set.replicaPort;
      },
      15_000,
      'the shared client to be on the new master',
    );
    await waitFor(
      async () => (await subscribers(set.replicaPort)).every((n) => n === 1),
      10_000,
      'both subscribers on the new master',
    );

    await expectRevocationThroughNewMaster();
    const ds = t.app.get(DataSource);

    await t.app.get(CaptureFlusher).flush();
    const sentinelRows = await ds.query<EventRow[]>(
      `SELECT "EventName", "Endpoint", "Details" FROM "CacheSentinelEvent" ORDER BY "Id"`,
    );
    expect(sentinelRows).toContainEqual({
      EventName: '+switch-master',
      Endpoint: sentinelEndpoint,
      Details: `${set.masterName} 127.0.0.1 ${set.masterPort} 127.0.0.1 ${set.replicaPort}`,
    });
    const names = sentinelRows.map((r) => r.EventName);
    expect(names).toEqual(expect.arrayContaining(['+try-failover', '+elected-leader', '+promoted-slave']));
    for (const r of sentinelRows) {
      expect(r.Endpoint).toBe(sentinelEndpoint);
      expect(r.EventName.startsWith('__sentinel__')).toBe(false);
      expect(r.Details?.split(' ')).toContain(set.masterName);
    }

    const connectionRows = await ds.query<EventRow[]>(
      `SELECT "EventName", "Endpoint", "Details" FROM "CacheConnectionEvent" ORDER BY "Id"`,
    );
    const connects = connectionRows.filter((r) => r.EventName === 'connect').map((r) => r.Endpoint);
    // the three clients (shared, API keys, sessions) on the first master, then on the second
    expect(connects.filter((e) => e === `127.0.0.1:${set.masterPort}`).length).toBeGreaterThanOrEqual(3);
    expect(connects.filter((e) => e === `127.0.0.1:${set.replicaPort}`).length).toBeGreaterThanOrEqual(3);
    // the watcher's refused connection to the unreachable Sentinel, then its connection to the live one
    expect(connectionRows).toContainEqual(
      expect.objectContaining({
        EventName: 'error',
        Endpoint: dead,
        Details: expect.stringContaining('ECONNREFUSED'),
      }),
    );
    expect(connectionRows).toContainEqual({
      EventName: 'connect',
      Endpoint: sentinelEndpoint,
      Details: null,
    });
    expect(connectionRows.map((r) => r.Endpoint)).not.toContain('127.0.0.1:1');
    const everything = JSON.stringify([sentinelRows, connectionRows]);
    expect(everything).not.toContain(set.password);
    expect(everything).not.toContain(set.sentinelPassword);
  });

  it('the event watcher moves past an unreachable Sentinel, and back to its Sentinel when that one returns', async () => {
    const sink = new CacheEventSink();
    const seen: { kind: 'connection' | 'sentinel'; event: string; endpoint: string }[] = [];
    sink.subscribe({
      connectionEvent: (event, endpoint) => seen.push({ kind: 'connection', event, endpoint }),
      sentinelEvent: (event, endpoint) => seen.push({ kind: 'sentinel', event, endpoint }),
    });
    const [deadHost, deadPort] = dead.split(':');
    const watcher = new SentinelEventWatcher(
      {
        sentinels: [
          { host: deadHost, port: Number(deadPort) },
          { host: '127.0.0.1', port: set.sentinelPort },
        ],
        masterName: set.masterName,
        password: set.sentinelPassword,
      },
      sink,
    );
    // SENTINEL SET publishes +set about the master
    const poke = () => sentinel().call('SENTINEL', 'SET', set.masterName, 'down-after-milliseconds', '1000');
    const setEvents = () =>
      seen.filter((e) => e.kind === 'sentinel' && e.event === '+set' && e.endpoint === sentinelEndpoint)
        .length;
    watcher.start();
    try {
      await pokeUntil(poke, () => setEvents() > 0, 5000, 'a +set event through the second Sentinel');
      expect(seen).toContainEqual({ kind: 'connection', event: 'error', endpoint: dead });
      expect(watcher.current).toBe(sentinelEndpoint);

      await set.pauseSentinel(); // a real stop of the only live Sentinel
      await waitFor(
        () =>
          seen.some((e) => e.kind === 'connection' && e.event === 'close' && e.endpoint === sentinelEndpoint),
        5000,
        'the watcher to see its Sentinel go',
      );
      const before = setEvents();
      await set.startSentinel();
      await pokeUntil(poke, () => setEvents() > before, 10_000, 'a +set event after the Sentinel returned');
      expect(watcher.current).toBe(sentinelEndpoint);
      // it went round: the unreachable one was tried again in between
      const errorsOnDead = seen.filter((e) => e.event === 'error' && e.endpoint === dead).length;
      expect(errorsOnDead).toBeGreaterThanOrEqual(2);
    } finally {
      watcher.stop();
    }
  });
});

describe('Sentinel settings at start-up', () => {
  it.each([
    [{ RedisConnectionString: 'redis://127.0.0.1:6379', RedisSentinels: '127.0.0.1' }, 'RedisSentinels'],
    [{ RedisConnectionString: 'redis://127.0.0.1:6379', RedisSentinels: '127.0.0.1:0' }, 'RedisSentinels'],
    [{ RedisConnectionString: 'redis://127.0.0.1:6379', RedisSentinels: 'a:26379,' }, 'RedisSentinels'],
    [{ RedisSentinels: '127.0.0.1:26379' }, 'RedisConnectionString'],
  ])('refuses %p, naming %s', async (env, setting) => {
    const refused = await startTestApp('sqlite', env).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(SettingError);
    expect((refused as SettingError).setting).toBe(setting);
    expect((refused as SettingError).message).toContain(setting);
  });
});
