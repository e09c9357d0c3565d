import request from 'supertest';
import { DataSource } from 'typeorm';
import { startTestApp, TestApp } from '../support/test-app';
import { startPostgresServer, PostgresServer } from '../support/postgres-server';
import { createUser } from '../factories/identity.factory';
import { signIn, SignedIn } from '../support/auth';

const SESSION = '/api/Authentication/Session';

/** A PostgreSQL cluster of its own, stopped mid-test: authenticated requests must be refused, never let through. */
describe('the database cannot answer', () => {
  let pg: PostgresServer;
  let t: TestApp;
  let s: SignedIn;
  beforeAll(async () => {
    pg = await startPostgresServer();
    t = await startTestApp('postgres', {}, { connectionString: pg.url });
    const u = await createUser(t.app);
    s = await signIn(t.url, u.name, u.password);
  });
  afterAll(async () => {
    await t.close().catch(() => undefined);
    pg.stop();
  });

  it('refuses bearer and cookie requests with a 503 problem, and recovers when it is back', async () => {
    await request(t.url).get(SESSION).set('Authorization', `Bearer ${s.token}`).expect(200);
    pg.pause();
    try {
      for (const r of [
        request(t.url).get(SESSION).set('Authorization', `Bearer ${s.token}`),
        request(t.url).get(SESSION).set('Cookie', s.cookie),
        request(t.url).get('/swagger/json').set('Authorization', `Bearer ${s.token}`),
      ]) {
        const res = await r;
        expect(res.status).toBe(503);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(res.body).toMatchObject({ status: 503, type: 'urn:problem-type:service-unavailable' });
        expect(JSON.stringify(res.body)).not.toMatch(/ECONN|postgres|SELECT/i);
      }
      // A token alone never suffices: no cached answer lets the request through.
      const res = await request(t.url).get(SESSION).set('Authorization', `Bearer ${s.token}`);
      expect(res.status).toBe(503);
    } finally {
      pg.start();
    }
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await request(t.url).get(SESSION).set('Authorization', `Bearer ${s.token}`)).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
  });
});

/**
 * The embedded database gone: a bearer or cookie request is refused (503), and the service reads again once the
 * database is back (a new connection, the statement prepared on it).
 */
describe('the embedded database cannot answer', () => {
  let t: TestApp;
  let s: SignedIn;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    const u = await createUser(t.app);
    s = await signIn(t.url, u.name, u.password);
  });
  afterAll(() => t.close());

  it('refuses bearer and cookie requests with a 503 problem, and recovers when it is back', async () => {
    await request(t.url).get(SESSION).set('Authorization', `Bearer ${s.token}`).expect(200);
    const dataSource = t.app.get(DataSource);
    await dataSource.destroy();
    try {
      for (const r of [
        request(t.url).get(SESSION).set('Authorization', `Bearer ${s.token}`),
        request(t.url).get(SESSION).set('Cookie', s.cookie),
      ]) {
        const res = await r;
        expect(res.status).toBe(503);
        expect(res.body).toMatchObject({ status: 503, type: 'urn:problem-type:service-unavailable' });
        expect(JSON.stringify(res.body)).not.toMatch(/sqlite|SELECT|initialized/i);
      }
    } finally {
      await dataSource.initialize();
    }
    await request(t.url).get(SESSION).set('Authorization', `Bearer ${s.token}`).expect(200);
  });
});
