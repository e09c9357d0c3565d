import { randomBytes } from 'node:crypto';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ALL_PERMISSIONS, Permission } from '@app/access';
import { FailureType, UserLogin } from '@app/audit';
import { ApiKeyService } from '@app/api-keys';
import {
  ArchiverService,
  CaseRecord,
  EntityAnalysisModelArchive,
  EntityAnalysisModelRequestXPath,
} from '@app/engine';
import { RoleRegistryPermission } from '@app/identity';
import { createEngineModel, transaction } from '../factories/engine.factory';
import { createUser, CreatedUser, landlordActor } from '../factories/identity.factory';
import { signIn } from '../support/auth';
import { TEST_PROVIDERS } from '../support/databases';
import { startTestApp, TestApp } from '../support/test-app';

/** The documented JSON depth bound (docs/SECURITY.md, Input limits). */
const MAX_JSON_DEPTH = 64;

/** `{"a":{"a":…1…}}` nested `levels` deep (objects only). */
function nested(levels: number, leaf = '1'): string {
  return `${'{"a":'.repeat(levels)}${leaf}${'}'.repeat(levels)}`;
}

/** Sends `body` as it is (superagent would serialise a Buffer as JSON under a JSON content type). */
function raw(test: request.Test, body: Buffer | string): request.Test {
  return test.serialize(() => body as string).send(body);
}

interface Problem {
  status: number;
  type: string;
  errors?: { field: string; message: string }[];
}

