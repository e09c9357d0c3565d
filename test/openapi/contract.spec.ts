import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { ApiKeyService } from '@app/api-keys';
import { EXAMPLE_GUID } from '@app/input-rules';
import { startTestApp, TestApp } from '../support/test-app';
import { SQLITE_AND_POSTGRES } from '../support/databases';
import { landlordActor } from '../factories/identity.factory';
import { createEngineModel } from '../factories/engine.factory';
import { BIN, buildClientProgram, ROOT, run, workDir } from '../support/generated-client';
import {
  OpenApiResponseChecker,
  type OpenApiDocument,
  type ResponseViolation,
} from '../support/openapi-responses';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];
const PROBLEM_REF = '#/components/schemas/ProblemDto';

type Json = Record<string, unknown>;
interface Operation {
  operationId?: string;
  summary?: string;
  security?: Json[];
  parameters?: { name: string; in: string; schema?: Json; example?: unknown; description?: string }[];
  requestBody?: Json;
  responses: Record<string, { content?: Record<string, { schema?: Json }> }>;
}
interface Document {
  openapi: string;
  servers?: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: Json;
}

function operations(doc: Document): { key: string; method: string; path: string; op: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([m]) => METHODS.includes(m))
      .map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, method, path, op })),
  );
}

/** A program written against the generated client: a grid, Invoke, a create, If-Match twice, a 404. */
const GENERATED_CLIENT_PROGRAM = `import createClient from 'openapi-fetch';
import type { components, paths } from './schema';

type Schemas = components['schemas'];

export async function main(env: { baseUrl: string; apiKey: string; modelGuid: string }): Promise<object> {
  // JSON answers only (the grids also answer text/csv): the media types this program reads
  const api = createClient<paths, \`application/\${string}json\`>({
    baseUrl: env.baseUrl,
    headers: { 'x-api-key': env.apiKey },
  });

  const grid = await api.GET('/api/CaptureQueueHealth', { params: { query: { take: 10, queueId: 1 } } });
  if (!grid.data) throw new Error('grid: ' + grid.response.status);
  const rows: Schemas['CaptureQueueHealthRow'][] = grid.data.rows;
  const total: number = grid.data.total;
  const depth: Schemas['ColumnStatisticsDto'] = grid.data.statistics.queueDepth;

  const invoked = await api.POST('/api/Invoke/EntityAnalysisModel/{guid}', {
    params: { path: { guid: env.modelGuid }, query: { trace: 'true' } },
    body: { transactionId: 'contract-1', account: { id: 'A-1' }, amount: 12.5 },
  });
  if (!invoked.data) throw new Error('invoke: ' + invoked.response.status);
  const entry: string = invoked.data.entityAnalysisModelInstanceEntryGuid;
  const trace: Schemas['TracePointDto'][] = invoked.data.trace ?? [];

  const tenant = await api.POST('/api/TenantRegistry', { body: { name: 'Generated client ' + Date.now() } });
  if (!tenant.data) throw new Error('tenant: ' + tenant.response.status);
  const created: Schemas['TenantDto'] = tenant.data;
  const location = tenant.response.headers.get('Location');
  // Optimistic concurrency through the typed client: the ETag read, then a stale one (412, a typed problem).
  const etag = tenant.response.headers.get('ETag') ?? '';
  const path = { guid: created.guid };
  const renamed = await api.PUT('/api/TenantRegistry/{guid}', {
    params: { path, header: { 'If-Match': etag } },
    body: { name: created.name + ' renamed' },
  });
  const stale = await api.PUT('/api/TenantRegistry/{guid}', {
    params: { path, header: { 'If-Match': etag } },
    body: { name: created.name + ' again' },
  });
  const staleProblem: Schemas['ProblemDto'] | undefined = stale.error;

  const missing = await api.GET('/api/TenantRegistry/{guid}', { params: { path: { guid: '${EXAMPLE_GUID}' } } });
  const problem: Schemas['ProblemDto'] | undefined = missing.error;

  return {
    rows: rows.length,
    total,
    depthCount: depth.count,
    entry,
    tracePoints: trace.map((p) => p.message),
    tenant: created.name,
    location: location === '/api/TenantRegistry/' + created.guid,
    renamed: { status: renamed.response.status, version: renamed.data?.version },
    stale: { status: stale.response.status, type: staleProblem?.type },
    missing: { status: missing.response.status, type: problem?.type },
  };
}
`;

