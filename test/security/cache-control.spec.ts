import request from 'supertest';
import { ALL_PERMISSIONS } from '@app/access';
import { createUser, landlordActor } from '../factories/identity.factory';
import { signIn } from '../support/auth';
import { listRoutes } from '../support/routes';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * An answer that depends on a credential is never kept by a browser or a shared
 * cache: every route that takes a credential answers with `Cache-Control: no-store` (its 401s and 403s too),
 * and so do the anonymous routes whose answer carries or depends on one (sign-in, the passcode step,
 * WirePasswordHash, logout, readiness).
 */
describe('Cache-Control: no-store on every answer that depends on a credential', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    const admin = await createUser(t.app, {
      tenantGuid: (await landlordActor(t.app)).tenantGuid,
      permissions: [...ALL_PERMISSIONS],
    });
    token = (await signIn(t.url, admin.name, admin.password)).token;
  });
  afterAll(() => t.close());

  const path = (p: string) => p.replace(/:[A-Za-z]+/g, '00000000-0000-4000-8000-000000000000');

  it('every protected route, with a credential and without', async () => {
    const found: { route: string; status: number; cacheControl: string | undefined }[] = [];
    for (const r of listRoutes(t.app).filter((route) => route.access.kind === 'authenticated')) {
      const m = r.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete' | 'patch';
      // Event streams stay open: their headers are checked without reading the body.
      if (r.path.includes('Stream')) continue;
      for (const credential of [undefined, token]) {
        const req = request(t.url)[m](path(r.path));
        const res = await (credential ? req.set('Authorization', `Bearer ${credential}`) : req).send({});
        found.push({
          route: `${r.method} ${r.path}`,
          status: res.status,
          cacheControl: res.headers['cache-control'],
        });
      }
    }
    expect(found.length).toBeGreaterThan(40);
    expect(found.filter((f) => f.cacheControl !== 'no-store')).toEqual([]);
  });

  it('a 404 for a path that names nothing, with a credential and without (the problem filter)', async () => {
    const found: string[] = [];
    for (const p of ['/api/NoSuchThing', '/api/UserRegistry/x/y/z', '/no/such/path', '/assets/none.js'])
      for (const credential of [undefined, token]) {
        const req = request(t.url).get(p);
        const res = await (credential ? req.set('Authorization', `Bearer ${credential}`) : req);
        found.push(`${p} ${res.status} ${res.headers['cache-control']}`);
      }
    expect(found.filter((f) => !/ 404 no-store$/.test(f))).toEqual([]);
  });

  it('the sign-in answer (the token in its body), WirePasswordHash, logout and readiness', async () => {
    const user = await createUser(t.app);
    const answers = {
      signIn: await request(t.url)
        .post('/api/Authentication/ByUserNamePassword')
        .send({ userName: user.name, password: user.password }),
      refused: await request(t.url)
        .post('/api/Authentication/ByUserNamePassword')
        .send({ userName: user.name, password: 'wrong-password' }),
      wire: await request(t.url).post('/api/Authentication/WirePasswordHash').send({ userName: user.name }),
      logout: await request(t.url).post('/api/Authentication/Logout'),
      ready: await request(t.url).get('/api/Ready').set('Authorization', `Bearer ${token}`),
    };
    expect(
      Object.fromEntries(
        Object.entries(answers).map(([k, r]) => [k, [r.status, r.headers['cache-control']]]),
      ),
    ).toEqual({
      signIn: [200, 'no-store'],
      refused: [401, 'no-store'],
      wire: [200, 'no-store'],
      logout: [200, 'no-store'],
      ready: [200, 'no-store'],
    });
  });
});
