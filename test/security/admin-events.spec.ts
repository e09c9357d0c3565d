import request from 'supertest';
import { DataSource, MoreThan } from 'typeorm';
import { AdminEvent, AdminEventOutcome } from '@app/audit';
import type { AdminRoute } from '@app/access';
import {
  createWriteRouteFixtures,
  WRITE_REQUESTS,
  type WriteRouteFixtures,
} from '../factories/write-routes.factory';
import { signIn } from '../support/auth';
import { TEST_PROVIDERS } from '../support/databases';
import { adminRoutes, isWriteRoute, listRoutes } from '../support/routes';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * THE declared list of write routes that are not administrative writes (each keeps a trail of its own), and
 * where each is recorded instead. Every other write route is marked @AdminAction and must leave exactly one AdminEvent row.
 */
const NOT_ADMINISTRATIVE: Record<string, string> = {
  'POST /api/Invoke/EntityAnalysisModel/:guid': "Invoke: its volume is the capacity issue's",
  'POST /api/Invoke/EntityAnalysisModel/:guid/Reprocess/:entryGuid': 'reprocessing, as Invoke',
  'POST /api/Authentication/ByUserNamePassword': 'sign-in: UserLogin',
  'POST /api/Authentication/Passcode': 'second step of sign-in: UserLogin',
  'POST /api/Authentication/OAuth/Callback': 'OpenID Connect sign-in: UserLogin',
  'POST /api/Authentication/Logout': 'UserLogout',
  'POST /api/mfa': 'the bundled mock second-factor endpoint',
  'POST /api/Authentication/ChangePassword': "a user's change of their own password: UserLogout (ReasonId 3)",
  'POST /api/Authentication/WirePasswordHash': 'writes nothing: which password form the browser sends',
};

/** Deletions last, a record's dependants before it (rules and statuses before their workflow…). */
const VERB_ORDER = ['Create', 'Update', 'ResetPassword', 'Unlock', 'RevokeSessions', 'Deactivate', 'Revoke'];
const DELETE_ORDER = [
  'EntityAnalysisModelRequestXPath',
  'EntityAnalysisModelActivationRule',
  'CaseWorkflowStatus',
  'EntityAnalysisModel',
  'CaseWorkflow',
  'UserRegistry',
  'RoleRegistry',
  'TenantRegistry',
];
const rank = (r: AdminRoute) =>
  r.verb === 'Delete' ? 100 + DELETE_ORDER.indexOf(r.targetType) : VERB_ORDER.indexOf(r.verb);

/** The secrets sent or stored by the writes below: none may appear in any AdminEvent row. */
const SENT_SECRETS = ['A-Good-Password-42', 'A-Reset-Password-42'];

interface Change {
  field: string;
  old?: unknown;
  new?: unknown;
  changed?: true;
}

const changesOf = (row: AdminEvent): Change[] =>
  row.Changes === null ? [] : (JSON.parse(row.Changes) as Change[]);

describe('every write route is an administrative write or declared not to be', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(() => t.close());

  it('each write route has @AdminAction or is on the declared list, never both; the list names only routes', () => {
    const writes = listRoutes(t.app).filter(isWriteRoute);
    const admin = adminRoutes(t.app);
    const undeclared = writes.filter((r) => !admin.has(r.key) && !(r.key in NOT_ADMINISTRATIVE));
    expect(undeclared.map((r) => r.key)).toEqual([]);
    expect(Object.keys(NOT_ADMINISTRATIVE).filter((k) => admin.has(k))).toEqual([]);
    const keys = new Set(writes.map((r) => r.key));
    expect(Object.keys(NOT_ADMINISTRATIVE).filter((k) => !keys.has(k))).toEqual([]);
    expect([...admin.keys()].filter((k) => !keys.has(k))).toEqual([]);
    expect(admin.size).toBeGreaterThanOrEqual(30);
  });
});

