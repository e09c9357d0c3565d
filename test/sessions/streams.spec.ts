import request from 'supertest';
import { ManualClock } from '@app/runtime';
import { Permission } from '@app/access';
import { ApiKeyService } from '@app/api-keys';
import Redis from 'ioredis';
import { SESSION_CHANNEL, StreamPublisher, StreamRegistry } from '@app/sessions';
import { startTestApp, startTwoNodes, TestApp } from '../support/test-app';
import { startRedisServer, RedisServer } from '../support/redis-server';
import { waitFor } from '../support/spawn-server';
import { openStream, SseClient } from '../support/sse';
import { createUser, CreatedUser } from '../factories/identity.factory';
import { signIn, SignedIn } from '../support/auth';

const STREAM = '/api/Stream/Telemetry';
const LOGOUT = '/api/Authentication/Logout';
const SESSION = '/api/Authentication/Session';

const bearer = (s: SignedIn) => ({ Authorization: `Bearer ${s.token}` });
const closedReason = (c: SseClient) =>
  JSON.parse(c.events.filter((e) => e.event === 'closed').at(-1)?.data ?? '{}') as { reason?: string };

describe('GET /api/Stream/Telemetry on one node', () => {
  let t: TestApp;
  let clock: ManualClock;
  let admin: CreatedUser;
  const open: SseClient[] = [];
  const stream = async (url: string, headers: Record<string, string>) => {
    const c = await openStream(url + STREAM, headers);
    open.push(c);
    return c;
  };
  beforeAll(async () => {
    clock = new ManualClock(Date.now());
    t = await startTestApp(
      'sqlite',
      {
        StreamHeartbeatMilliseconds: '200',
        SessionAbsoluteLifetimeInterval: 'n',
        SessionAbsoluteLifetimeIntervalValue: '60',
      },
      { clock },
    );
    admin = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
  });
  afterAll(async () => {
    // closing the app with streams still open must not hang
    await t.close();
    for (const c of open) c.close();
  });

  it('is an event stream with an open event and heartbeats; anonymous callers get the 401 problem', async () => {
    const s = await signIn(t.url, admin.name, admin.password);
    const c = await stream(t.url, bearer(s));
    expect(c.status).toBe(200);
    expect(c.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(c.headers['cache-control']).toBe('no-store, no-transform');
    const first = await c.nextEvent('open', 2000);
    expect(JSON.parse(first.data)).toMatchObject({ heartbeatMilliseconds: 200 });
    await c.nextEvent('heartbeat', 2000);
    await c.nextEvent('heartbeat', 2000);
    expect(t.app.get(StreamRegistry).count(admin.guid)).toBeGreaterThanOrEqual(1);

    const anonymous = await request(t.url).get(STREAM);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['content-type']).toMatch(/^application\/problem\+json/);
    c.close();
    await waitFor(() => t.app.get(StreamRegistry).count(admin.guid) === 0, 2000, 'the registry to forget it');
  });

  it('StreamPublisher pushes events into open streams: landlord-only by default, or to everyone', async () => {
    const u = await createUser(t.app);
    const s = await signIn(t.url, u.name, u.password);
    const c = await stream(t.url, bearer(s));
    await c.nextEvent('open', 2000);
    const publisher = t.app.get(StreamPublisher);
    expect(publisher.publish('capture-queue-health', { queue: 'x' })).toBe(0); // not a landlord
    expect(publisher.publish('notice', { text: 'line\nbreak' }, 'everyone')).toBeGreaterThanOrEqual(1);
    const e = await c.nextEvent('notice', 2000);
    expect(JSON.parse(e.data)).toEqual({ text: 'line\nbreak' });
    expect(() => publisher.publish('bad\nname', {}, 'everyone')).toThrow();
    c.close();
  });

  it('logout closes every stream of the user at once; an API-key stream and other users stay', async () => {
    const u = await createUser(t.app, { tenantGuid: admin.tenantGuid });
    const other = await createUser(t.app);
    const { key } = await t.app
      .get(ApiKeyService)
      .create(admin.actor, { userRegistryGuid: u.guid, name: 'k' });
    const s1 = await signIn(t.url, u.name, u.password);
    const s2 = await signIn(t.url, u.name, u.password);
    const so = await signIn(t.url, other.name, other.password);
    const byCookie = await stream(t.url, { Cookie: s1.cookie });
    const byBearer = await stream(t.url, bearer(s2));
    const byKey = await stream(t.url, { 'x-api-key': key });
    const othersStream = await stream(t.url, bearer(so));
    for (const c of [byCookie, byBearer, byKey, othersStream]) await c.nextEvent('open', 2000);
    clock.advance(1);
    await request(t.url).post(LOGOUT).set('Cookie', s1.cookie).send().expect(200);
    await Promise.all([byCookie.ended, byBearer.ended]);
    expect(closedReason(byCookie)).toEqual({ reason: 'revoked' });
    await byKey.nextEvent('heartbeat', 2000);
    await othersStream.nextEvent('heartbeat', 2000);
    expect(byKey.isEnded()).toBe(false);
    expect(othersStream.isEnded()).toBe(false);
    byKey.close();
    othersStream.close();
  });

  it('Revoke Sessions and a password change close the user streams at once', async () => {
    const u = await createUser(t.app, { tenantGuid: admin.tenantGuid });
    const a = await signIn(t.url, admin.name, admin.password);
    let s = await signIn(t.url, u.name, u.password);
    let c = await stream(t.url, bearer(s));
    await c.nextEvent('open', 2000);
    clock.advance(1);
    await request(t.url).post(`/api/UserRegistry/RevokeTokens/${u.guid}`).set(bearer(a)).send().expect(204);
    await c.ended;
    expect(closedReason(c)).toEqual({ reason: 'revoked' });

    clock.advance(1);
    s = await signIn(t.url, u.name, u.password);
    c = await stream(t.url, bearer(s));
    await c.nextEvent('open', 2000);
    clock.advance(1);
    const newPassword = 'Another-long-password-3';
    await request(t.url)
      .post('/api/Authentication/ChangePassword')
      .set(bearer(s))
      .send({ password: u.password, newPassword, repeatNewPassword: newPassword })
      .expect(200);
    await c.ended;
    expect(closedReason(c)).toEqual({ reason: 'revoked' });
  });

  it('the periodic check ends streams past the absolute session lifetime, and of users revoked behind its back', async () => {
    const u = await createUser(t.app);
    const s = await signIn(t.url, u.name, u.password);
    const c = await stream(t.url, bearer(s));
    await c.nextEvent('open', 2000);
    const registry = t.app.get(StreamRegistry);
    await registry.check();
    expect(c.isEnded()).toBe(false);
    clock.advance(60 * 60_000 + 1);
    await registry.check();
    await c.ended;
    expect(closedReason(c)).toEqual({ reason: 'session-ended' });
  });
});

