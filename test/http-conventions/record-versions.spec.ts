import request from 'supertest';
import { ApiKeyService } from '@app/api-keys';
import { ALL_PERMISSIONS } from '@app/access';
import { startTestApp, TestApp } from '../support/test-app';
import { TEST_PROVIDERS } from '../support/databases';
import { createUser, landlordActor, type CreatedUser } from '../factories/identity.factory';
import { createEngineModel } from '../factories/engine.factory';

/** A versioned record, the body of a change to it and the path of its collection (the create's route). */
interface Resource {
  name: string;
  collection: string;
  create: () => Record<string, unknown>;
  change: () => Record<string, unknown>;
}

let counter = 0;
const unique = (prefix: string) => `${prefix} ${process.pid}-${++counter}`;

/**
 * ETag, If-Match and Location: every versioned record answers its version as a strong ETag
 * on GET and on every write; PUT and DELETE write only the version If-Match names (412 otherwise, nothing
 * written); a create answers 201 with the new record's Location.
 */
describe.each(TEST_PROVIDERS)('record versions over HTTP, on %s', (provider) => {
  let t: TestApp;
  let admin: CreatedUser;
  let key: string;
  let roleGuid: string;
  let workflowGuid: string;
  const http = () => request(t.url);

  beforeAll(async () => {
    t = await startTestApp(provider);
    // in the landlord tenant: tenants are the landlord's to manage
    const { tenantGuid } = await landlordActor(t.app);
    admin = await createUser(t.app, { permissions: [...ALL_PERMISSIONS], tenantGuid });
    key = (
      await t.app.get(ApiKeyService).create(admin.actor, { userRegistryGuid: admin.guid, name: 'versions' })
    ).key;
    roleGuid = admin.roleGuid;
    workflowGuid = (await createEngineModel(t.app, admin.actor)).workflowGuid;
  });
  afterAll(async () => {
    await t?.close();
  });

  const resources = (): Resource[] => [
    {
      name: 'tenant',
      collection: '/api/TenantRegistry',
      create: () => ({ name: unique('T') }),
      change: () => ({ name: unique('T') }),
    },
    {
      name: 'role',
      collection: '/api/RoleRegistry',
      create: () => ({ name: unique('R'), permissions: [1] }),
      change: () => ({ name: unique('R') }),
    },
    {
      name: 'user',
      collection: '/api/UserRegistry',
      create: () => ({ name: unique('u').replace(' ', '-'), roleGuid }),
      change: () => ({ email: `${unique('e').replace(' ', '-')}@example.com` }),
    },
    {
      name: 'model',
      collection: '/api/EntityAnalysisModel',
      create: () => ({ name: unique('M') }),
      change: () => ({ name: unique('M') }),
    },
    {
      name: 'case workflow',
      collection: '/api/CaseWorkflow',
      create: () => ({ name: unique('W') }),
      change: () => ({ name: unique('W') }),
    },
    {
      name: 'case workflow status',
      collection: '/api/CaseWorkflowStatus',
      create: () => ({ caseWorkflowGuid: workflowGuid, name: unique('S'), priority: 1 }),
      change: () => ({ priority: 2 }),
    },
  ];

  it.each(resources().map((r) => [r.name, r] as const))(
    'a %s: 201 with Location and ETag, GET and PUT with ETag, If-Match honoured by PUT and DELETE',
    async (_name, r) => {
      const created = await http().post(r.collection).set('x-api-key', key).send(r.create()).expect(201);
      const guid = created.body.guid as string;
      const path = `${r.collection}/${guid}`;
      expect(created.headers.location).toBe(path);
      expect(created.body.version).toBe(1);
      expect(created.headers.etag).toBe('"1"');

      const read = await http().get(created.headers.location).set('x-api-key', key).expect(200);
      expect(read.headers.etag).toBe('"1"');
      expect(read.body).toEqual(created.body);
      // A conditional GET of the same version: 304, nothing sent again.
      await http().get(path).set('x-api-key', key).set('If-None-Match', '"1"').expect(304);

      // A stale or foreign entity-tag changes nothing.
      for (const stale of ['"2"', '"bogus"', 'W/"1"', 'bogus'])
        await http().put(path).set('x-api-key', key).set('If-Match', stale).send(r.change()).expect(412);
      expect((await http().get(path).set('x-api-key', key).expect(200)).body).toEqual(created.body);

      const changed = await http()
        .put(path)
        .set('x-api-key', key)
        .set('If-Match', '"1"')
        .send(r.change())
        .expect(200);
      expect(changed.headers.etag).toBe('"2"');
      expect(changed.body.version).toBe(2);
      expect((await http().get(path).set('x-api-key', key).expect(200)).body).toEqual(changed.body);

      // The version read before that change is stale now: the second editor is told, nothing written.
      const refused = await http().put(path).set('x-api-key', key).set('If-Match', '"1"').send(r.change());
      expect(refused.status).toBe(412);
      expect(refused.body).toMatchObject({ status: 412, type: 'urn:problem-type:precondition-failed' });
      expect((await http().get(path).set('x-api-key', key).expect(200)).body).toEqual(changed.body);

      // Without If-Match a write applies to the record as it is; `*` matches any version of it.
      const unconditional = await http().put(path).set('x-api-key', key).send(r.change()).expect(200);
      expect(unconditional.headers.etag).toBe('"3"');
      await http().put(path).set('x-api-key', key).set('If-Match', '*').send(r.change()).expect(200);

      await http().delete(path).set('x-api-key', key).set('If-Match', '"3"').expect(412);
      await http().get(path).set('x-api-key', key).expect(200);
      await http().delete(path).set('x-api-key', key).set('If-Match', '"7", "4"').expect(204);
      await http().get(path).set('x-api-key', key).expect(404);
      // A record that is gone is a 404 whatever If-Match says (RFC 9110 §13.2.1).
      await http().put(path).set('x-api-key', key).set('If-Match', '"4"').send(r.change()).expect(404);
    },
  );

  it('lists carry each record version; the creates without versions still answer their Location', async () => {
    const roles = await http().get('/api/RoleRegistry').set('x-api-key', key).expect(200);
    expect(roles.body.items.length).toBeGreaterThan(0);
    expect(roles.body.items.every((x: { version: unknown }) => Number.isInteger(x.version))).toBe(true);
    const model = await http()
      .post('/api/EntityAnalysisModel')
      .set('x-api-key', key)
      .send({ name: unique('M') });
    const xpaths = `/api/EntityAnalysisModel/${model.body.guid as string}/RequestXPath`;
    const xpath = await http()
      .post(xpaths)
      .set('x-api-key', key)
      .send({ name: 'Amount', xPath: '$.amount', dataType: 'Float' })
      .expect(201);
    expect(xpath.headers.location).toBe(`${xpaths}/${xpath.body.guid as string}`);
    expect(xpath.headers.etag).toBeUndefined();
    const apiKey = await http()
      .post('/api/UserRegistryApiKey')
      .set('x-api-key', key)
      .send({ userRegistryGuid: admin.guid, name: 'located' })
      .expect(201);
    expect(apiKey.headers.location).toBe(`/api/UserRegistryApiKey/${apiKey.body.guid as string}`);
    // Express matches paths in any letter case; the Location is the route's own spelling.
    const tenant = await http()
      .post('/api/tenantregistry/')
      .set('x-api-key', key)
      .send({ name: unique('T') });
    expect(tenant.headers.location).toBe(`/api/TenantRegistry/${tenant.body.guid as string}`);
  });
});

