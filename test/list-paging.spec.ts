import request from 'supertest';
import { ALL_PERMISSIONS, Permission } from '@app/access';
import { ApiKeyService } from '@app/api-keys';
import { ModelService, WorkflowService } from '@app/engine';
import { RoleService, TenantService, UserService } from '@app/identity';
import { createEngineModel, type DemoLikeModel } from './factories/engine.factory';
import { createUser, landlordActor, type CreatedUser } from './factories/identity.factory';
import { signIn } from './support/auth';
import { TEST_PROVIDERS } from './support/databases';
import { startTestApp, TestApp } from './support/test-app';

interface ListAnswer {
  items: { guid: string; name: string }[];
  total: number;
  next: string | null;
}

/** The links of an answer's Link header by relation (RFC 8288), e.g. { first: '/api/…', next: '/api/…' }. */
function linksOf(res: request.Response): Record<string, string> {
  const link = (res.headers.link as string | undefined) ?? '';
  return Object.fromEntries(
    link
      .split(', ')
      .filter(Boolean)
      .map((part) => {
        const match = /^<([^>]+)>; rel="(\w+)"$/.exec(part);
        if (!match) throw new Error(`unexpected Link: ${link}`);
        return [match[2], match[1]];
      }),
  );
}

/**
 * One paging scheme for every list: always bounded (`limit`, 100 by default, at most 1 000), the page as
 * `{ items, total, next }`, the next page's cursor in the body and in `Link` (with rel="first"), the cursor
 * signed and bound to its list.
 */
