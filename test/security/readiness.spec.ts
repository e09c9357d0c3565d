import request from 'supertest';
import { Permission } from '@app/access';
import { createUser } from '../factories/identity.factory';
import { signIn } from '../support/auth';
import { PostgresServer, startPostgresServer } from '../support/postgres-server';
import { RedisServer, startRedisServer } from '../support/redis-server';
import { waitFor } from '../support/spawn-server';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Readiness that tells the truth, as a load balancer acts on it. Its own
 * PostgreSQL and Redis (never the machine's shared ones), really stopped.
 */
describe('GET /api/Ready with its own PostgreSQL and Redis', () => {
  let pg: PostgresServer;
  let redis: RedisServer;
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    pg = await startPostgresServer();
    redis = await startRedisServer();
    t = await startTestApp('postgres', { RedisConnectionString: redis.url }, { connectionString: pg.url });
    const u = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
    token = (await signIn(t.url, u.name, u.password)).token;
  });
  afterAll(async () => {
    await t.close().catch(() => undefined);
    await redis.stop();
    pg.stop();
  });

  const ready = (bearer?: string) => {
    const r = request(t.url).get('/api/Ready');
    return bearer ? r.set('Authorization', `Bearer ${bearer}`) : r;
  };

  it('all up: the balancer gets 200 { status } only; a signed-in caller each dependency', async () => {
    expect((await ready().expect(200)).body).toEqual({ status: 'ok' });
    expect((await ready(token).expect(200)).body).toEqual({
      status: 'ok',
      checks: { database: { status: 'up' }, redis: { status: 'up' } },
    });
  });

  it('a bad credential gets the anonymous view, never a 401', async () => {
    expect((await ready('not.a.token').expect(200)).body).toEqual({ status: 'ok' });
    const res = await request(t.url).get('/api/Ready').set('x-api-key', 'nonsense').expect(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('Redis down: still 200 (nothing else is affected), reported degraded to a signed-in caller', async () => {
    await redis.pause();
    try {
      expect((await ready().expect(200)).body).toEqual({ status: 'ok' });
      const detail = (await ready(token).expect(200)).body;
      expect(detail).toEqual({
        status: 'ok',
        checks: { database: { status: 'up' }, redis: { status: 'degraded', message: expect.any(String) } },
      });
    } finally {
      await redis.start();
    }
  });

  it('PostgreSQL down: 503 with Retry-After and no detail for the balancer; back to 200 when it returns', async () => {
    pg.pause();
    try {
      const res = await ready().expect(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toEqual({
        type: 'urn:problem-type:service-unavailable',
        title: 'Not Ready',
        status: 503,
        instance: '/api/Ready',
      });
      // The token cannot be checked without the database: the anonymous view, still a 503.
      expect((await ready(token)).status).toBe(503);
    } finally {
      pg.start();
    }
    await waitFor(async () => (await ready()).status === 200, 10_000, 'readiness after PostgreSQL returns');
  });
});
