import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { DataSource, type EntityMetadata } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { ApiKeyService } from '@app/api-keys';
import { ModelService, WorkflowService } from '@app/engine';
import { TenantService } from '@app/identity';
import {
  ADMIN_EVENT_GRID,
  ARCHIVER_STAGE_PERFORMANCE_COUNTER_GRID,
  ARCHIVER_WARNING_GRID,
  CAPTURE_QUEUE_HEALTH_GRID,
  CASE_CREATION_STAGE_PERFORMANCE_COUNTER_GRID,
  CASE_CREATION_WARNING_GRID,
  MODEL_INVOKE_WARNING_GRID,
  USER_LOGIN_GRID,
  USER_LOGOUT_GRID,
  type GridDefinition,
} from '@app/grid';
import { createEngineModel } from '../factories/engine.factory';
import { createUser, landlordActor } from '../factories/identity.factory';
import { SQLITE_AND_POSTGRES } from '../support/databases';
import { buildClientProgram, workDir } from '../support/generated-client';
import { startTestApp, TestApp } from '../support/test-app';

const GRIDS: GridDefinition[] = [
  ARCHIVER_STAGE_PERFORMANCE_COUNTER_GRID,
  ARCHIVER_WARNING_GRID,
  CASE_CREATION_STAGE_PERFORMANCE_COUNTER_GRID,
  CASE_CREATION_WARNING_GRID,
  MODEL_INVOKE_WARNING_GRID,
  CAPTURE_QUEUE_HEALTH_GRID,
  USER_LOGIN_GRID,
  USER_LOGOUT_GRID,
  ADMIN_EVENT_GRID,
];

const LISTS = [
  '/api/TenantRegistry',
  '/api/RoleRegistry',
  '/api/UserRegistry',
  '/api/UserRegistry/AssignableRoles',
  '/api/EntityAnalysisModel',
  '/api/UserRegistryApiKey',
  '/api/CaseWorkflow',
  '/api/CaseWorkflowStatus',
  '/api/EntityAnalysisModel/{guid}/RequestXPath',
  '/api/EntityAnalysisModel/{guid}/ActivationRule',
];

interface Document {
  paths: Record<
    string,
    { get?: { responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }> } }
  >;
}

/** Rows seeded into each grid's table, and the page size the program asks for: several pages each. */
const ROWS = 5;
const PAGE = 2;

/**
 * An integrator's program against the client generated from the served document: every list and every grid
 * walked to its end by the body's `next` alone (no header read, no cast), each walk's items counted against
 * the total its first page gave.
 */