describe.each(TEST_PROVIDERS)('hostile input on %s', (provider) => {
  let t: TestApp;
  let admin: CreatedUser;
  let auth: Record<string, string>;
  let apiKey: string;
  let ds: DataSource;

  beforeAll(async () => {
    // The Archiver copies at once, so "answered 200, then lost" shows within the test.
    t = await startTestApp(provider, { ArchiveBulkCopyIntervalMilliseconds: '50' });
    ds = t.app.get(DataSource);
    admin = await createUser(t.app, {
      tenantGuid: (await landlordActor(t.app)).tenantGuid,
      permissions: [...ALL_PERMISSIONS],
    });
    auth = { authorization: `Bearer ${(await signIn(t.url, admin.name, admin.password)).token}` };
    apiKey = (
      await t.app.get(ApiKeyService).create(admin.actor, { userRegistryGuid: admin.guid, name: 'hostile' })
    ).key;
  });
  afterAll(() => t.close());

  const problemOf = (res: request.Response) => res.body as Problem;
  const fieldsOf = (res: request.Response) => (problemOf(res).errors ?? []).map((e) => e.field);

  describe('null and wrong types', () => {
    it('PUT /api/RoleRegistry with permissions null is a 400 naming permissions, and the role keeps them', async () => {
      const role = await request(t.url)
        .post('/api/RoleRegistry')
        .set(auth)
        .send({ name: `Role ${randomBytes(3).toString('hex')}`, permissions: [Permission.Invoke] })
        .expect(201);
      const res = await request(t.url)
        .put(`/api/RoleRegistry/${role.body.guid as string}`)
        .set(auth)
        .send({ permissions: null });
      expect(res.status).toBe(400);
      expect(fieldsOf(res)).toEqual(['permissions']);
      const kept = await request(t.url)
        .get(`/api/RoleRegistry/${role.body.guid as string}`)
        .set(auth)
        .expect(200);
      expect(kept.body.permissions).toEqual([Permission.Invoke]);
      expect(await ds.getRepository(RoleRegistryPermission).countBy({})).toBeGreaterThan(0);
    });

    it.each([
      ['RoleRegistry', { name: null }, 'name'],
      ['EntityAnalysisModel', { name: null }, 'name'],
      ['EntityAnalysisModel', { active: null }, 'active'],
    ] as const)('PUT /api/%s with %j is a 400 naming the field, not a 500', async (resource, body, field) => {
      const created =
        resource === 'RoleRegistry'
          ? await request(t.url).post('/api/RoleRegistry').set(auth).send({ name: 'R null', permissions: [] })
          : await request(t.url).post('/api/EntityAnalysisModel').set(auth).send({ name: 'M null' });
      expect(created.status).toBe(201);
      const res = await request(t.url)
        .put(`/api/${resource}/${created.body.guid as string}`)
        .set(auth)
        .send(body);
      expect(res.status).toBe(400);
      expect(fieldsOf(res)).toEqual([field]);
      const after = await request(t.url)
        .get(`/api/${resource}/${created.body.guid as string}`)
        .set(auth);
      expect(after.body).toEqual(created.body);
    });

    it('a nullable field takes null (the user loses the e-mail address); absent fields stay as they are', async () => {
      const user = await request(t.url)
        .post('/api/UserRegistry')
        .set(auth)
        .send({
          name: `mail-${randomBytes(3).toString('hex')}`,
          roleGuid: admin.roleGuid,
          email: 'a@example.test',
        })
        .expect(201);
      const res = await request(t.url)
        .put(`/api/UserRegistry/${user.body.guid as string}`)
        .set(auth)
        .send({ email: null })
        .expect(200);
      expect(res.body).toEqual({ ...user.body, email: null, version: user.body.version + 1 });
    });

    it('an unknown member is named by itself, not by the first word of a message', async () => {
      const res = await request(t.url).post('/api/CaseWorkflow').set(auth).send({ name: 'W', colour: 'red' });
      expect(res.status).toBe(400);
      expect(problemOf(res).type).toBe('urn:problem-type:validation');
      expect(fieldsOf(res)).toEqual(['colour']);
    });

    it('a GUID path parameter is checked by one pipe, naming the parameter, on every controller', async () => {
      const cases = [
        ['get', '/api/RoleRegistry/not-a-guid', 'guid'],
        ['put', '/api/EntityAnalysisModel/not-a-guid', 'guid'],
        ['post', '/api/UserRegistry/RevokeTokens/not-a-guid', 'id'],
        ['put', '/api/EntityAnalysisModel/00000000-0000-4000-8000-000000000000/RequestXPath/x', 'xpathGuid'],
        ['delete', '/api/UserRegistryApiKey/123', 'guid'],
        ['get', '/api/CaseWorkflowStatus?caseWorkflowGuid=nope', 'caseWorkflowGuid'],
      ] as const;
      const outcomes = [];
      for (const [method, path] of cases) {
        const res = await request(t.url)[method](path).set(auth).send({});
        outcomes.push([path, res.status, fieldsOf(res)]);
      }
      expect(outcomes).toEqual(cases.map(([, path, field]) => [path, 400, [field]]));
    });

    it('in a JSON body the last of two members with the same name wins (JSON.parse), documented', async () => {
      const res = await request(t.url)
        .post('/api/CaseWorkflow')
        .set(auth)
        .set('content-type', 'application/json')
        .send('{"name":"first","name":"second"}')
        .expect(201);
      expect(res.body.name).toBe('second');
    });

    it('a repeated query parameter is a 400 naming it, on the grids and on Invoke', async () => {
      const grid = await request(t.url).get('/api/ModelInvokeWarning?take=1&take=2').set(auth);
      expect([grid.status, fieldsOf(grid)]).toEqual([400, ['take']]);
      const { model } = await createEngineModel(t.app, admin.actor);
      const invoke = await request(t.url)
        .post(`/api/Invoke/EntityAnalysisModel/${model.guid}?trace=true&trace=true`)
        .set('x-api-key', apiKey)
        .send(transaction('ACC-Q', 1));
      expect([invoke.status, fieldsOf(invoke)]).toEqual([400, ['trace']]);
    });
  });

  describe('deep JSON', () => {
    it('a sign-in body nested 50 000 levels is a 400 problem, not a 500', async () => {
      const res = await request(t.url)
        .post('/api/Authentication/ByUserNamePassword')
        .set('content-type', 'application/json')
        .send(`{"userName":"someone","password":${nested(50_000)}}`);
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(fieldsOf(res)).toEqual(['$']);
    });

    it('an Invoke body with a 10 000-level field is refused before any answer, and nothing is archived', async () => {
      const { model } = await createEngineModel(t.app, admin.actor, {
        rules: [{ condition: true, status: 0 }],
      });
      const body = JSON.stringify(transaction('ACC-DEEP', 1));
      const res = await request(t.url)
        .post(`/api/Invoke/EntityAnalysisModel/${model.guid}`)
        .set('x-api-key', apiKey)
        .set('content-type', 'application/json')
        .send(`${body.slice(0, -1)},"deep":${nested(10_000)}}`);
      expect(res.status).toBe(400);
      await t.app.get(ArchiverService).drain();
      expect(await ds.getRepository(CaseRecord).countBy({ CaseKeyValue: 'ACC-DEEP' })).toBe(0);
    });

    it('the depth limit is documented in the API', async () => {
      const doc = (await request(t.url).get('/swagger/json').set(auth).expect(200)).body as {
        info: { description: string };
        paths: Record<string, { post: { requestBody: { description: string } } }>;
      };
      expect(doc.info.description).toContain(`nested at most ${MAX_JSON_DEPTH} levels`);
      expect(doc.paths['/api/Invoke/EntityAnalysisModel/{guid}'].post.requestBody.description).toContain(
        `nested at most ${MAX_JSON_DEPTH} levels`,
      );
    });

    it(`${MAX_JSON_DEPTH} levels are accepted and archived whole; one more is refused`, async () => {
      const { model } = await createEngineModel(t.app, admin.actor);
      const base = JSON.stringify(transaction('ACC-64', 1));
      // The body itself is level 1: the field adds MAX_JSON_DEPTH - 1 levels.
      const send = (levels: number) =>
        request(t.url)
          .post(`/api/Invoke/EntityAnalysisModel/${model.guid}`)
          .set('x-api-key', apiKey)
          .set('content-type', 'application/json')
          .send(`${base.slice(0, -1)},"deep":${nested(levels)}}`);
      const ok = await send(MAX_JSON_DEPTH - 1);
      expect(ok.status).toBe(200);
      expect((await send(MAX_JSON_DEPTH)).status).toBe(400);
      await t.app.get(ArchiverService).drain();
      const row = await ds.getRepository(EntityAnalysisModelArchive).findOneByOrFail({
        EntityAnalysisModelInstanceEntryGuid: ok.body.entityAnalysisModelInstanceEntryGuid as string,
      });
      expect(row.Json).toContain(nested(MAX_JSON_DEPTH - 1));
    });
  });

  describe('U+0000 and lone surrogates', () => {
    it.each([
      ['U+0000', 'adm\u0000in'],
      ['a lone surrogate', 'adm\ud800in'],
      ['a control character', 'adm\u001bin'],
    ])(
      'a sign-in user name holding %s is a 400 naming userName, with its UserLogin row',
      async (_what, name) => {
        const before = await ds.getRepository(UserLogin).count();
        const res = await request(t.url)
          .post('/api/Authentication/ByUserNamePassword')
          .send({ userName: name, password: 'whatever-password' });
        expect(res.status).toBe(400);
        expect(fieldsOf(res)).toEqual(['userName']);
        const rows = await ds.getRepository(UserLogin).find({ order: { Id: 'ASC' } });
        expect(rows.length).toBe(before + 1);
        expect(rows[rows.length - 1]).toMatchObject({
          Failed: true,
          FailureTypeId: FailureType.UnknownUser,
          CreatedUser: 'adm\uFFFDin',
        });
      },
    );

    it('a 422 the sign-in decides itself (a refused new password, after the password was proven) writes its row (FailureTypeId 14)', async () => {
      const user = await createUser(t.app);
      const before = await ds.getRepository(UserLogin).count();
      const res = await request(t.url).post('/api/Authentication/ByUserNamePassword').send({
        userName: user.name,
        password: user.password,
        newPassword: 'A-brand-new-password-1',
        repeatNewPassword: 'A-different-password-2',
      });
      expect([res.status, fieldsOf(res)]).toEqual([422, ['repeatNewPassword']]);
      expect(await ds.getRepository(UserLogin).count()).toBe(before + 1);
      expect(await ds.getRepository(UserLogin).findOneByOrFail({ CreatedUser: user.name })).toMatchObject({
        Failed: true,
        FailureTypeId: FailureType.NewPasswordRefused,
      });
    });

    it('WirePasswordHash with U+0000 in the user name is a 400 naming userName', async () => {
      const res = await request(t.url)
        .post('/api/Authentication/WirePasswordHash')
        .send({ userName: `${admin.name}\u0000` });
      expect([res.status, fieldsOf(res)]).toEqual([400, ['userName']]);
    });

    it.each([
      ['U+0000', '%00'],
      ['a lone surrogate (UTF-8 of U+D800)', '%ED%A0%80'],
      ['bytes that are not UTF-8', '%FF'],
    ])(
      'a grid search holding %s is a 400 naming search (on SQLite it matched every row)',
      async (_what, raw) => {
        const res = await request(t.url).get(`/api/UserLogin?search=a${raw}b`).set(auth);
        expect([res.status, fieldsOf(res)]).toEqual([400, ['search']]);
      },
    );

    it.each([
      [
        'transactionId',
        (b: Record<string, unknown>) => ({ ...b, transactionId: 'tx\u0000-1' }),
        'transactionId',
      ],
      [
        'account.id',
        (b: Record<string, unknown>) => ({ ...b, account: { id: 'ACC\u0000NUL' } }),
        'account.id',
      ],
      [
        'an array item',
        (b: Record<string, unknown>) => ({ ...b, items: [{ sku: 'ok' }, { sku: '\ud83d' }] }),
        'items[1].sku',
      ],
      ['a member name', (b: Record<string, unknown>) => ({ ...b, ['x\u0000y']: 1 }), 'x\uFFFDy'],
    ])(
      'Invoke with U+0000 or a lone surrogate in %s is a 400 naming its path; nothing is archived',
      async (_what, mutate, path) => {
        const { model } = await createEngineModel(t.app, admin.actor, {
          rules: [{ condition: true, status: 0 }],
        });
        const before = await ds.getRepository(EntityAnalysisModelArchive).count();
        const res = await request(t.url)
          .post(`/api/Invoke/EntityAnalysisModel/${model.guid}`)
          .set('x-api-key', apiKey)
          .send(mutate(transaction('ACC-NUL', 1)));
        expect([res.status, fieldsOf(res)]).toEqual([400, [path]]);
        await t.app.get(ArchiverService).drain();
        expect(await ds.getRepository(EntityAnalysisModelArchive).count()).toBe(before);
      },
    );

    it('Invoke with bytes that are not UTF-8 is a 400 (never silently replaced)', async () => {
      const { model } = await createEngineModel(t.app, admin.actor);
      const json = Buffer.from(JSON.stringify(transaction('ACC-UTF', 1)));
      const bad = Buffer.concat([json.subarray(0, -1), Buffer.from(',"note":"\xff\xfe"}', 'latin1')]);
      const res = await raw(
        request(t.url)
          .post(`/api/Invoke/EntityAnalysisModel/${model.guid}`)
          .set('x-api-key', apiKey)
          .set('content-type', 'application/json'),
        bad,
      );
      expect([res.status, fieldsOf(res)]).toEqual([400, ['$']]);
    });

    it('tabs and newlines inside Invoke payload values are data: answered, archived and put on the case as sent', async () => {
      const { model } = await createEngineModel(t.app, admin.actor, {
        rules: [{ condition: true, status: 0 }],
      });
      const body = { ...transaction('ACC\tTAB\nLINE', 1), note: 'line one\r\n\tline two' };
      const res = await request(t.url)
        .post(`/api/Invoke/EntityAnalysisModel/${model.guid}`)
        .set('x-api-key', apiKey)
        .send(body)
        .expect(200);
      expect(res.body.fields.AccountId).toBe('ACC\tTAB\nLINE');
      await t.app.get(ArchiverService).drain();
      const row = await ds.getRepository(EntityAnalysisModelArchive).findOneByOrFail({
        EntityAnalysisModelInstanceEntryGuid: res.body.entityAnalysisModelInstanceEntryGuid as string,
      });
      expect((JSON.parse(row.Json) as { request: unknown }).request).toEqual(body);
      expect(await ds.getRepository(CaseRecord).countBy({ CaseKeyValue: 'ACC\tTAB\nLINE' })).toBe(1);
    });

    it('control characters in names and identifiers are refused; in a notification body they are kept', async () => {
      const wf = await request(t.url).post('/api/CaseWorkflow').set(auth).send({ name: 'W\tX' });
      expect([wf.status, fieldsOf(wf)]).toEqual([400, ['name']]);
      const { model } = await createEngineModel(t.app, admin.actor);
      const xpath = await request(t.url)
        .post(`/api/EntityAnalysisModel/${model.guid}/RequestXPath`)
        .set(auth)
        .send({ name: 'Note', xPath: '$.no\nte', dataType: 'String' });
      expect([xpath.status, fieldsOf(xpath)]).toEqual([400, ['xPath']]);
      expect(await ds.getRepository(EntityAnalysisModelRequestXPath).countBy({ Name: 'Note' })).toBe(0);
      const workflow = await request(t.url)
        .post('/api/CaseWorkflow')
        .set(auth)
        .send({ name: 'W' })
        .expect(201);
      const status = await request(t.url)
        .post('/api/CaseWorkflowStatus')
        .set(auth)
        .send({
          caseWorkflowGuid: workflow.body.guid as string,
          name: 'S',
          priority: 1,
          notificationBody: 'Dear team,\n\tcase {CaseKeyValue}.',
        })
        .expect(201);
      expect(status.body.notificationBody).toBe('Dear team,\n\tcase {CaseKeyValue}.');
    });
  });

  describe('bodies that cannot be decoded', () => {
    const garbage = Buffer.from('this is not compressed at all, just bytes');
    it.each(['gzip', 'deflate', 'br'])(
      'a corrupt %s body is a 400 problem, even without a credential',
      async (encoding) => {
        for (const path of ['/api/RoleRegistry', '/api/Authentication/ByUserNamePassword']) {
          const res = await raw(
            request(t.url)
              .post(path)
              .set('content-type', 'application/json')
              .set('content-encoding', encoding),
            garbage,
          );
          expect({ path, status: res.status, type: res.headers['content-type'] }).toEqual({
            path,
            status: 400,
            type: expect.stringMatching(/^application\/problem\+json/) as string,
          });
        }
      },
    );

    it.each([
      ['gzip', gzipSync],
      ['deflate', deflateSync],
      ['br', brotliCompressSync],
    ] as const)('a well-formed %s body is read', async (encoding, compress) => {
      const res = await raw(
        request(t.url)
          .post('/api/CaseWorkflow')
          .set(auth)
          .set('content-type', 'application/json')
          .set('content-encoding', encoding),
        compress(Buffer.from(JSON.stringify({ name: `Compressed ${encoding}` }))),
      );
      expect(res.status).toBe(201);
    });

    it('a JSON body in another charset than UTF-8 is a 415 (RFC 8259), whatever it holds', async () => {
      const res = await raw(
        request(t.url)
          .post('/api/CaseWorkflow')
          .set(auth)
          .set('content-type', 'application/json; charset=utf-16le'),
        Buffer.from(JSON.stringify({ name: 'Sixteen' }), 'utf16le'),
      );
      expect(res.status).toBe(415);
    });

    it('an unsupported encoding stays a 415', async () => {
      const res = await raw(
        request(t.url)
          .post('/api/RoleRegistry')
          .set('content-type', 'application/json')
          .set('content-encoding', 'compress'),
        garbage,
      );
      expect(res.status).toBe(415);
    });
  });
});
