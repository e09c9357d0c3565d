import { DECORATORS } from '@nestjs/swagger';
import { getMetadataStorage } from 'class-validator';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { UserLogin } from '@app/audit';
import { ProblemException } from '@app/problems';
import { createValidationPipe } from '../../apps/server/src/create-app';
import {
  createWriteRouteFixtures,
  WRITE_REQUESTS,
  WriteRequest,
  WriteRouteFixtures,
} from '../factories/write-routes.factory';
import { signIn } from '../support/auth';
import { TEST_PROVIDERS } from '../support/databases';
import { isWriteRoute, listRoutes, Route } from '../support/routes';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Generated from the router, as the route audit is: every write route is sent, one field
 * at a time, null, a wrong type, an empty string, a 100 kB string, and an unknown member; its path
 * parameters are sent what is not a GUID. Each must be a 400 problem naming the field, and change nothing.
 */

/** Write routes whose body is not mutated, and why (their path parameters still are). */
const STATED_EXCEPTIONS: Record<string, string> = {
  'POST /api/Invoke/EntityAnalysisModel/:guid':
    'takes any JSON by design; its limits: test/input/hostile-input.spec.ts',
  'POST /api/Authentication/Logout': 'always 200, whatever it is sent (spec: Logout behaviour 1)',
  'POST /api/Authentication/OAuth/Callback':
    "the provider's form_post; every failure is a UserLogin row and a redirect (spec: OAuth 3)",
  'POST /api/mfa': 'the bundled mock second-factor endpoint (spec: Endpoints)',
};

const SIGN_IN = 'POST /api/Authentication/ByUserNamePassword';
const CHANGE_PASSWORD = 'POST /api/Authentication/ChangePassword';

/**
 * Sign-in keeps the spec's outcomes: an empty user name is a sign-in of nobody (FailureTypeId 1), an empty
 * password is none supplied (FailureTypeId 6): 401s, not 400s.
 */
const SPEC_OUTCOMES: Record<string, Partial<Record<Mutation, Record<string, number>>>> = {
  [SIGN_IN]: { 'an empty string': { userName: 401, password: 401 } },
  [CHANGE_PASSWORD]: { 'an empty string': { password: 401 } },
};
/** Routes every attempt of which writes one UserLogin row (spec: UserLogin rule 1), refused ones included. */
const AUDITED = new Set([SIGN_IN]);

const MUTATIONS = {
  null: () => null,
  'a wrong type': (valid: unknown) =>
    typeof valid === 'string'
      ? 12345
      : typeof valid === 'number'
        ? 'twelve'
        : typeof valid === 'boolean'
          ? 'true'
          : Array.isArray(valid)
            ? 'not a list'
            : valid !== null && typeof valid === 'object'
              ? 'not an object'
              : 12345,
  'an empty string': () => '',
  'a 100 kB string': () => 'x'.repeat(100_000),
} as const;
type Mutation = keyof typeof MUTATIONS;

/** Tables a refused write must leave exactly as they were (the audit and telemetry tables are not here). */
const SNAPSHOT_TABLES = [
  'TenantRegistry',
  'RoleRegistry',
  'RoleRegistryPermission',
  'UserRegistry',
  'UserRegistryApiKey',
  'EntityAnalysisModel',
  'EntityAnalysisModelRequestXPath',
  'EntityAnalysisModelActivationRule',
  'CaseWorkflow',
  'CaseWorkflowStatus',
  'Case',
  'EntityAnalysisModelArchive',
];

/** The fields of a DTO (class-validator's metadata, inherited ones included). */
function dtoFields(dto: unknown): string[] {
  if (typeof dto !== 'function') return [];
  const metadata = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
  return [...new Set(metadata.map((m) => m.propertyName))].sort();
}

/** Declared nullable (the DTO says `Optional({ nullable: true })`, which the OpenAPI document shows too). */
function nullable(dto: unknown, field: string): boolean {
  if (typeof dto !== 'function') return false;
  const property = Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, dto.prototype as object, field) as
    { nullable?: boolean } | undefined;
  return property?.nullable === true;
}