/**
 * The contract, checked with tools nobody here wrote, as an integrator would, on the document as served:
 * Redocly's recommended rules and Spectral's spectral:oas (no error), a client generated with
 * openapi-typescript that type-checks and talks to the service through openapi-fetch; and (test/support/
 * test-app.ts) every answer of every HTTP test is checked against the document by operation and status.
 */
describe.each(SQLITE_AND_POSTGRES)('the OpenAPI document as served, on %s', (provider) => {
  let t: TestApp;
  let doc: Document;
  let apiKey: string;
  let dir: string;

  beforeAll(async () => {
    t = await startTestApp(provider);
    const landlord = await landlordActor(t.app);
    apiKey = (
      await t.app
        .get(ApiKeyService)
        .create(landlord, { userRegistryGuid: landlord.userGuid, name: 'contract' })
    ).key;
    doc = (await request(t.url).get('/swagger/json').set('x-api-key', apiKey).expect(200)).body as Document;
    dir = workDir('openapi-contract-');
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(doc));
  });
  afterAll(async () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    await t?.close();
  });

  it('passes Redocly CLI lint with the recommended rules (redocly.yaml: what is off and why): no error, no warning', () => {
    const r = run(join(BIN, 'redocly'), [
      'lint',
      join(dir, 'openapi.json'),
      '--config',
      join(ROOT, 'redocly.yaml'),
      '--format',
      'json',
    ]);
    const report = JSON.parse(r.stdout) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
    };
    expect(report.problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(r.status).toBe(0);
  });

  it("passes Spectral's spectral:oas ruleset with no error and no warning (operation-description included)", () => {
    const r = run(join(BIN, 'spectral'), [
      'lint',
      join(dir, 'openapi.json'),
      '--ruleset',
      join(ROOT, '.spectral.yaml'),
      '--format',
      'json',
      '--quiet',
    ]);
    const results = JSON.parse(r.stdout || '[]') as {
      code: string;
      severity: number;
      message: string;
      path: string[];
    }[];
    const errors = results.filter((x) => x.severity === 0);
    expect(errors.map((e) => `${e.code} ${e.path.join('.')}: ${e.message}`)).toEqual([]);
    const others = results.filter((x) => x.severity !== 0);
    expect(others.map((e) => `${e.code} ${e.path.join('.')}: ${e.message}`)).toEqual([]);
  });

  it('describes every operation completely: operationId, summary, success schema, problem errors, security', () => {
    const ops = operations(doc);
    expect(ops.length).toBeGreaterThan(60);
    expect(doc.servers).toEqual([{ url: '/' }]);
    const ids = ops.map((o) => o.op.operationId);
    // Explicit and stable: lowerCamelCase, never Nest's generated Controller_method.
    for (const { key, op } of ops)
      expect({ key, id: /^[a-z][A-Za-z]+$/.test(op.operationId ?? '') }).toEqual({ key, id: true });
    expect(new Set(ids).size).toBe(ids.length);
    const incomplete: string[] = [];
    for (const { key, op } of ops) {
      if (!op.summary) incomplete.push(`${key}: no summary`);
      const success = Object.entries(op.responses).filter(([s]) => /^2\d\d$/.test(s));
      if (!success.length) incomplete.push(`${key}: no success response`);
      for (const [status, r] of success)
        if (status !== '204' && !Object.values(r.content ?? {}).some((m) => m.schema))
          incomplete.push(`${key}: ${status} without a schema`);
      for (const [status, r] of Object.entries(op.responses).filter(([s]) => /^[45]\d\d$/.test(s))) {
        const schema = r.content?.['application/problem+json']?.schema;
        if (schema?.$ref !== PROBLEM_REF) incomplete.push(`${key}: ${status} is not a problem`);
      }
      if (!op.responses['400']) incomplete.push(`${key}: no 400`);
      if (!op.security) incomplete.push(`${key}: no security`);
      else if (op.security.length && !op.security.some((r) => !Object.keys(r).length) && !op.responses['401'])
        incomplete.push(`${key}: secured without 401`);
      for (const p of op.parameters ?? [])
        if (p.in === 'path' && p.schema?.example === undefined && p.example === undefined)
          incomplete.push(`${key}: path parameter ${p.name} without an example`);
        else if (!p.schema?.type) incomplete.push(`${key}: parameter ${p.name} without a type`);
      if (op.requestBody && !op.responses['413']) incomplete.push(`${key}: a body without 413`);
    }
    expect(incomplete).toEqual([]);
  });

  it('types every query parameter the spec gives each grid, with its range', () => {
    const params = (path: string) =>
      Object.fromEntries((doc.paths[path].get.parameters ?? []).map((p) => [p.name, p.schema]));
    const common = { from: 'string', to: 'string', take: 'integer', samplePercentage: 'number' };
    const grids: Record<string, Record<string, string>> = {
      '/api/ArchiverStagePerformanceCounter': {
        ...common,
        stageId: 'integer',
        sortField: 'string',
        sortDirection: 'string',
      },
      '/api/ArchiverWarning': { ...common, stageId: 'integer', sortField: 'string', sortDirection: 'string' },
      '/api/CaseCreationStagePerformanceCounter': {
        ...common,
        stageId: 'integer',
        sortField: 'string',
        sortDirection: 'string',
      },
      '/api/CaseCreationWarning': {
        ...common,
        stageId: 'integer',
        search: 'string',
        sortField: 'string',
        sortDirection: 'string',
      },
      '/api/ModelInvokeWarning': {
        ...common,
        entityAnalysisModelGuid: 'string',
        search: 'string',
        sortField: 'string',
        sortDirection: 'string',
      },
      '/api/CaptureQueueHealth': { ...common, queueId: 'integer' },
      '/api/UserLogin': { ...common, search: 'string', failed: 'boolean', refused: 'boolean' },
      '/api/UserLogout': { ...common, search: 'string' },
    };
    for (const [path, expected] of Object.entries(grids)) {
      const got = params(path);
      for (const [name, type] of Object.entries(expected))
        expect({ path, name, type: got[name]?.type }).toEqual({ path, name, type });
    }
    expect(params('/api/ArchiverWarning').stageId).toMatchObject({ minimum: 1, maximum: 4 });
    expect(params('/api/CaptureQueueHealth').queueId).toMatchObject({ minimum: 1, maximum: 6 });
    // The spec's behaviour, never narrower: take any whole number (clamped), samplePercentage any number
    // (clamped), any sortField or sortDirection (unrecognised: most recent first).
    expect(params('/api/CaptureQueueHealth').take).toEqual({ type: 'integer', default: 100 });
    expect(params('/api/CaptureQueueHealth').samplePercentage).toEqual({ type: 'number' });
    expect(params('/api/ArchiverWarning').sortField).not.toHaveProperty('enum');
    expect(params('/api/ArchiverWarning').sortDirection).not.toHaveProperty('enum');
    expect(params('/api/ModelInvokeWarning').entityAnalysisModelGuid).toMatchObject({ format: 'uuid' });
    // refused names the steps that ask to continue, from the one declaration (libs/audit FAILURE_KIND)
    const refused = doc.paths['/api/UserLogin'].get.parameters?.find((p) => p.name === 'refused');
    expect(refused?.description).toMatch(
      /every FailureTypeId but 4 PasswordExpired, 13 SecondFactorRequired, 14 NewPasswordRefused/,
    );
    // Each grid's answer: its row type, total, its statistics columns.
    const schemas = doc.components.schemas as Record<string, { properties: Record<string, Json> }>;
    expect(Object.keys(schemas.ArchiverStagePerformanceCounterStatistics.properties).sort()).toEqual([
      'invokeCount',
      'maxMicroseconds',
      'minMicroseconds',
      'totalMicroseconds',
    ]);
    expect(Object.keys(schemas.ModelInvokeWarningStatistics.properties).sort()).toEqual([
      'elapsedMicroseconds',
      'sinceLastEntryMicroseconds',
    ]);
    expect(Object.keys(schemas.ArchiverWarningGrid.properties).sort()).toEqual([
      'next',
      'rows',
      'sample',
      'statistics',
      'total',
    ]);
  });

  it('documents Invoke: any JSON object (or array) in, its result, its 422 and 503 out', () => {
    const invoke = doc.paths['/api/Invoke/EntityAnalysisModel/{guid}'].post;
    expect(invoke.requestBody).toMatchObject({
      content: {
        'application/json': {
          schema: {
            anyOf: [
              { type: 'object', additionalProperties: true },
              { type: 'array', items: {} },
            ],
          },
        },
      },
    });
    expect(invoke.responses['422']).toBeDefined();
    expect(invoke.responses['200'].content?.['application/json'].schema).toEqual({
      $ref: '#/components/schemas/InvokeResponseDto',
    });
    expect(invoke.responses['503']).toBeDefined();
    // The anonymous routes say so: security: [].
    expect(doc.paths['/api/Authentication/ByUserNamePassword'].post.security).toEqual([]);
    expect(doc.paths['/api/Live'].get.security).toEqual([]);
    expect(doc.paths['/api/Authentication/ByUserNamePassword'].post.responses['429']).toBeDefined();
  });

  it('generates a typed client (openapi-typescript) that type-checks and calls a grid, Invoke and an admin route with If-Match (openapi-fetch)', async () => {
    const landlord = await landlordActor(t.app);
    const { model } = await createEngineModel(t.app, landlord);
    const { typeErrors, program } = buildClientProgram<{
      main(env: { baseUrl: string; apiKey: string; modelGuid: string }): Promise<object>;
    }>(dir, GENERATED_CLIENT_PROGRAM);
    expect(typeErrors).toBe('');
    if (!program) throw new Error('the client program was not built');
    const out = await program.main({ baseUrl: t.url, apiKey, modelGuid: model.guid });
    expect(out).toMatchObject({
      depthCount: expect.any(Number),
      entry: expect.stringMatching(/^[0-9a-f-]{36}$/),
      tracePoints: ['Parse', 'ExtractFields', 'Activation', 'BuildResponse', 'BuildArchivePayload'],
      tenant: expect.stringMatching(/^Generated client /),
      location: true,
      renamed: { status: 200, version: 2 },
      stale: { status: 412, type: 'urn:problem-type:precondition-failed' },
      missing: { status: 404, type: 'urn:problem-type:not-found' },
    });
  });

  it('the response checker of the HTTP tests finds a drift between an answer and the document', async () => {
    // The same checker every test app runs, on a copy of the document whose Live answer is changed.
    const drifted = JSON.parse(JSON.stringify(doc)) as Document;
    const live = drifted.paths['/api/Live'].get.responses['200'].content!['application/json'].schema!;
    const ref = String(live.$ref).split('/').pop()!;
    (drifted.components.schemas as Record<string, Json>)[ref] = {
      type: 'object',
      properties: { status: { type: 'string', enum: ['alive'] } },
      required: ['status'],
    };
    const checker = new OpenApiResponseChecker(drifted);
    const res = await request(t.url).get('/api/Live').expect(200);
    const body = Buffer.from(JSON.stringify(res.body));
    expect(checker.check('GET', '/api/Live', 200, 'application/json', body)).toHaveLength(1);
    expect(checker.check('GET', '/api/Live', 418, 'application/json', body)[0].problems).toEqual([
      'status 418 is not declared',
    ]);
    expect(
      new OpenApiResponseChecker(doc as unknown as OpenApiDocument).check(
        'GET',
        '/api/Live',
        200,
        'application/json',
        body,
      ),
    ).toEqual([]);
    // And through the hook every test app runs: an answer sent by the server is checked once it is sent.
    const seen: ResponseViolation[] = [];
    checker.watch(t.app.getHttpServer(), seen);
    await request(t.url).get('/api/Live').expect(200);
    await request(t.url).get('/api/Ready').expect(200);
    expect(seen.map((v) => `${v.request} ${v.status}`)).toEqual(['GET /api/Live 200']);
    // What this file's own requests met so far matched the document.
    expect(t.responseViolations).toEqual([]);
  });
});
