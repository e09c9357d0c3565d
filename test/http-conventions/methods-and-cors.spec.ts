import type { Application } from 'express';
import request from 'supertest';
import { ALL_PERMISSIONS } from '@app/access';
import { EXAMPLE_GUID } from '@app/input-rules';
import { INVOKE_ROUTE } from '@app/engine';
import { startTestApp, TestApp } from '../support/test-app';
import { TEST_PROVIDERS } from '../support/databases';
import { signIn, type SignedIn } from '../support/auth';
import { createUser, landlordActor } from '../factories/identity.factory';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const ADMIN_UI = 'https://admin.example.com';

type Paths = Record<string, Partial<Record<(typeof METHODS)[number], unknown>>>;

/** A signed-in landlord administrator (every permission), for the bearer token and the session cookie. */
async function administrator(t: TestApp): Promise<SignedIn> {
  const { tenantGuid } = await landlordActor(t.app);
  const admin = await createUser(t.app, { permissions: [...ALL_PERMISSIONS], tenantGuid });
  return signIn(t.url, admin.name, admin.password);
}

/**
 * A known /api path asked with a method it does not take answers 405 with Allow (RFC 9110 §15.5.6), and OPTIONS
 * 204 with Allow; unknown paths keep their 404.
 */
describe.each(TEST_PROVIDERS)('methods of the API paths, on %s', (provider) => {
  let t: TestApp;
  let session: SignedIn;
  beforeAll(async () => {
    t = await startTestApp(provider);
    session = await administrator(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('every path of the document answers 405 with Allow to each method it does not take, even anonymously', async () => {
    const paths = (
      await request(t.url).get('/swagger/json').auth(session.token, { type: 'bearer' }).expect(200)
    ).body.paths as Paths;
    const wrong: string[] = [];
    let checked = 0;
    // A concrete path may match two templates (/api/RoleRegistry/Permissions and /api/RoleRegistry/{guid}).
    const templates = Object.entries(paths).map(([template, item]) => ({
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
      item,
    }));
    for (const template of Object.keys(paths)) {
      const path = template.replace(/\{[^}]+\}/g, EXAMPLE_GUID);
      const matching = templates.filter((x) => x.pattern.test(path));
      const taken = METHODS.filter((m) => matching.some((x) => x.item[m] !== undefined));
      const takes = taken.map((m) => m.toUpperCase());
      const allow = [...takes, ...(takes.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].sort();
      for (const method of METHODS.filter((m) => !taken.includes(m))) {
        const res = await request(t.url)[method](path);
        checked++;
        const got = String(res.headers.allow ?? '')
          .split(', ')
          .sort();
        if (res.status !== 405 || JSON.stringify(got) !== JSON.stringify(allow))
          wrong.push(`${method.toUpperCase()} ${path}: ${res.status} Allow: ${String(res.headers.allow)}`);
        else expect(res.body).toMatchObject({ status: 405, title: 'Method Not Allowed' });
      }
      const options = await request(t.url).options(path);
      if (options.status !== 204 || options.headers.allow === undefined)
        wrong.push(`OPTIONS ${path}: ${options.status}`);
    }
    expect(checked).toBeGreaterThan(100);
    expect(wrong).toEqual([]);
  });

  it('spells the path in any case, with a trailing slash; unknown paths and the console stay 404', async () => {
    const res = await request(t.url).delete('/api/live/').expect(405);
    expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    await request(t.url).delete('/api/NoSuchThing').expect(404);
    await request(t.url).options('/api/NoSuchThing').expect(404);
    await request(t.url).get(`/api/TenantRegistry/${EXAMPLE_GUID}/Extra`).expect(404);
    await request(t.url).delete('/Account/Login').expect(404);
  });

  it("the Invoke route InvokeAdmission's door recognises is the one the application registers", () => {
    const router = (t.app.getHttpAdapter().getInstance() as Application).router as unknown as {
      listRoutes(): { path: unknown; methods?: string[] }[];
    };
    expect(router.listRoutes()).toContainEqual({ path: INVOKE_ROUTE, methods: ['POST'], router: undefined });
  });
});

/**
 * CORS with CorsAllowedOrigins: a listed origin's preflight is answered, the explicit
 * credentials (Authorization, x-api-key) may be sent and the conventions' headers read; cookies are never
 * credentials across origins, and a cookie-authenticated write from there is refused as before.
 */
describe('CORS for the listed origins', () => {
  let t: TestApp;
  let session: SignedIn;
  beforeAll(async () => {
    t = await startTestApp('postgres', { CorsAllowedOrigins: `${ADMIN_UI}, http://localhost:8080` });
    session = await administrator(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  const preflight = (origin: string, method: string, headers: string) =>
    request(t.url)
      .options('/api/RoleRegistry')
      .set('Origin', origin)
      .set('Access-Control-Request-Method', method)
      .set('Access-Control-Request-Headers', headers);

  it('answers a listed origin’s preflight for the explicit credentials and the conditional headers', async () => {
    const res = await preflight(ADMIN_UI, 'PUT', 'authorization,x-api-key,content-type,if-match');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(ADMIN_UI);
    expect(res.headers['access-control-allow-methods']).toBe('GET,HEAD,POST,PUT,DELETE');
    expect(res.headers['access-control-allow-headers']).toBe(
      'Authorization,x-api-key,Content-Type,If-Match,If-None-Match,X-Request-Id,Idempotency-Key',
    );
    expect(res.headers['access-control-max-age']).toBe('600');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.headers.vary).toMatch(/Origin/);
    expect(res.headers.allow).toBe('GET, POST, HEAD, OPTIONS');
  });

  it('gives an origin it does not list no CORS header at all', async () => {
    const res = await preflight('https://evil.example.com', 'PUT', 'authorization');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const get = await request(t.url)
      .get('/api/RoleRegistry')
      .set('Origin', 'https://evil.example.com')
      .auth(session.token, { type: 'bearer' })
      .expect(200);
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('lets a listed origin call with a bearer token and read ETag and Location', async () => {
    const created = await request(t.url)
      .post('/api/RoleRegistry')
      .set('Origin', ADMIN_UI)
      .auth(session.token, { type: 'bearer' })
      .send({ name: 'Made elsewhere', permissions: [1] })
      .expect(201);
    expect(created.headers['access-control-allow-origin']).toBe(ADMIN_UI);
    const exposed = String(created.headers['access-control-expose-headers']).split(',');
    expect(exposed).toEqual(
      expect.arrayContaining([
        'ETag',
        'Location',
        'Retry-After',
        'X-Request-Id',
        'X-Total-Count',
        'Link',
        'Idempotent-Replayed',
        'RateLimit-Policy',
        'RateLimit',
      ]),
    );
    expect(created.headers.etag).toBe('"1"');
    expect(created.headers.location).toMatch(/^\/api\/RoleRegistry\//);
  });

  it('refuses a cookie-authenticated write from a listed origin (provably same-origin only) and never allows credentials', async () => {
    const res = await request(t.url)
      .post('/api/RoleRegistry')
      .set('Origin', ADMIN_UI)
      .set('Cookie', session.cookie)
      .send({ name: 'Through the cookie', permissions: [1] });
    expect(res.status).toBe(403);
    expect(res.body.type).toBe('urn:problem-type:csrf-origin');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });
});

describe('CORS unset (the default)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('writes no CORS header: same-origin only, as before', async () => {
    const res = await request(t.url)
      .options('/api/RoleRegistry')
      .set('Origin', ADMIN_UI)
      .set('Access-Control-Request-Method', 'GET');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const live = await request(t.url).get('/api/Live').set('Origin', ADMIN_UI).expect(200);
    expect(live.headers['access-control-allow-origin']).toBeUndefined();
  });
});