interface Outcome {
  route: string;
  case: string;
  status: number;
  fields: string[];
  loginRows?: number;
}

describe.each(TEST_PROVIDERS)('every write route refuses hostile fields on %s', (provider) => {
  let t: TestApp;
  let ds: DataSource;
  let fx: WriteRouteFixtures;
  let token: string;
  let routes: Route[];

  beforeAll(async () => {
    t = await startTestApp(provider);
    ds = t.app.get(DataSource);
    fx = await createWriteRouteFixtures(t.app);
    token = (await signIn(t.url, fx.caller.name, fx.caller.password)).token;
    routes = listRoutes(t.app).filter(isWriteRoute);
  });
  afterAll(() => t.close());

  async function snapshot(): Promise<Record<string, unknown[]>> {
    const tables: Record<string, unknown[]> = {};
    for (const meta of ds.entityMetadatas.filter((m) => SNAPSHOT_TABLES.includes(m.tableName)))
      tables[meta.tableName] = await ds.getRepository(meta.target).find({ order: { Id: 'ASC' } });
    return tables;
  }

  function send(route: Route, params: Record<string, string>, body: unknown): request.Test {
    const path = route.path.replace(/:([A-Za-z]+)/g, (_m, p: string) => encodeURIComponent(params[p] ?? ''));
    const method = route.method.toLowerCase() as 'post' | 'put' | 'delete' | 'patch';
    const req = request(t.url)[method](path).set('authorization', `Bearer ${token}`);
    return body === undefined ? req : req.set('content-type', 'application/json').send(JSON.stringify(body));
  }

  /** Sends each case of a route; asserts nothing changed in the snapshot tables; answers what came back. */
  async function run(
    route: Route,
    cases: { name: string; params: Record<string, string>; body: unknown }[],
  ): Promise<Outcome[]> {
    const before = await snapshot();
    const outcomes: Outcome[] = [];
    for (const c of cases) {
      const logins = AUDITED.has(route.key) ? await ds.getRepository(UserLogin).count() : 0;
      const res = await send(route, c.params, c.body);
      const errors = (res.body as { errors?: { field: string }[] }).errors ?? [];
      outcomes.push({
        route: route.key,
        case: c.name,
        status: res.status,
        fields: errors.map((e) => e.field),
        ...(AUDITED.has(route.key)
          ? { loginRows: (await ds.getRepository(UserLogin).count()) - logins }
          : {}),
      });
    }
    expect({ route: route.key, tables: await snapshot() }).toEqual({ route: route.key, tables: before });
    return outcomes;
  }

  const bodyRoutes = () => routes.filter((r) => r.body !== undefined && !(r.key in STATED_EXCEPTIONS));

  it('every write route has a valid request in the factory table or is a stated exception, and no line is stale', () => {
    const keys = routes.map((r) => r.key);
    expect(keys.length).toBeGreaterThan(30);
    expect(keys.filter((k) => !(k in WRITE_REQUESTS) && !(k in STATED_EXCEPTIONS))).toEqual([]);
    expect(Object.keys({ ...WRITE_REQUESTS, ...STATED_EXCEPTIONS }).filter((k) => !keys.includes(k))).toEqual(
      [],
    );
    // Each valid body gives every field of its DTO, so every field is mutated below.
    for (const route of bodyRoutes()) {
      const valid = WRITE_REQUESTS[route.key](fx);
      expect({ route: route.key, fields: Object.keys(valid.body ?? {}).sort() }).toEqual({
        route: route.key,
        fields: dtoFields(route.body),
      });
    }
  });

  it.each(Object.keys(MUTATIONS) as Mutation[])(
    '%s in any field of a body is a 400 problem naming that field, and changes nothing',
    async (mutation) => {
      const outcomes: Outcome[] = [];
      const expected: Outcome[] = [];
      for (const route of bodyRoutes()) {
        const valid: WriteRequest = WRITE_REQUESTS[route.key](fx);
        const fields = dtoFields(route.body).filter((f) => !(mutation === 'null' && nullable(route.body, f)));
        const cases = fields.map((field) => ({
          name: field,
          params: valid.params,
          body: { ...valid.body, [field]: MUTATIONS[mutation](valid.body?.[field]) },
        }));
        outcomes.push(...(await run(route, cases)));
        for (const field of fields) {
          const status = SPEC_OUTCOMES[route.key]?.[mutation]?.[field] ?? 400;
          expected.push({
            route: route.key,
            case: field,
            status,
            fields: status === 400 ? [field] : [],
            ...(AUDITED.has(route.key) ? { loginRows: 1 } : {}),
          });
        }
      }
      expect(outcomes).toEqual(expected);
    },
  );

  // `__proto__`, `constructor` and `prototype` too: JSON.parse makes them own members,
  // which class-transformer skips, so they used to pass as if absent.
  it.each(['unexpectedMember', '__proto__', 'constructor', 'prototype'])(
    'an unknown member (%s) is a 400 naming it, on every write route (those without a body too), and changes nothing',
    async (member) => {
      const outcomes: Outcome[] = [];
      const expected: Outcome[] = [];
      for (const route of routes.filter((r) => !(r.key in STATED_EXCEPTIONS))) {
        const valid = WRITE_REQUESTS[route.key](fx);
        outcomes.push(
          ...(await run(route, [
            { name: member, params: valid.params, body: { ...valid.body, [member]: { polluted: true } } },
          ])),
        );
        expected.push({
          route: route.key,
          case: member,
          status: 400,
          fields: [member],
          ...(AUDITED.has(route.key) ? { loginRows: 1 } : {}),
        });
      }
      expect(outcomes).toEqual(expected);
    },
  );

  it('the OpenAPI document says what the validation does: a field is required exactly when leaving it out is refused, nullable exactly when null is taken', async () => {
    const doc = (
      await request(t.url).get('/swagger/json').set('authorization', `Bearer ${token}`).expect(200)
    ).body as {
      components: {
        schemas: Record<string, { required?: string[]; properties: Record<string, { nullable?: boolean }> }>;
      };
    };
    const pipe = createValidationPipe();
    /** The fields the validation refuses in `body`. */
    const refused = async (dto: unknown, body: Record<string, unknown>): Promise<string[]> => {
      try {
        await pipe.transform(body, { type: 'body', metatype: dto as new () => object });
        return [];
      } catch (err) {
        if (!(err instanceof ProblemException)) throw err;
        return ((err.extensions.errors ?? []) as { field: string }[]).map((e) => e.field);
      }
    };
    const documented: unknown[] = [];
    const validated: unknown[] = [];
    for (const route of bodyRoutes()) {
      const dto = route.body as { name: string };
      const schema = doc.components.schemas[dto.name];
      const valid = WRITE_REQUESTS[route.key](fx).body ?? {};
      for (const field of dtoFields(dto)) {
        const { [field]: _left, ...without } = valid;
        documented.push({
          dto: dto.name,
          field,
          required: (schema.required ?? []).includes(field),
          nullable: schema.properties[field]?.nullable === true,
        });
        validated.push({
          dto: dto.name,
          field,
          required: (await refused(dto, without)).includes(field),
          nullable: !(await refused(dto, { ...valid, [field]: null })).includes(field),
        });
      }
    }
    expect(documented.length).toBeGreaterThan(60);
    expect(documented).toEqual(validated);
  });

  it('a path parameter that is not a GUID is a 400 naming it, on every write route, and changes nothing', async () => {
    const outcomes: Outcome[] = [];
    const expected: Outcome[] = [];
    for (const route of routes.filter((r) => r.params.length)) {
      const valid = WRITE_REQUESTS[route.key](fx);
      for (const param of route.params) {
        const cases = ['null', '12345', `${fx.modelGuid}x`, 'x'.repeat(2000)].map((value) => ({
          name: `${param}=${value.slice(0, 40)}`,
          params: { ...valid.params, [param]: value },
          body: valid.body,
        }));
        outcomes.push(...(await run(route, cases)));
        for (const c of cases)
          expected.push({ route: route.key, case: c.name, status: 400, fields: [param] });
      }
    }
    expect(outcomes).toEqual(expected);
  });
});
