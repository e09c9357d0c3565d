import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import request from 'supertest';
import { createWriteRouteFixtures, type WriteRouteFixtures } from '../factories/write-routes.factory';
import { reservedMemberPath } from '@app/input-rules';
import { UserService } from '@app/identity';
import { createUser, landlordActor, type CreatedUser } from '../factories/identity.factory';
import { signIn } from '../support/auth';
import { SQLITE_AND_POSTGRES } from '../support/databases';
import { arbitraryOf, oddValuesFor, type Schema } from '../support/schema-arbitrary';
import { startTestApp, TestApp } from '../support/test-app';

interface Operation {
  operationId: string;
  responses?: Record<string, { content?: Record<string, unknown> }>;
  parameters?: { name: string; in: string; required?: boolean; schema: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  security?: Record<string, unknown>[];
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}
interface WriteOperation {
  key: string;
  method: 'post' | 'put' | 'delete' | 'patch';
  path: string;
  op: Operation;
  body?: Schema;
}

/** Runs per operation and kind (valid, invalid). */
const RUNS = Number(process.env.PROPERTY_RUNS ?? 12);

/** fast-check's assert, its failure naming the operation. */
async function assertFor<T extends unknown[]>(key: string, property: fc.IAsyncProperty<T>) {
  try {
    await fc.assert(property, { numRuns: RUNS, endOnFailure: true });
  } catch (err) {
    throw new Error(`${key}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

interface QueryOperation {
  key: string;
  method: 'get' | 'post' | 'put' | 'delete' | 'patch';
  path: string;
  op: Operation;
}

/** The fixture a parameter of a path names (a random GUID where none fits): a record that is there to read. */
function pathValueOf(path: string, name: string, fx: WriteRouteFixtures): string {
  const known: Record<string, string> = {
    userRegistryGuid: fx.user.guid,
    xpathGuid: fx.xpathGuid,
    ruleGuid: fx.ruleGuid,
    entryGuid: fx.entryGuid,
  };
  const byPrefix: [RegExp, string][] = [
    [/^\/api\/TenantRegistry\//, fx.tenantGuid],
    [/^\/api\/RoleRegistry\//, fx.roleGuid],
    [/^\/api\/UserRegistry\//, fx.user.guid],
    [/^\/api\/(EntityAnalysisModel|Invoke\/EntityAnalysisModel)\//, fx.modelGuid],
    [/^\/api\/CaseWorkflow\//, fx.workflowGuid],
    [/^\/api\/CaseWorkflowStatus\//, fx.statusGuid],
  ];
  if (known[name]) return known[name];
  return (name === 'guid' && byPrefix.find(([re]) => re.test(path))?.[1]) || fc.sample(fc.uuid(), 1)[0];
}

/**
 * The record each path parameter names, so a valid request reaches the handler's own rules (422, 409) rather
 * than a 404; writes that would end a fixture (a deletion, a deactivation, a revocation) get a random GUID.
 */
function pathValues(op: WriteOperation, fx: WriteRouteFixtures): Record<string, fc.Arbitrary<string>> {
  const random = fc.uuid();
  if (op.method === 'delete' || /Deactivate|RevokeTokens/.test(op.path))
    return Object.fromEntries(
      (op.op.parameters ?? []).filter((p) => p.in === 'path').map((p) => [p.name, random]),
    );
  const byPrefix: [RegExp, Record<string, string>][] = [
    [/^\/api\/TenantRegistry\//, { guid: fx.tenantGuid }],
    [/^\/api\/RoleRegistry\//, { guid: fx.roleGuid }],
    [/^\/api\/UserRegistry\//, { guid: fx.user.guid }],
    [
      /^\/api\/(EntityAnalysisModel|Invoke\/EntityAnalysisModel)\//,
      { guid: fx.modelGuid, xpathGuid: fx.xpathGuid, ruleGuid: fx.ruleGuid, entryGuid: fx.entryGuid },
    ],
    [/^\/api\/CaseWorkflow\//, { guid: fx.workflowGuid }],
    [/^\/api\/CaseWorkflowStatus\//, { guid: fx.statusGuid }],
  ];
  const known = byPrefix.find(([re]) => re.test(op.path))?.[1] ?? {};
  return Object.fromEntries(
    (op.op.parameters ?? [])
      .filter((p) => p.in === 'path')
      .map((p) => [p.name, known[p.name] ? fc.constant(known[p.name]) : random]),
  );
}

/**
 * The request schemas of the OpenAPI document, tried as an integrator would (the document is the contract): for every
 * write operation, bodies and parameters that the document says are valid are never refused with 400 (a 422,
 * 404 or 409 says the request was understood), and bodies the document says are invalid are each refused with
 * 400. Valid and invalid are Ajv's verdict on the served document, not the generator's; every answer is also
 * checked against the document by the test app (status, media type, body schema).
 */
describe.each(SQLITE_AND_POSTGRES)(
  'request schemas of the served document, property-based, on %s',
  (provider) => {
    let t: TestApp;
    let doc: Document;
    let fx: WriteRouteFixtures;
    let callerToken: string;
    let sessionUser: CreatedUser;
    const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true });
    addFormats(ajv);
    const validators = new Map<string, ValidateFunction>();
    const resolve = (ref: string) => doc.components.schemas[ref.split('/').pop()!];
    const validate = (key: string, schema: Schema) => {
      let v = validators.get(key);
      if (!v) {
        const rebased = JSON.parse(
          JSON.stringify(schema).replace(/"#\/components\//g, '"openapi#/components/'),
        );
        validators.set(key, (v = ajv.compile(rebased as object)));
      }
      return v;
    };

    beforeAll(async () => {
      t = await startTestApp(provider);
      fx = await createWriteRouteFixtures(t.app);
      callerToken = (await signIn(t.url, fx.caller.name, fx.caller.password)).token;
      sessionUser = await createUser(t.app, { permissions: [] });
      doc = (await request(t.url).get('/swagger/json').auth(callerToken, { type: 'bearer' }).expect(200))
        .body;
      ajv.addSchema({ components: doc.components }, 'openapi');
    });
    afterAll(async () => {
      await t?.close();
    });

    const writeOperations = (): WriteOperation[] =>
      Object.entries(doc.paths).flatMap(([path, item]) =>
        (['post', 'put', 'delete', 'patch'] as const)
          .filter((m) => item[m] !== undefined)
          .map((method) => ({
            key: `${method.toUpperCase()} ${path}`,
            method,
            path,
            op: item[method],
            body: item[method].requestBody?.content['application/json']?.schema,
          })),
      );

    /** A fresh session of a user of its own: ChangePassword's wrong passwords lock only that user out. */
    const ownSession = async () => {
      await t.app.get(UserService).unlock(await landlordActor(t.app), sessionUser.guid);
      return (await signIn(t.url, sessionUser.name, sessionUser.password)).token;
    };

    const send = async (w: WriteOperation, params: Record<string, string>, body: unknown) => {
      const path = w.path.replace(/\{(\w+)\}/g, (_m, n: string) => encodeURIComponent(params[n]));
      let r = request(t.url)[w.method](path);
      // Logout revokes the session it is given: it is tried anonymously (it is public). ChangePassword is a
      // session's own, with its own lockout: a user of its own, unlocked and signed in again each time.
      if (w.op.security?.length && w.key !== 'POST /api/Authentication/Logout')
        r = r.auth(w.path.endsWith('/ChangePassword') ? await ownSession() : callerToken, {
          type: 'bearer',
        });
      // sent as JSON text whatever it is (a bare string, number or null too)
      return body === undefined ? r : r.set('Content-Type', 'application/json').send(JSON.stringify(body));
    };

    it('covers every write operation of the document', () => {
      const keys = writeOperations().map((w) => w.key);
      expect(keys.length).toBeGreaterThan(30);
      expect(keys).toEqual(
        expect.arrayContaining(['POST /api/UserRegistry', 'PUT /api/CaseWorkflowStatus/{guid}']),
      );
    });

    it('never refuses with 400 what the document says is valid', async () => {
      const refused: string[] = [];
      for (const w of writeOperations()) {
        const body = w.body ? arbitraryOf(w.body, resolve) : fc.constant(undefined);
        const params = fc.record(pathValues(w, fx));
        await assertFor(
          w.key,
          fc.asyncProperty(params, body, async (p, b) => {
            fc.pre(w.body === undefined || validate(`${w.key} body`, w.body)(b));
            // A member named __proto__, constructor or prototype, at any depth, is refused by every route but
            // Invoke (docs/SECURITY.md, Input limits; the free-form members' descriptions say so).
            fc.pre(w.path.startsWith('/api/Invoke/') || reservedMemberPath(b) === undefined);
            const res = await send(w, p, b);
            if (res.status === 400 || res.status >= 500)
              refused.push(
                `${w.key} ${JSON.stringify(b)?.slice(0, 300)} → ${res.status} ${JSON.stringify(res.body)}`,
              );
          }),
        );
      }
      expect(refused).toEqual([]);
    });

    it('refuses with 400 each body and parameter the document says is invalid', async () => {
      const accepted: string[] = [];
      for (const w of writeOperations()) {
        const pathParams = (w.op.parameters ?? []).filter((p) => p.in === 'path');
        // A path parameter that is not what the document says (a GUID).
        for (const p of pathParams) {
          const params = Object.fromEntries(
            pathParams.map((q) => [q.name, q === p ? 'not-a-guid' : fc.sample(fc.uuid(), 1)[0]]),
          );
          if (validate(`${w.key} ${p.name}`, p.schema)('not-a-guid')) continue;
          const res = await send(w, params, undefined);
          if (res.status !== 400) accepted.push(`${w.key} ${p.name}=not-a-guid → ${res.status}`);
        }
        if (!w.body) continue;
        const schema = w.body.$ref ? resolve(w.body.$ref) : w.body;
        const properties = Object.entries(schema.properties ?? {});
        const validBody = arbitraryOf(w.body, resolve).filter((b) => validate(`${w.key} body`, w.body!)(b));
        // One member of a valid body broken: an odd value in its place, left out, or a member nobody declared.
        const broken = validBody.chain((b) => {
          const base = b as Record<string, unknown>;
          const choices: fc.Arbitrary<unknown>[] = [
            fc.constant({ ...base, notAMember: 1 }),
            // not an object at all (for Invoke, neither an object nor an array)
            fc.constantFrom('text', 12, true, null, [base]),
          ];
          for (const [name, s] of properties) {
            const plain = s.$ref ? resolve(s.$ref) : s;
            choices.push(fc.constantFrom(...oddValuesFor(plain)).map((v) => ({ ...base, [name]: v })));
            if (schema.required?.includes(name))
              choices.push(fc.constant(Object.fromEntries(Object.entries(base).filter(([k]) => k !== name))));
          }
          return fc.oneof(...choices);
        });
        const params = fc.record(pathValues(w, fx));
        await assertFor(
          w.key,
          fc.asyncProperty(params, broken, async (p, b) => {
            fc.pre(!validate(`${w.key} body`, w.body!)(b));
            const res = await send(w, p, b);
            if (res.status !== 400)
              accepted.push(`${w.key} ${JSON.stringify(b).slice(0, 300)} → ${res.status}`);
          }),
        );
      }
      expect(accepted).toEqual([]);
    });

    /** Every operation that takes query parameters or is a GET (event streams aside: they never end). */
    const queryOperations = (): QueryOperation[] =>
      Object.entries(doc.paths).flatMap(([path, item]) =>
        (['get', 'post', 'put', 'delete', 'patch'] as const)
          .filter((m) => item[m] !== undefined)
          .map((method) => ({ key: `${method.toUpperCase()} ${path}`, method, path, op: item[method] }))
          .filter(
            ({ method, op }) =>
              !op.responses?.['200']?.content?.['text/event-stream'] &&
              (method === 'get' || (op.parameters ?? []).some((p) => p.in === 'query')),
          ),
      );

    /** A query value as a client writes it, judged as the document judges a query parameter (types coerced). */
    const queryAjv = new Ajv({ strict: false, coerceTypes: true, validateFormats: true });
    addFormats(queryAjv);
    const queryValid = (schema: Schema, value: string) =>
      queryAjv.validate({ type: 'object', properties: { v: schema } }, { v: value });

    const sendQuery = (q: QueryOperation, query: [string, string][]) => {
      const path = q.path.replace(/\{(\w+)\}/g, (_m, n: string) =>
        encodeURIComponent(pathValueOf(q.path, n, fx)),
      );
      const search = new URLSearchParams(query).toString();
      let r = request(t.url)[q.method](`${path}${search ? `?${search}` : ''}`);
      if (q.op.security?.length) r = r.auth(callerToken, { type: 'bearer' });
      return q.op.requestBody ? r.set('Content-Type', 'application/json').send('{}') : r;
    };

    it('never refuses with 400 a query the document says is valid', async () => {
      const refused: string[] = [];
      for (const q of queryOperations()) {
        // `cursor` is opaque and signed: only a value the service answered is valid (its description).
        const declared = (q.op.parameters ?? []).filter((p) => p.in === 'query' && p.name !== 'cursor');
        const values = fc
          .record(
            Object.fromEntries(
              declared.map((p) => [
                p.name,
                arbitraryOf(p.schema, resolve)
                  .map((v) => String(v))
                  .filter((v) => queryValid(p.schema, v)),
              ]),
            ),
            { requiredKeys: declared.filter((p) => p.required).map((p) => p.name) },
          )
          .map((v) =>
            Object.fromEntries(
              Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string'),
            ),
          );
        await assertFor(
          q.key,
          fc.asyncProperty(values, async (v) => {
            const res = await sendQuery(q, Object.entries(v));
            if (res.status === 400 || res.status >= 500)
              refused.push(`${q.key} ${JSON.stringify(v)} → ${res.status} ${JSON.stringify(res.body)}`);
          }),
        );
      }
      expect(refused).toEqual([]);
    });

    it('refuses with 400, naming it and saying why, each query parameter the document says is invalid', async () => {
      const accepted: string[] = [];
      for (const q of queryOperations()) {
        const declared = (q.op.parameters ?? []).filter((p) => p.in === 'query');
        const required = declared.filter((p) => p.required);
        const base = required.map((p): [string, string] => [p.name, pathValueOf('', 'userRegistryGuid', fx)]);
        const tries: [string, string, string][] = [['notAParameter', '1', 'unknown_parameter']];
        for (const p of declared) {
          tries.push([p.name, '', 'empty_value']);
          for (const odd of oddValuesFor(p.schema)) {
            const text = typeof odd === 'object' && odd !== null ? JSON.stringify(odd) : String(odd);
            if (text !== '' && !queryValid(p.schema, text)) tries.push([p.name, text, '']);
          }
        }
        for (const [name, value, code] of tries) {
          const res = await sendQuery(q, [...base.filter(([n]) => n !== name), [name, value]]);
          const error = (res.body as { errors?: { field: string; code: string }[] }).errors?.[0];
          if (res.status !== 400 || error?.field !== name || (code && error.code !== code))
            accepted.push(
              `${q.key} ${name}=${JSON.stringify(value)} → ${res.status} ${JSON.stringify(error)}`,
            );
        }
      }
      expect(accepted).toEqual([]);
    });

    it('every answer matched the document (status, media type, body)', () => {
      expect(t.responseViolations).toEqual([]);
    });
  },
);