/** The write of If-Match is ONE conditional statement: a race between editors has exactly one winner. */
describe('concurrent editors of one record, on PostgreSQL', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startTestApp('postgres');
    const landlord = await landlordActor(t.app);
    key = (
      await t.app
        .get(ApiKeyService)
        .create(landlord, { userRegistryGuid: landlord.userGuid, name: 'concurrent editors' })
    ).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each([
    ['role', '/api/RoleRegistry', { name: 'Contested role', permissions: [1] }],
    ['case workflow', '/api/CaseWorkflow', { name: 'Contested workflow' }],
  ] as const)(
    '50 concurrent PUTs of a %s with the same If-Match: exactly one is written, the 49 others are told 412',
    async (_name, collection, body) => {
      const created = await request(t.url).post(collection).set('x-api-key', key).send(body).expect(201);
      const path = created.headers.location;
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          request(t.url)
            .put(path)
            .set('x-api-key', key)
            .set('If-Match', created.headers.etag)
            .send({ name: `${body.name} ${i}` }),
        ),
      );
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 412)).toHaveLength(49);
      const winner = answers.find((a) => a.status === 200)!;
      const now = await request(t.url).get(path).set('x-api-key', key).expect(200);
      expect(now.body).toEqual(winner.body);
      expect(now.headers.etag).toBe('"2"');
      // Without If-Match, 50 concurrent PUTs are all written, one after the other, none lost.
      const all = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          request(t.url)
            .put(path)
            .set('x-api-key', key)
            .send({ name: `${body.name} free ${i}` }),
        ),
      );
      expect(all.filter((a) => a.status === 200).length + all.filter((a) => a.status === 409).length).toBe(
        50,
      );
      const last = await request(t.url).get(path).set('x-api-key', key).expect(200);
      expect(last.headers.etag).toBe(`"${2 + all.filter((a) => a.status === 200).length}"`);
    },
  );
});