describe.each(TEST_PROVIDERS)('administrative writes on %s', (provider) => {
  let t: TestApp;
  let ds: DataSource;
  let fx: WriteRouteFixtures;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp(provider);
    ds = t.app.get(DataSource);
    fx = await createWriteRouteFixtures(t.app);
    token = (await signIn(t.url, fx.caller.name, fx.caller.password)).token;
  });
  afterAll(() => t.close());

  const lastId = async () =>
    (await ds.getRepository(AdminEvent).find({ order: { Id: 'DESC' }, take: 1 }))[0]?.Id ?? 0;
  const rowsAfter = (id: number) =>
    ds.getRepository(AdminEvent).find({ where: { Id: MoreThan(id) }, order: { Id: 'ASC' } });

  it('every administrative write leaves exactly one row: actor, target and changed fields, no secret', async () => {
    const routes = [...adminRoutes(t.app).entries()].sort(([, a], [, b]) => rank(a) - rank(b));
    const seen: string[] = [];
    for (const [key, route] of routes) {
      const make = WRITE_REQUESTS[key];
      expect({ key, hasRequest: make !== undefined }).toEqual({ key, hasRequest: true });
      const { params, body } = make(fx);
      // The creation before it took the field name the shared request gives.
      if (key === 'PUT /api/EntityAnalysisModel/:guid/RequestXPath/:xpathGuid') body!.name = 'MerchantName';
      // The shared role is deleted further on: the user made here takes another.
      if (key === 'POST /api/UserRegistry') body!.roleGuid = fx.user.roleGuid;
      const path = key
        .split(' ')[1]
        .replace(/:([A-Za-z]+)/g, (_m, p: string) => encodeURIComponent(params[p] ?? ''));
      const before = await lastId();
      const method = key.split(' ')[0].toLowerCase() as 'post' | 'put' | 'delete';
      let req = request(t.url)[method](path).set('authorization', `Bearer ${token}`);
      if (body !== undefined) req = req.send(body);
      const res = await req;
      expect({ key, status: res.status }).toEqual({ key, status: route.successStatus });
      const rows = await rowsAfter(before);
      expect({ key, rows: rows.length }).toEqual({ key, rows: 1 });
      const [row] = rows;
      const targetParam = route.targetParam === null ? undefined : params[route.targetParam ?? 'guid'];
      const answered = (res.body as { guid?: string } | undefined)?.guid;
      expect({
        key,
        action: row.Action,
        outcome: row.OutcomeId,
        status: row.StatusCode,
        actor: row.ActorUserGuid,
        actorName: row.ActorUser,
        credential: row.CredentialKind,
        targetType: row.TargetType,
        targetGuid: row.TargetGuid,
        named: row.TargetName !== null && row.TargetName.length > 0,
        remote: row.RemoteIp,
      }).toEqual({
        key,
        action: route.action,
        outcome: AdminEventOutcome.Applied,
        status: route.successStatus,
        actor: fx.caller.guid,
        actorName: fx.caller.name,
        credential: 'bearer',
        targetType: route.targetType,
        targetGuid: targetParam ?? answered,
        named: true,
        remote: '127.0.0.1',
      });
      // A name the request gives is in the changes, as its new value.
      const changes = changesOf(row);
      const name = (body as { name?: string } | undefined)?.name;
      if (name !== undefined && route.verb !== 'Delete')
        expect({ key, name: changes.find((c) => c.field === 'Name')?.new ?? row.TargetName }).toEqual({
          key,
          name,
        });
      seen.push(key);
    }
    expect(seen.length).toBe(routes.length);
  });

  it('the changed fields are old → new; a password or key hash only "changed"; no secret in any row', async () => {
    const rows = await ds.getRepository(AdminEvent).find();
    const text = JSON.stringify(rows);
    const stored = await ds.query(
      'SELECT "PasswordHash" AS h FROM "UserRegistry" WHERE "PasswordHash" IS NOT NULL',
    );
    const keys = await ds.query('SELECT "KeyHash" AS h FROM "UserRegistryApiKey"');
    const hashes = [...(stored as { h: string }[]), ...(keys as { h: string }[])].map((r) => String(r.h));
    expect(hashes.length).toBeGreaterThan(2);
    for (const secret of [...SENT_SECRETS, ...hashes]) expect(text.includes(secret)).toBe(false);
    expect(text).not.toMatch(/\$argon2/);
    const reset = rows.find((r) => r.Action === 'UserRegistry.ResetPassword')!;
    expect(changesOf(reset)).toContainEqual({ field: 'PasswordHash', changed: true });
    const created = rows.find((r) => r.Action === 'UserRegistry.Create')!;
    expect(changesOf(created)).toContainEqual({ field: 'PasswordHash', changed: true });
    const key = rows.find((r) => r.Action === 'UserRegistryApiKey.Create')!;
    expect(changesOf(key)).toContainEqual({ field: 'KeyHash', changed: true });
    const deactivated = rows.find((r) => r.Action === 'UserRegistry.Deactivate')!;
    expect(changesOf(deactivated)).toContainEqual({ field: 'Active', old: true, new: false });
    const email = rows.find((r) => r.Action === 'UserRegistry.Update')!;
    expect(changesOf(email)).toContainEqual(
      expect.objectContaining({ field: 'Email', new: 'other@example.test' }),
    );
    const role = rows.find((r) => r.Action === 'RoleRegistry.Update')!;
    expect(changesOf(role).map((c) => c.field)).toContain('Name');
  });
});
