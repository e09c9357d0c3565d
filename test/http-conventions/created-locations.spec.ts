import request from 'supertest';
import type { OpenAPIObject } from '@nestjs/swagger';
import { ApiKeyService } from '@app/api-keys';
import {
  createWriteRouteFixtures,
  WRITE_REQUESTS,
  type WriteRouteFixtures,
} from '../factories/write-routes.factory';
import { TEST_PROVIDERS } from '../support/databases';
import { startTestApp, TestApp } from '../support/test-app';

/** `/api/X/{guid}` of the document as the router's `/api/X/:guid`. */
const routePath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

/**
 * Every create the document states (a 201) answers a Location, and that Location is a GET that answers 200
 * with the record the create answered (the API key's raw key aside: it is shown once). Generated from the
 * served document, with the write-route factory's valid requests.
 */
describe.each(TEST_PROVIDERS)('every 201 Location answers a GET with 200, on %s', (provider) => {
  let t: TestApp;
  let fx: WriteRouteFixtures;
  let key: string;
  let creates: string[];

  beforeAll(async () => {
    t = await startTestApp(provider);
    fx = await createWriteRouteFixtures(t.app);
    key = (
      await t.app
        .get(ApiKeyService)
        .create(fx.caller.actor, { userRegistryGuid: fx.caller.guid, name: 'locations' })
    ).key;
    const document = (await request(t.url).get('/swagger/json').set('x-api-key', key).expect(200))
      .body as OpenAPIObject;
    creates = Object.entries(document.paths).flatMap(([path, item]) =>
      item.post?.responses[201] ? [`POST ${routePath(path)}`] : [],
    );
  });
  afterAll(async () => {
    await t?.close();
  });

  it('the document states the creates, each with a valid request in the write-route factory', () => {
    expect(creates.length).toBeGreaterThanOrEqual(9);
    for (const route of creates) expect([route, typeof WRITE_REQUESTS[route]]).toEqual([route, 'function']);
  });

  it('each create answers 201 with a Location whose GET answers 200 with the created record', async () => {
    const checked: string[] = [];
    for (const route of creates) {
      const { params, body } = WRITE_REQUESTS[route](fx);
      const path = route.slice('POST '.length).replace(/:(\w+)/g, (_m, name: string) => params[name]);
      const created = await request(t.url).post(path).set('x-api-key', key).send(body);
      expect([route, created.status]).toEqual([route, 201]);
      const location = created.headers.location as string | undefined;
      expect([route, location?.startsWith(`${path}/`)]).toEqual([route, true]);
      const read = await request(t.url).get(location!).set('x-api-key', key);
      expect([route, read.status]).toEqual([route, 200]);
      const { key: _shownOnce, ...record } = created.body as Record<string, unknown>;
      expect([route, read.body]).toEqual([route, record]);
      checked.push(route);
    }
    expect(checked).toEqual(creates);
  });
});
