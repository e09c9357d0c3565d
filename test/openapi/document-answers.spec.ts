import request from 'supertest';
import type { OpenAPIObject } from '@nestjs/swagger';
import { ApiKeyService } from '@app/api-keys';
import { Permission } from '@app/access';
import { DEMO_MODEL_GUID } from '@app/engine';
import { OPERATION_DESCRIPTIONS } from '../../apps/server/src/operation-descriptions';
import { createUser, landlordActor } from '../factories/identity.factory';
import { startTestApp, TestApp } from '../support/test-app';

type Operation = NonNullable<OpenAPIObject['paths'][string]['post']>;

/** What the served document says about answers: headers where they are, examples that work. */
describe('the document states answers as the service gives them', () => {
  let t: TestApp;
  let key: string;
  let document: OpenAPIObject;
  const operation = (id: string): Operation => {
    for (const item of Object.values(document.paths))
      for (const op of Object.values(item) as Operation[])
        if (typeof op === 'object' && op?.operationId === id) return op;
    throw new Error(`no operation ${id}`);
  };

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    const landlord = await landlordActor(t.app);
    const user = await createUser(t.app, {
      tenantGuid: landlord.tenantGuid,
      permissions: [Permission.Invoke],
    });
    key = (await t.app.get(ApiKeyService).create(landlord, { userRegistryGuid: user.guid, name: 'document' }))
      .key;
    document = (await request(t.url).get('/swagger/json').set('x-api-key', key).expect(200))
      .body as OpenAPIObject;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('every operation has a description that says more than its summary; the table names only operations', () => {
    const ids: string[] = [];
    for (const item of Object.values(document.paths))
      for (const op of Object.values(item) as Operation[]) {
        if (typeof op !== 'object' || !op?.operationId) continue;
        ids.push(op.operationId);
        const { operationId, summary, description } = op;
        expect({ operationId, described: (description ?? '').length > (summary ?? '').length }).toEqual({
          operationId,
          described: true,
        });
      }
    expect(ids.length).toBeGreaterThan(70);
    expect(Object.keys(OPERATION_DESCRIPTIONS).filter((id) => !ids.includes(id))).toEqual([]);
  });

  it("Logout's X-Service-Logout-Warning is a header of its answer, not of the request", () => {
    const logout = operation('logout');
    const names = (logout.parameters ?? []).map((p) => ('name' in p ? p.name : ''));
    expect(names).not.toContain('X-Service-Logout-Warning');
    const ok = logout.responses[200] as { headers?: Record<string, unknown> };
    expect(Object.keys(ok.headers ?? {})).toContain('X-Service-Logout-Warning');
  });

  it("Invoke's example, posted to the shipped demo model, is answered 200", async () => {
    const body = operation('invokeEntityAnalysisModel').requestBody as {
      content: Record<string, { schema: { example?: unknown }; example?: unknown }>;
    };
    const json = body.content['application/json'];
    const example = json.example ?? json.schema.example;
    expect(example).toEqual(expect.any(Object));
    const answer = await request(t.url)
      .post(`/api/Invoke/EntityAnalysisModel/${DEMO_MODEL_GUID}`)
      .set('x-api-key', key)
      .send(example as object);
    expect([answer.status, answer.body]).toEqual([200, expect.objectContaining({})]);
  });
});
