import request from 'supertest';
import type { OpenAPIObject } from '@nestjs/swagger';
import { ApiKeyService } from '@app/api-keys';
import { ALL_PERMISSIONS } from '@app/access';
import { startTestApp, TestApp } from '../support/test-app';
import { TEST_PROVIDERS } from '../support/databases';
import { createUser, landlordActor, type CreatedUser } from '../factories/identity.factory';

/** What fetch(), undici and browsers send when they revalidate. */
const REVALIDATE = 'no-cache';

/**
 * Conditional GETs: a record's version, a list's and a grid's hashed ETag, each answered 304 when If-None-Match
 * names it, whatever the request's Cache-Control (RFC 9111 §5.2.1.4); the document declares If-None-Match on
 * every GET that answers an ETag.
 */
describe.each(TEST_PROVIDERS)('conditional GETs, on %s', (provider) => {
  let t: TestApp;
  let admin: CreatedUser;
  let key: string;
  const http = () => request(t.url);

  beforeAll(async () => {
    t = await startTestApp(provider);
    const { tenantGuid } = await landlordActor(t.app);
    admin = await createUser(t.app, { permissions: [...ALL_PERMISSIONS], tenantGuid });
    key = (
      await t.app
        .get(ApiKeyService)
        .create(admin.actor, { userRegistryGuid: admin.guid, name: 'conditional' })
    ).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  const get = (path: string, ifNoneMatch?: string, cacheControl?: string) => {
    const r = http().get(path).set('x-api-key', key);
    if (ifNoneMatch !== undefined) r.set('If-None-Match', ifNoneMatch);
    if (cacheControl !== undefined) r.set('Cache-Control', cacheControl);
    return r;
  };

  it("a record's version: 304 with its ETag and no body, with and without Cache-Control: no-cache", async () => {
    const created = await http()
      .post('/api/CaseWorkflow')
      .set('x-api-key', key)
      .send({ name: `W ${process.pid}` });
    const path = created.headers.location;
    for (const cacheControl of [undefined, REVALIDATE, 'max-age=0']) {
      const again = await get(path, '"1"', cacheControl).expect(304);
      expect(again.headers.etag).toBe('"1"');
      expect(again.text ?? '').toBe('');
      expect(again.headers['content-type']).toBeUndefined();
      await get(path, 'W/"1"', cacheControl).expect(304);
      await get(path, '"7", "1"', cacheControl).expect(304);
      const other = await get(path, '"2"', cacheControl).expect(200);
      expect(other.body.version).toBe(1);
    }
  });

  it.each(['/api/TenantRegistry', '/api/RoleRegistry', '/api/CaseWorkflow', '/api/EntityAnalysisModel'])(
    'a list (%s): a hashed weak ETag, 304 while the list is the same, 200 with a new ETag once it changes',
    async (path) => {
      const first = await get(path).expect(200);
      // every list answers a page: { items, total, next }
      const items = (body: unknown): unknown[] => (body as { items: unknown[] }).items;
      expect(Array.isArray(items(first.body))).toBe(true);
      const etag: string = first.headers.etag;
      expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]{22}"$/);
      expect((await get(path).expect(200)).headers.etag).toBe(etag);
      const revalidated = await get(path, etag, REVALIDATE).expect(304);
      expect(revalidated.headers.etag).toBe(etag);
      await get(path, etag).expect(304);
      // HEAD answers as GET does
      await http().head(path).set('x-api-key', key).set('If-None-Match', etag).expect(304);
      await http()
        .post(path)
        .set('x-api-key', key)
        .send(
          path === '/api/RoleRegistry'
            ? { name: `R ${Date.now()}`, permissions: [1] }
            : { name: `N ${Date.now()}` },
        )
        .expect(201);
      const changed = await get(path, etag, REVALIDATE).expect(200);
      expect(changed.headers.etag).not.toBe(etag);
      expect(items(changed.body).length).toBe(items(first.body).length + 1);
    },
  );

  it("a grid's whole JSON answer: a hashed ETag and its 304; the CSV export carries none", async () => {
    const path = '/api/UserLogin?take=10';
    const first = await get(path).expect(200);
    const etag: string = first.headers.etag;
    expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]{22}"$/);
    await get(path, etag, REVALIDATE).expect(304);
    const csv = await get('/api/UserLogin?take=10&format=csv').expect(200);
    expect(csv.headers.etag).toBeUndefined();
  });

  it('If-None-Match: * is a 304 for any current answer, whatever Cache-Control; a malformed list is a 200', async () => {
    await get('/api/CaseWorkflow', '*', REVALIDATE).expect(304);
    await get('/api/Authentication/Session', '*', REVALIDATE).expect(304);
    await get('/api/CaseWorkflow', 'not-a-tag', REVALIDATE).expect(200);
  });

  it('the document: every GET whose 200 carries an ETag takes If-None-Match and may answer 304; every list has one', async () => {
    const document = (await get('/swagger/json').expect(200)).body as OpenAPIObject;
    let withETag = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      const op = item.get;
      if (!op) continue;
      const ok = op.responses[200] as
        | { headers?: Record<string, unknown>; content?: Record<string, { schema?: { type?: string } }> }
        | undefined;
      const array = ok?.content?.['application/json']?.schema?.type === 'array';
      if (array) expect([path, ok?.headers?.ETag !== undefined]).toEqual([path, true]);
      expect([path, op.responses[304] !== undefined]).toEqual([path, true]);
      if (ok?.headers?.ETag === undefined) continue;
      withETag++;
      const names = (op.parameters ?? []).map((p) => ('name' in p ? `${p.in}:${p.name}` : ''));
      expect([path, names]).toEqual([path, expect.arrayContaining(['header:If-None-Match'])]);
    }
    expect(withETag).toBeGreaterThan(15);
  });
});