const PAGING_PROGRAM = `import createClient from 'openapi-fetch';
import type { paths } from './schema';

interface Walked { pages: number; items: number; total: number }

/** A list to its end: each page's next is the following page's cursor. */
async function list<T>(
  page: (cursor: string | undefined) => Promise<{ data?: { items: T[]; total: number; next: string | null } }>,
): Promise<Walked> {
  const walked: Walked = { pages: 0, items: 0, total: -1 };
  let cursor: string | undefined;
  do {
    const { data } = await page(cursor);
    if (!data) throw new Error('a list page was refused');
    if (walked.total < 0) walked.total = data.total;
    walked.pages++;
    walked.items += data.items.length;
    cursor = data.next ?? undefined;
  } while (cursor !== undefined && walked.pages < 100);
  return walked;
}

type Before = { beforeTime: string; beforeId: number };

/** A grid to its end: each answer's next holds the following page's beforeTime and beforeId. */
async function grid<T>(
  page: (before: Before | undefined) => Promise<{ data?: { rows: T[]; total: number; next: Before | null } }>,
): Promise<Walked> {
  const walked: Walked = { pages: 0, items: 0, total: -1 };
  let before: Before | undefined;
  do {
    const { data } = await page(before);
    if (!data) throw new Error('a grid page was refused');
    if (walked.total < 0) walked.total = data.total;
    walked.pages++;
    walked.items += data.rows.length;
    before = data.next ?? undefined;
  } while (before !== undefined && walked.pages < 100);
  return walked;
}

export async function main(env: {
  baseUrl: string;
  apiKey: string;
  userGuid: string;
  modelGuid: string;
  workflowGuid: string;
  page: number;
}) {
  const api = createClient<paths, \`application/\${string}json\`>({
    baseUrl: env.baseUrl,
    headers: { 'x-api-key': env.apiKey },
  });
  const limit = env.page;
  const take = env.page;
  return {
    lists: {
      tenants: await list((cursor) => api.GET('/api/TenantRegistry', { params: { query: { limit, cursor } } })),
      roles: await list((cursor) => api.GET('/api/RoleRegistry', { params: { query: { limit, cursor } } })),
      users: await list((cursor) => api.GET('/api/UserRegistry', { params: { query: { limit, cursor } } })),
      assignableRoles: await list((cursor) =>
        api.GET('/api/UserRegistry/AssignableRoles', { params: { query: { limit, cursor } } }),
      ),
      models: await list((cursor) => api.GET('/api/EntityAnalysisModel', { params: { query: { limit, cursor } } })),
      apiKeys: await list((cursor) =>
        api.GET('/api/UserRegistryApiKey', { params: { query: { userRegistryGuid: env.userGuid, limit, cursor } } }),
      ),
      workflows: await list((cursor) => api.GET('/api/CaseWorkflow', { params: { query: { limit, cursor } } })),
      statuses: await list((cursor) => api.GET('/api/CaseWorkflowStatus', { params: { query: { limit, cursor } } })),
      workflowStatuses: await list((cursor) =>
        api.GET('/api/CaseWorkflowStatus', {
          params: { query: { caseWorkflowGuid: env.workflowGuid, limit, cursor } },
        }),
      ),
      xpaths: await list((cursor) =>
        api.GET('/api/EntityAnalysisModel/{guid}/RequestXPath', {
          params: { path: { guid: env.modelGuid }, query: { limit, cursor } },
        }),
      ),
      rules: await list((cursor) =>
        api.GET('/api/EntityAnalysisModel/{guid}/ActivationRule', {
          params: { path: { guid: env.modelGuid }, query: { limit, cursor } },
        }),
      ),
    },
    grids: {
      ${GRIDS.map(
        (g) =>
          `${g.name}: await grid((before) => api.GET('/api/${g.name}', { params: { query: { take, ...before } } })),`,
      ).join('\n      ')}
    },
  };
}
`;

/** A value of a column's type for a seeded row (the time column: `at`). */
function seedValue(column: ColumnMetadata, at: Date, i: number): unknown {
  const type = (typeof column.type === 'function' ? column.type.name : String(column.type)).toLowerCase();
  if (/date|time/.test(type)) return at;
  if (/bool/.test(type)) return false;
  if (/int|numeric|real|double|float|number|decimal/.test(type)) return 1 + (i % 2);
  if (column.isNullable) return null;
  // a GUID column holds 36 characters
  return Number(column.length) === 36 ? randomUUID() : `seeded ${i}`;
}

/** `ROWS` rows in the grid's table within the default window (the last hour), every column a value of its type. */
async function seedGrid(ds: DataSource, def: GridDefinition): Promise<void> {
  const meta: EntityMetadata | undefined = ds.entityMetadatas.find((m) => m.tableName === def.table);
  if (!meta) throw new Error(`no entity for ${def.table}`);
  const rows = Array.from({ length: ROWS }, (_, i) => {
    const at = new Date(Date.now() - (i + 1) * 1000);
    const row: Record<string, unknown> = {};
    for (const c of meta.columns)
      if (!c.isGenerated) row[c.propertyName] = c.databaseName === def.timeColumn ? at : seedValue(c, at, i);
    return row;
  });
  await ds.getRepository(meta.target).insert(rows);
}