describe.each(TEST_PROVIDERS)('list paging on %s', (provider) => {
  let t: TestApp;
  let admin: CreatedUser;
  let auth: { Authorization: string };
  const names: string[] = [];

  beforeAll(async () => {
    t = await startTestApp(provider);
    admin = await createUser(t.app, { permissions: [...ALL_PERMISSIONS] });
    // 23 more users in the administrator's tenant, some sharing a mixed-case part of their name
    for (let i = 0; i < 23; i++) {
      const name = i % 4 === 0 ? `Paged-ÉCOLE_${i}%` : `paged-user-${i}`;
      names.push(name);
      await createUser(t.app, { tenantGuid: admin.tenantGuid, name });
    }
    auth = { Authorization: `Bearer ${(await signIn(t.url, admin.name, admin.password)).token}` };
  });
  afterAll(() => t?.close());

  const get = (path: string, who = auth) => request(t.url).get(path).set(who).expect(200);

  /** Every page of `path` by following the body's `next` from a first page of `limit`. */
  async function walk(path: string, limit: number, who = auth) {
    const pages: ListAnswer[] = [];
    const sep = path.includes('?') ? '&' : '?';
    let next: string | null = null;
    do {
      const res = await get(`${path}${sep}limit=${limit}${next ? `&cursor=${next}` : ''}`, who);
      const body = res.body as ListAnswer;
      pages.push(body);
      // the same page stated in the headers: the total, the first page, and the next one when there is one
      expect(res.headers['x-total-count']).toBe(String(body.total));
      const links = linksOf(res);
      expect(new URL(links.first, 'http://x').searchParams.get('cursor')).toBeNull();
      expect(links.next && new URL(links.next, 'http://x').searchParams.get('cursor')).toBe(
        body.next ?? undefined,
      );
      next = body.next;
      expect(pages.length).toBeLessThan(100);
    } while (next);
    return pages;
  }

  it('without paging parameters a list is its first page of 100, with its total, next and links', async () => {
    const res = await get('/api/UserRegistry');
    const body = res.body as ListAnswer;
    expect(Object.keys(body).sort()).toEqual(['items', 'next', 'total']);
    expect(body.items).toHaveLength(24);
    expect(body.total).toBe(24);
    expect(body.next).toBeNull();
    expect(linksOf(res)).toEqual({ first: '/api/UserRegistry?limit=100' });
    expect(res.headers['x-total-count']).toBe('24');
  });

  it('users: pages of 5 by the body’s next reach every user once, in the first page’s order, each with the total', async () => {
    const whole = (await get('/api/UserRegistry')).body as ListAnswer;
    const pages = await walk('/api/UserRegistry', 5);
    expect(pages.map((p) => p.items.length)).toEqual([5, 5, 5, 5, 4]);
    for (const p of pages) expect(p.total).toBe(24);
    expect(pages.flatMap((p) => p.items)).toEqual(whole.items);
    // a cursor alone pages by the default size
    const first = (await get('/api/UserRegistry?limit=1')).body as ListAnswer;
    const byCursor = await get(`/api/UserRegistry?cursor=${first.next}`);
    expect(byCursor.body.items).toEqual(whole.items.slice(1));
    expect(byCursor.body.next).toBeNull();
    expect(linksOf(byCursor)).toEqual({ first: '/api/UserRegistry?limit=100' });
  });

  it('a list is never answered whole: 1 000 items at most, 100 by default', async () => {
    await request(t.url).get('/api/UserRegistry?limit=1000').set(auth).expect(200);
    const res = await request(t.url).get('/api/UserRegistry?limit=1001').set(auth).expect(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'limit', code: 'out_of_range' })]);
    const empty = await request(t.url).get('/api/UserRegistry?limit=').set(auth).expect(400);
    expect(empty.body.errors).toEqual([expect.objectContaining({ field: 'limit', code: 'empty_value' })]);
  });

  it('users: search is case-insensitive on the normalised name, its wildcards literal, with or without paging', async () => {
    const expected = names.filter((n) => n.startsWith('Paged-ÉCOLE')).sort();
    const found = async (query: Record<string, string>) =>
      ((await request(t.url).get('/api/UserRegistry').query(query).set(auth).expect(200)).body as ListAnswer)
        .items;
    expect((await found({ search: 'é' + 'cole_' })).map((u) => u.name).sort()).toEqual(expected);
    expect((await found({ search: '%' })).map((u) => u.name).sort()).toEqual(expected);
    expect(await found({ search: 'no such user' })).toEqual([]);
    const pages = await walk(`/api/UserRegistry?search=${encodeURIComponent('ÉCOLE')}`, 2);
    expect(
      pages
        .flatMap((p) => p.items)
        .map((u) => u.name)
        .sort(),
    ).toEqual(expected);
    for (const p of pages) expect(p.total).toBe(expected.length);
    await request(t.url)
      .get('/api/UserRegistry')
      .query({ search: 'x'.repeat(257) })
      .set(auth)
      .expect(400);
  });

  it('tenants, roles, models and API keys page the same way', async () => {
    const landlord = await landlordActor(t.app);
    const landlordAdmin = await createUser(t.app, {
      tenantGuid: landlord.tenantGuid,
      permissions: [...ALL_PERMISSIONS],
    });
    const landlordAuth = {
      Authorization: `Bearer ${(await signIn(t.url, landlordAdmin.name, landlordAdmin.password)).token}`,
    };
    for (let i = 0; i < 3; i++)
      await t.app.get(TenantService).create(landlord, { name: `paged tenant ${i}` });
    for (let i = 0; i < 3; i++)
      await t.app.get(ModelService).create(admin.actor, { name: `paged model ${i}` });
    for (let i = 0; i < 4; i++)
      await t.app.get(ApiKeyService).create(admin.actor, { userRegistryGuid: admin.guid, name: `key ${i}` });
    for (const [path, who] of [
      ['/api/TenantRegistry', landlordAuth],
      ['/api/RoleRegistry', auth],
      ['/api/EntityAnalysisModel', auth],
      [`/api/UserRegistryApiKey?userRegistryGuid=${admin.guid}`, auth],
    ] as const) {
      const whole = ((await get(path, who)).body as ListAnswer).items;
      expect([path, whole.length > 2]).toEqual([path, true]);
      const pages = await walk(path, 2, who);
      for (const p of pages) expect([path, p.total]).toEqual([path, whole.length]);
      expect([path, pages.flatMap((p) => p.items)]).toEqual([path, whole]);
      expect(pages.length).toBe(Math.ceil(whole.length / 2));
    }
  });

  describe('the model-owned lists', () => {
    let first: DemoLikeModel;
    let second: DemoLikeModel;
    beforeAll(async () => {
      const statuses = [0, 1, 2].map((i) => ({ name: `Status ${i}`, priority: i + 1 }));
      const rules = [0, 1, 2].map((i) => ({ condition: { '>': [{ var: 'Amount' }, i] }, status: i }));
      first = await createEngineModel(t.app, admin.actor, { statuses, rules });
      second = await createEngineModel(t.app, admin.actor, {
        statuses: statuses.slice(0, 2),
        rules: rules.map((r) => ({ ...r, status: r.status % 2 })),
      });
      await t.app.get(WorkflowService).create(admin.actor, { name: 'A workflow without statuses' });
    });

    it('case workflows, statuses, request XPaths and activation rules page the same way', async () => {
      const model = first.model.guid;
      for (const path of [
        '/api/CaseWorkflow',
        '/api/CaseWorkflowStatus',
        `/api/CaseWorkflowStatus?caseWorkflowGuid=${first.workflowGuid}`,
        `/api/EntityAnalysisModel/${model}/RequestXPath`,
        `/api/EntityAnalysisModel/${model}/ActivationRule`,
      ]) {
        const whole = ((await get(path)).body as ListAnswer).items;
        expect([path, whole.length > 2]).toEqual([path, true]);
        const pages = await walk(path, 2);
        for (const p of pages) expect([path, p.total]).toEqual([path, whole.length]);
        expect([path, pages.flatMap((p) => p.items)]).toEqual([path, whole]);
        expect(pages.length).toBe(Math.ceil(whole.length / 2));
      }
    });

    it('each page names what its items belong to: a status its workflow, a rule its workflow and status', async () => {
      const statuses = (await walk('/api/CaseWorkflowStatus', 2)).flatMap((p) => p.items) as unknown as {
        guid: string;
        caseWorkflowGuid: string;
      }[];
      const expected = [...first.statuses, ...second.statuses].map((s) => ({
        guid: s.guid,
        caseWorkflowGuid: s.caseWorkflowGuid,
      }));
      expect(statuses.map((s) => ({ guid: s.guid, caseWorkflowGuid: s.caseWorkflowGuid }))).toEqual(
        expect.arrayContaining(expected),
      );
      const rules = (await walk(`/api/EntityAnalysisModel/${first.model.guid}/ActivationRule`, 2)).flatMap(
        (p) => p.items,
      );
      expect(rules).toEqual(first.rules);
      // a deleted workflow's statuses leave the tenant's list
      const before = ((await get('/api/CaseWorkflowStatus')).body as ListAnswer).total;
      const doomed = await t.app.get(WorkflowService).create(admin.actor, { name: 'Doomed workflow' });
      await t.app
        .get(WorkflowService)
        .createStatus(admin.actor, { caseWorkflowGuid: doomed.guid, name: 'Doomed', priority: 1 });
      expect(((await get('/api/CaseWorkflowStatus')).body as ListAnswer).total).toBe(before + 1);
      await t.app.get(WorkflowService).delete(admin.actor, doomed.guid);
      expect(((await get('/api/CaseWorkflowStatus')).body as ListAnswer).total).toBe(before);
    });

    it('a cursor is bound to its model and workflow; another model’s or workflow’s is a 400', async () => {
      const cursorOf = async (path: string) => {
        const next = ((await get(`${path}${path.includes('?') ? '&' : '?'}limit=1`)).body as ListAnswer).next;
        expect([path, next]).toEqual([path, expect.any(String)]);
        return next as string;
      };
      const xpaths = `/api/EntityAnalysisModel/${first.model.guid}/RequestXPath`;
      const rules = `/api/EntityAnalysisModel/${first.model.guid}/ActivationRule`;
      const statuses = `/api/CaseWorkflowStatus?caseWorkflowGuid=${first.workflowGuid}`;
      const given = {
        xpaths: await cursorOf(xpaths),
        rules: await cursorOf(rules),
        statuses: await cursorOf(statuses),
        workflows: await cursorOf('/api/CaseWorkflow'),
      };
      await request(t.url).get(`${xpaths}?cursor=${given.xpaths}`).set(auth).expect(200);
      await request(t.url).get(`${statuses}&cursor=${given.statuses}`).set(auth).expect(200);
      const wrong: string[] = [];
      for (const path of [
        `/api/EntityAnalysisModel/${second.model.guid}/RequestXPath?cursor=${given.xpaths}`,
        `/api/EntityAnalysisModel/${second.model.guid}/ActivationRule?cursor=${given.rules}`,
        `${rules}?cursor=${given.xpaths}`,
        `/api/CaseWorkflowStatus?caseWorkflowGuid=${second.workflowGuid}&cursor=${given.statuses}`,
        `/api/CaseWorkflowStatus?cursor=${given.statuses}`,
        `/api/CaseWorkflowStatus?cursor=${given.workflows}`,
        `/api/CaseWorkflow?cursor=${given.statuses}`,
        `${xpaths}?limit=1001`,
      ]) {
        const res = await request(t.url).get(path).set(auth);
        if (res.status !== 400 || !['cursor', 'limit'].includes(res.body.errors?.[0]?.field))
          wrong.push(`${path} ${res.status}`);
      }
      expect(wrong).toEqual([]);
    });
  });

  it('a bad limit or cursor is a 400 naming it', async () => {
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['limit=ten', 'limit'],
      ['limit=1.5', 'limit'],
      ['cursor=bm90LWEtY3Vyc29y', 'cursor'],
      ['cursor=%2F%2F', 'cursor'],
      // The unsigned form the service once gave, forged: `p1.5`, `p1.05`, `p1.0`.
      [`cursor=${Buffer.from('p1.5').toString('base64url')}`, 'cursor'],
      [`cursor=${Buffer.from('p1.05').toString('base64url')}`, 'cursor'],
      [`cursor=${Buffer.from('p1.0').toString('base64url')}`, 'cursor'],
    ] as const) {
      const res = await request(t.url).get(`/api/UserRegistry?${query}`).set(auth);
      expect([query, res.status, res.body.errors?.[0]?.field]).toEqual([query, 400, field]);
    }
  });

  it('a cursor is signed and bound to its list: altered, or given for another list, it is a 400', async () => {
    const cursorOf = async (path: string) => {
      const next = ((await get(path)).body as ListAnswer).next;
      expect([path, next]).toEqual([path, expect.any(String)]);
      return next as string;
    };
    const users = await cursorOf('/api/UserRegistry?limit=2');
    const searched = await cursorOf('/api/UserRegistry?limit=2&search=paged');
    const other = await createUser(t.app, { tenantGuid: admin.tenantGuid });
    for (let i = 0; i < 3; i++)
      await t.app.get(ApiKeyService).create(admin.actor, { userRegistryGuid: other.guid, name: `k${i}` });
    const keys = await cursorOf(`/api/UserRegistryApiKey?userRegistryGuid=${other.guid}&limit=1`);
    // Each taken back where it was given: accepted (letter case of the path and another limit too).
    await request(t.url).get(`/api/UserRegistry?cursor=${users}`).set(auth).expect(200);
    await request(t.url).get(`/api/userregistry?limit=7&cursor=${users}`).set(auth).expect(200);
    await request(t.url).get(`/api/UserRegistry?search=paged&cursor=${searched}`).set(auth).expect(200);
    const flipped = `${users.slice(0, 3)}${users[3] === 'A' ? 'B' : 'A'}${users.slice(4)}`;
    const refused: string[] = [];
    for (const path of [
      `/api/RoleRegistry?cursor=${users}`,
      `/api/EntityAnalysisModel?cursor=${users}`,
      `/api/UserRegistry?search=paged&cursor=${users}`,
      `/api/UserRegistry?cursor=${searched}`,
      `/api/UserRegistryApiKey?userRegistryGuid=${admin.guid}&cursor=${keys}`,
      `/api/UserRegistry?cursor=${flipped}`,
      `/api/UserRegistry?cursor=${users}A`,
      `/api/UserRegistry?cursor=${users.slice(0, -1)}`,
    ]) {
      const res = await request(t.url).get(path).set(auth);
      if (res.status !== 400 || res.body.errors?.[0]?.field !== 'cursor')
        refused.push(`${path} ${res.status}`);
    }
    expect(refused).toEqual([]);
  });

  it('AssignableRoles: a user administrator without role rights gets their tenant’s roles by name', async () => {
    const userAdmin = await createUser(t.app, {
      tenantGuid: admin.tenantGuid,
      permissions: [Permission.ReadWriteSecurityUser],
    });
    const other = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
    const token = (await signIn(t.url, userAdmin.name, userAdmin.password)).token;
    const res = await request(t.url)
      .get('/api/UserRegistry/AssignableRoles')
      .set('Authorization', `Bearer ${token}`)
      .expect(200);
    const choices = (
      res.body as { items: { guid: string; name: string; tenantGuid: string; tenantName: string }[] }
    ).items;
    expect(choices.map((c) => c.guid)).toContain(userAdmin.roleGuid);
    expect(choices.map((c) => c.guid)).not.toContain(other.roleGuid);
    for (const c of choices) expect(c.tenantGuid).toBe(admin.tenantGuid);
    expect(choices.find((c) => c.guid === userAdmin.roleGuid)!.name).toMatch(/^Role /);
    await request(t.url).get('/api/RoleRegistry').set('Authorization', `Bearer ${token}`).expect(403);
    const reader = await createUser(t.app, {
      tenantGuid: admin.tenantGuid,
      permissions: [Permission.ReadSecurityAudit],
    });
    const readerToken = (await signIn(t.url, reader.name, reader.password)).token;
    await request(t.url)
      .get('/api/UserRegistry/AssignableRoles')
      .set('Authorization', `Bearer ${readerToken}`)
      .expect(403);
    // the landlord's choice holds every live tenant's roles: a deleted tenant's leave it, total and pages alike
    const landlord = await landlordActor(t.app);
    const doomed = await t.app.get(TenantService).create(landlord, { name: 'tenant to delete' });
    const doomedRole = await t.app
      .get(RoleService)
      .create(landlord, { name: 'Doomed role', permissions: [], tenantGuid: doomed.guid });
    const landlordAdmin = await createUser(t.app, {
      tenantGuid: landlord.tenantGuid,
      permissions: [...ALL_PERMISSIONS],
    });
    const landlordAuth = {
      Authorization: `Bearer ${(await signIn(t.url, landlordAdmin.name, landlordAdmin.password)).token}`,
    };
    const offered = async () => {
      const pages = await walk('/api/UserRegistry/AssignableRoles', 3, landlordAuth);
      return { total: pages[0].total, guids: pages.flatMap((p) => p.items.map((r) => r.guid)) };
    };
    const before = await offered();
    expect(before.guids).toContain(doomedRole.guid);
    expect(before.guids).toHaveLength(before.total);
    await t.app.get(TenantService).delete(landlord, doomed.guid);
    const after = await offered();
    expect(after.guids).not.toContain(doomedRole.guid);
    expect(after.total).toBe(before.total - 1);
    // the service's list as a user administrator sees it: the same users either way
    expect((await t.app.get(UserService).list(userAdmin.actor)).total).toBe(
      (await t.app.get(UserService).list(admin.actor)).total,
    );
  });
});