describe('two nodes with Redis (stream check every 30 s, so only Redis can be this fast)', () => {
  let redis: RedisServer;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    redis = await startRedisServer();
    [a, b] = await startTwoNodes({ RedisConnectionString: redis.url });
    // both nodes listen before the test begins (they subscribe as soon as their Redis connection is ready)
    const probe = new Redis(redis.url);
    try {
      await waitFor(
        async () => {
          const [, count] = (await probe.call('PUBSUB', 'NUMSUB', SESSION_CHANNEL)) as [string, number];
          return count >= 2;
        },
        10_000,
        'both nodes to subscribe',
      );
    } finally {
      probe.disconnect();
    }
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await redis.stop();
  });

  it('a session logged out through A is refused by B on its very next request, and its stream on B closes within a second', async () => {
    const u = await createUser(a.app);
    const s = await signIn(a.url, u.name, u.password);
    await request(b.url).get(SESSION).set(bearer(s)).expect(200);
    const c = await openStream(b.url + STREAM, { Cookie: s.cookie });
    await c.nextEvent('open', 3000);
    await new Promise((r) => setTimeout(r, 2)); // the revocation instant is after the session began
    const started = Date.now();
    await request(a.url).post(LOGOUT).set('Cookie', s.cookie).send().expect(200);
    await request(b.url).get(SESSION).set('Cookie', s.cookie).expect(401);
    await waitFor(() => c.isEnded(), 1000, 'the stream on B to close');
    expect(c.endedAt()! - started).toBeLessThan(1000);
    expect(closedReason(c)).toEqual({ reason: 'revoked' });
  });

  it('Revoke Sessions through A closes the stream held on B within a second', async () => {
    const admin = await createUser(a.app, { permissions: [Permission.ReadWriteSecurityUser] });
    const u = await createUser(a.app, { tenantGuid: admin.tenantGuid });
    const as = await signIn(a.url, admin.name, admin.password);
    const s = await signIn(b.url, u.name, u.password);
    const c = await openStream(b.url + STREAM, bearer(s));
    await c.nextEvent('open', 3000);
    await new Promise((r) => setTimeout(r, 2));
    const started = Date.now();
    await request(a.url).post(`/api/UserRegistry/RevokeTokens/${u.guid}`).set(bearer(as)).send().expect(204);
    await request(b.url).get(SESSION).set(bearer(s)).expect(401);
    await waitFor(() => c.isEnded(), 1000, 'the stream on B to close');
    expect(c.endedAt()! - started).toBeLessThan(1000);
  });
});

describe('two nodes without Redis: the periodic check (RevokedSessionCheckInterval s / 1)', () => {
  const INTERVAL_MS = 1000;
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    [a, b] = await startTwoNodes({ RevokedSessionCheckInterval: 's', RevokedSessionCheckIntervalValue: '1' });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('a session logged out through A is refused by B at once, and its stream on B closes within the interval', async () => {
    const u = await createUser(a.app);
    const s = await signIn(a.url, u.name, u.password);
    const c = await openStream(b.url + STREAM, bearer(s));
    await c.nextEvent('open', 3000);
    await new Promise((r) => setTimeout(r, 2));
    const started = Date.now();
    await request(a.url).post(LOGOUT).set(bearer(s)).send().expect(200);
    await request(b.url).get(SESSION).set(bearer(s)).expect(401);
    // the interval, plus generous room for one database read on a loaded machine
    await waitFor(() => c.isEnded(), INTERVAL_MS + 1500, 'the stream on B to close');
    expect(c.endedAt()! - started).toBeLessThan(INTERVAL_MS + 1500);
    expect(closedReason(c)).toEqual({ reason: 'revoked' });
  });
});