describe.each(SQLITE_AND_POSTGRES)(
  'a typed client pages every list and grid by the body’s next, on %s',
  (provider) => {
    let t: TestApp;
    let dir: string;

    beforeAll(async () => {
      t = await startTestApp(provider, { CaptureQueueFlushIntervalMilliseconds: '3600000' });
      dir = workDir('typed-client-paging-');
    });
    afterAll(async () => {
      if (dir) rmSync(dir, { recursive: true, force: true });
      await t?.close();
    });

    it('builds with tsc --strict (no cast, no header read) and walks each to its end, every item once', async () => {
      const landlord = await landlordActor(t.app);
      const keys = t.app.get(ApiKeyService);
      const apiKey = (await keys.create(landlord, { userRegistryGuid: landlord.userGuid, name: 'paging' }))
        .key;
      for (let i = 0; i < ROWS; i++) {
        await t.app.get(TenantService).create(landlord, { name: `paged tenant ${i}` });
        await t.app.get(ModelService).create(landlord, { name: `paged model ${i}` });
        await keys.create(landlord, { userRegistryGuid: landlord.userGuid, name: `paged key ${i}` });
        await createUser(t.app, { tenantGuid: landlord.tenantGuid });
      }
      // a model with 4 request XPaths and ROWS rules, its workflow with ROWS statuses, and ROWS workflows more
      const statuses = Array.from({ length: ROWS }, (_, i) => ({ name: `Status ${i}`, priority: i + 1 }));
      const engine = await createEngineModel(t.app, landlord, {
        statuses,
        rules: statuses.map((_, i) => ({ condition: { '>': [{ var: 'Amount' }, i] }, status: i })),
      });
      for (let i = 0; i < ROWS; i++)
        await t.app.get(WorkflowService).create(landlord, { name: `paged workflow ${i}` });
      const ds = t.app.get(DataSource);
      for (const def of GRIDS) await seedGrid(ds, def);

      const doc = (await request(t.url).get('/swagger/json').set('x-api-key', apiKey).expect(200))
        .body as Document;
      // Every list (a `<Item>Page` answer) and every grid (a `<Grid>Grid` answer) of the document is walked.
      const answers = Object.entries(doc.paths).map(([path, item]) => [
        path,
        item.get?.responses['200']?.content?.['application/json']?.schema?.$ref ?? '',
      ]);
      expect(
        answers
          .filter(([, ref]) => ref.endsWith('Grid'))
          .map(([path]) => path)
          .sort(),
      ).toEqual(GRIDS.map((g) => `/api/${g.name}`).sort());
      expect(
        answers
          .filter(([, ref]) => ref.endsWith('Page'))
          .map(([path]) => path)
          .sort(),
      ).toEqual(LISTS.sort());
      writeFileSync(join(dir, 'openapi.json'), JSON.stringify(doc));
      expect(PAGING_PROGRAM).not.toMatch(/\bas\b|headers\.get|Link/);
      const { typeErrors, program } = buildClientProgram<{
        main(env: {
          baseUrl: string;
          apiKey: string;
          userGuid: string;
          modelGuid: string;
          workflowGuid: string;
          page: number;
        }): Promise<{
          lists: Record<string, { pages: number; items: number; total: number }>;
          grids: Record<string, { pages: number; items: number; total: number }>;
        }>;
      }>(dir, PAGING_PROGRAM);
      expect(typeErrors).toBe('');
      if (!program) throw new Error('the client program was not built');

      const out = await program.main({
        baseUrl: t.url,
        apiKey,
        userGuid: landlord.userGuid,
        modelGuid: engine.model.guid,
        workflowGuid: engine.workflowGuid,
        page: PAGE,
      });
      expect(Object.keys(out.lists)).toHaveLength(LISTS.length + 1);
      const walks = { ...out.lists, ...out.grids };
      expect(Object.keys(out.grids).sort()).toEqual(GRIDS.map((g) => g.name).sort());
      const short = Object.entries(walks).filter(
        ([, w]) => w.total <= PAGE || w.pages < Math.ceil(w.total / PAGE) || w.items !== w.total,
      );
      expect(short).toEqual([]);
    });

    it('every answer matched the document (status, media type, body)', () => {
      expect(t.responseViolations).toEqual([]);
    });
  },
);
