import request from 'supertest';
import { ALL_PERMISSIONS } from '@app/access';
import { EXAMPLE_GUID } from '@app/input-rules';
import { startTestApp, TestApp } from '../support/test-app';
import { TEST_PROVIDERS } from '../support/databases';
import { signIn } from '../support/auth';
import { createUser, landlordActor } from '../factories/identity.factory';

type Operations = Record<string, Record<string, { requestBody?: unknown; security?: unknown[] }>>;

const OTHER_MEDIA_TYPES: [string, string][] = [
  ['application/x-www-form-urlencoded', 'name=From+a+form'],
  ['text/plain', '{"name":"From text"}'],
  ['application/xml', '<tenant><name>From XML</name></tenant>'],
  [
    'multipart/form-data; boundary=x',
    '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nM\r\n--x--\r\n',
  ],
];

/**
 * Every route that takes a body takes JSON: a body of any other media type is a 415 and
 * changes nothing; a request without a body is never refused for its media type; Logout answers 200 whatever
 * it carries (spec: Logout behaviour 1).
 */
describe.each(TEST_PROVIDERS)('media types of request bodies, on %s', (provider) => {
  let t: TestApp;
  let bearer: string;
  let paths: Operations;
  const http = () => request(t.url);

  beforeAll(async () => {
    t = await startTestApp(provider);
    const { tenantGuid } = await landlordActor(t.app);
    const admin = await createUser(t.app, { permissions: [...ALL_PERMISSIONS], tenantGuid });
    bearer = (await signIn(t.url, admin.name, admin.password)).token;
    paths = (await http().get('/swagger/json').auth(bearer, { type: 'bearer' }).expect(200)).body.paths;
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each(OTHER_MEDIA_TYPES)(
    'POST /api/TenantRegistry with %s: 415, no tenant created',
    async (type, body) => {
      const before = (await http().get('/api/TenantRegistry').auth(bearer, { type: 'bearer' }).expect(200))
        .body;
      const res = await http()
        .post('/api/TenantRegistry')
        .auth(bearer, { type: 'bearer' })
        .set('Content-Type', type)
        .send(body);
      expect(res.status).toBe(415);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 415, title: 'Unsupported Media Type' });
      const after = (await http().get('/api/TenantRegistry').auth(bearer, { type: 'bearer' }).expect(200))
        .body;
      expect(after).toEqual(before);
    },
  );

  it('every operation of the document that takes a body answers 415 to a form or text body', async () => {
    const withBody = Object.entries(paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => op.requestBody !== undefined)
        .map(([method]) => ({ method, path: path.replace(/\{[^}]+\}/g, EXAMPLE_GUID) })),
    );
    expect(withBody.length).toBeGreaterThan(20);
    const answers: string[] = [];
    for (const { method, path } of withBody)
      for (const [type, body] of OTHER_MEDIA_TYPES.slice(0, 2)) {
        const res = await http()
          [method as 'post' | 'put'](path)
          .auth(bearer, { type: 'bearer' })
          .set('Content-Type', type)
          .send(body);
        answers.push(`${method.toUpperCase()} ${path} ${type}: ${res.status}`);
      }
    expect(answers.filter((a) => !a.endsWith(': 415'))).toEqual([]);
  });

  it('a request without a body is never refused for its media type', async () => {
    // Content-Length 0 with any Content-Type is no content: the route's own rules answer (a missing name).
    const empty = await http()
      .post('/api/TenantRegistry')
      .auth(bearer, { type: 'bearer' })
      .set('Content-Type', 'text/plain')
      .set('Content-Length', '0');
    expect(empty.status).toBe(400);
    expect(empty.body.errors).toEqual([expect.objectContaining({ field: 'name' })]);
    const none = await http().post('/api/TenantRegistry').auth(bearer, { type: 'bearer' });
    expect(none.status).toBe(400);
    // A JSON body with parameters (charset) is JSON.
    await http()
      .post('/api/TenantRegistry')
      .auth(bearer, { type: 'bearer' })
      .set('Content-Type', 'application/json; charset=utf-8')
      .send(JSON.stringify({ name: `Tenant ${provider} charset` }))
      .expect(201);
    // Sign-in without a body: no user name (400), not a media-type refusal.
    const signInWithoutBody = await http()
      .post('/api/Authentication/ByUserNamePassword')
      .set('Content-Length', '0');
    expect(signInWithoutBody.status).toBe(400);
  });

  it.each([...OTHER_MEDIA_TYPES, ['application/json', '{"x":1}'] as [string, string]])(
    'POST /api/Authentication/Logout with %s: 200 whatever it carries',
    async (type, body) => {
      const res = await http().post('/api/Authentication/Logout').set('Content-Type', type).send(body);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ loggedOut: true });
    },
  );
});
