import request from 'supertest';
import { DataSource, MoreThan } from 'typeorm';
import { AdminEvent, AdminEventOutcome, AdminEvents, REFUSAL_WINDOW_MS } from '@app/audit';
import { Permission } from '@app/access';
import { RoleRegistry } from '@app/identity';
import { AdminEventRepository } from '../../libs/audit/src/admin-events/admin-event.repository';
import { createUser, type CreatedUser } from '../factories/identity.factory';
import { signIn } from '../support/auth';
import { TEST_PROVIDERS } from '../support/databases';
import { RedisServer, startRedisServer } from '../support/redis-server';
import { startTestApp, startTwoNodes, TestApp } from '../support/test-app';

const ROLE_ADMIN = [Permission.ReadWriteSecurityRole, Permission.ReadSecurityAudit];

describe.each(TEST_PROVIDERS)('a change and its AdminEvent row commit together on %s', (provider) => {
  let t: TestApp;
  let admin: CreatedUser;
  let token: string;
  beforeAll(async () => {
    t = await startTestApp(provider);
    admin = await createUser(t.app, { permissions: ROLE_ADMIN });
    token = (await signIn(t.url, admin.name, admin.password)).token;
  });
  afterAll(async () => {
    // The forced failure's 500 is not an answer of the document.
    t.responseViolations.splice(0);
    await t.close();
  });

  it('a failure forced after the row is written leaves neither the change nor the row', async () => {
    const ds = t.app.get(DataSource);
    const events = ds.getRepository(AdminEvent);
    const repo = t.app.get(AdminEventRepository);
    const insert = repo.insert.bind(repo);
    let written = 0;
    const before = await events.count();
    const lastId = (await events.find({ order: { Id: 'DESC' }, take: 1 }))[0]?.Id ?? 0;
    const spy = jest.spyOn(repo, 'insert').mockImplementationOnce(async (row, tx) => {
      await insert(row, tx);
      // counted in the change's own transaction
      written = await (tx ?? ds.manager).getRepository(AdminEvent).count({ where: { Id: MoreThan(lastId) } });
      throw new Error('forced failure after the AdminEvent row');
    });
    const refused = await request(t.url)
      .put(`/api/RoleRegistry/${admin.roleGuid}`)
      .set('authorization', `Bearer ${token}`)
      .send({ name: 'Renamed then rolled back', permissions: [Permission.ReadSecurityAudit] });
    spy.mockRestore();
    expect(refused.status).toBe(500);
    expect(written).toBe(1); // the row was there, inside the transaction, when the failure came
    const role = await ds.getRepository(RoleRegistry).findOneByOrFail({ Guid: admin.roleGuid });
    expect(role.Name).not.toBe('Renamed then rolled back');
    const now = await request(t.url)
      .get(`/api/RoleRegistry/${admin.roleGuid}`)
      .set('authorization', `Bearer ${token}`);
    expect((now.body as { permissions: number[] }).permissions.sort()).toEqual([...ROLE_ADMIN].sort());
    await t.app.get(AdminEvents).settled();
    expect(await events.count()).toBe(before);

    // The same change without the failure: both.
    await request(t.url)
      .put(`/api/RoleRegistry/${admin.roleGuid}`)
      .set('authorization', `Bearer ${token}`)
      .send({ name: 'Renamed for good' })
      .expect(200);
    expect(await events.count()).toBe(before + 1);
  });
});

describe('refused administrative writes on PostgreSQL, two nodes sharing Redis', () => {
  let redis: RedisServer;
  let a: TestApp;
  let b: TestApp;
  let landlord: CreatedUser;
  let admin: CreatedUser;
  let other: CreatedUser;
  let adminToken: string;
  let landlordToken: string;
  beforeAll(async () => {
    redis = await startRedisServer();
    [a, b] = await startTwoNodes({ RedisConnectionString: redis.url });
    const landlordGuid = (
      await a.app.get(DataSource).query('SELECT "Guid" FROM "TenantRegistry" WHERE "Landlord" = true')
    )[0].Guid as string;
    landlord = await createUser(a.app, {
      tenantGuid: landlordGuid,
      permissions: [...ROLE_ADMIN, Permission.ReadWriteTenant, Permission.ReadWriteSecurityUser],
    });
    admin = await createUser(a.app, { permissions: ROLE_ADMIN });
    other = await createUser(a.app, { permissions: ROLE_ADMIN });
    adminToken = (await signIn(a.url, admin.name, admin.password)).token;
    landlordToken = (await signIn(a.url, landlord.name, landlord.password)).token;
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await redis.stop();
  });

  const rowsOf = (targetGuid: string) =>
    a.app
      .get(DataSource)
      .getRepository(AdminEvent)
      .find({ where: { TargetGuid: targetGuid }, order: { Id: 'ASC' } });
  const settled = () => Promise.all([a.app.get(AdminEvents).settled(), b.app.get(AdminEvents).settled()]);

  it('50 concurrent changes at one version: one applied row, and the 49 refusals (412) counted in a row a node', async () => {
    const read = await request(a.url)
      .get(`/api/RoleRegistry/${admin.roleGuid}`)
      .set('authorization', `Bearer ${adminToken}`);
    const etag = read.headers.etag;
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        request(i % 2 ? a.url : b.url)
          .put(`/api/RoleRegistry/${admin.roleGuid}`)
          .set('authorization', `Bearer ${adminToken}`)
          .set('if-match', etag)
          .send({ name: `Raced ${i}` }),
      ),
    );
    await settled();
    await Promise.all([a.app.get(AdminEvents).flushRefusals(), b.app.get(AdminEvents).flushRefusals()]);
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 412)).toHaveLength(49);
    const rows = await rowsOf(admin.roleGuid);
    const applied = rows.filter((r) => r.OutcomeId === (AdminEventOutcome.Applied as number));
    const refused = rows.filter((r) => r.OutcomeId === (AdminEventOutcome.Refused as number));
    expect(applied).toHaveLength(1);
    const winner = answers.findIndex((r) => r.status === 200);
    expect(JSON.parse(applied[0].Changes!)).toEqual([
      { field: 'Name', old: read.body.name, new: `Raced ${winner}` },
    ]);
    // Refusals of one actor, action and status: one row a minute on each node that answered them, counting them.
    const minutes = new Set(refused.map((r) => Math.floor(r.CreatedDate.getTime() / REFUSAL_WINDOW_MS)));
    expect(refused.length).toBeLessThanOrEqual(2 * minutes.size);
    expect(
      refused.map((r) => [r.Action, r.StatusCode, r.ActorUserGuid, r.TargetGuid, r.LastTargetGuid]),
    ).toEqual(refused.map(() => ['RoleRegistry.Update', 412, admin.guid, admin.roleGuid, admin.roleGuid]));
    expect(refused.reduce((n, r) => n + r.EventCount, 0)).toBe(49);
    expect(refused[0].Message).toMatch(/changed by someone else/);
  });

  it('a different refusal is recorded (403, 404); an anonymous 401 is not', async () => {
    const weak = await createUser(a.app, {
      tenantGuid: admin.tenantGuid,
      permissions: [Permission.ReadSecurityAudit],
    });
    const weakToken = (await signIn(a.url, weak.name, weak.password)).token;
    await request(b.url)
      .delete(`/api/RoleRegistry/${admin.roleGuid}`)
      .set('authorization', `Bearer ${weakToken}`)
      .expect(403);
    await request(a.url)
      .put(`/api/RoleRegistry/${other.roleGuid}`)
      .set('authorization', `Bearer ${adminToken}`)
      .send({ name: 'x' })
      .expect(404);
    await request(a.url).delete(`/api/RoleRegistry/${admin.roleGuid}`).expect(401);
    await settled();
    const rows = await rowsOf(admin.roleGuid);
    expect(
      rows.filter((r) => r.StatusCode === 403).map((r) => [r.Action, r.ActorUserGuid, r.OutcomeId]),
    ).toEqual([['RoleRegistry.Delete', weak.guid, AdminEventOutcome.Refused]]);
    expect(rows.filter((r) => r.StatusCode === 401)).toEqual([]);
    // Another tenant's role: a 404 to this administrator, recorded in their own tenant (not the target's).
    const probing = await rowsOf(other.roleGuid);
    expect(probing.map((r) => [r.StatusCode, r.ActorUserGuid])).toEqual([[404, admin.guid]]);
  });

  it("a tenant administrator reads only their tenant's events; the landlord reads all; CSV as the grid", async () => {
    await request(a.url)
      .put(`/api/RoleRegistry/${other.roleGuid}`)
      .set('authorization', `Bearer ${landlordToken}`)
      .send({ name: 'Renamed by the landlord' })
      .expect(200);
    const grid = async (token: string, query = '') =>
      (
        await request(b.url)
          .get(`/api/AdminEvent${query}`)
          .set('authorization', `Bearer ${token}`)
          .expect(200)
      ).body.rows as { targetGuid: string | null; actorUser: string; changes: string | null }[];
    const mine = await grid(adminToken);
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.some((r) => r.targetGuid === admin.roleGuid)).toBe(true);
    expect(mine.some((r) => r.targetGuid === other.roleGuid && r.actorUser === landlord.name)).toBe(false);
    const all = await grid(landlordToken, `?search=${encodeURIComponent('RoleRegistry.Update')}`);
    expect(all.some((r) => r.targetGuid === other.roleGuid && r.actorUser === landlord.name)).toBe(true);
    expect(all.some((r) => r.targetGuid === admin.roleGuid)).toBe(true);
    const own = await grid(landlordToken, `?targetGuid=${other.roleGuid}`);
    expect(own.every((r) => r.targetGuid === other.roleGuid)).toBe(true);
    const csv = await request(b.url)
      .get(`/api/AdminEvent?targetGuid=${other.roleGuid}&format=csv`)
      .set('authorization', `Bearer ${landlordToken}`)
      .expect(200);
    // the page's column: the changed fields as people read them (one column per fact, not the JSON)
    expect(csv.text).toContain('"Name: ');
  });

  it("an API-key caller is recorded with the key's display-safe identifier", async () => {
    const created = await request(a.url)
      .post('/api/UserRegistryApiKey')
      .set('authorization', `Bearer ${landlordToken}`)
      .send({ userRegistryGuid: landlord.guid, name: 'audit probe' })
      .expect(201);
    const key = (created.body as { key: string }).key;
    await request(a.url)
      .put(`/api/RoleRegistry/${other.roleGuid}`)
      .set('x-api-key', key)
      .send({ name: 'Renamed with a key' })
      .expect(200);
    const [row] = (await rowsOf(other.roleGuid)).slice(-1);
    expect([row.CredentialKind, row.ApiKeyIdentifier, row.ActorUserGuid]).toEqual([
      'api-key',
      key.slice(0, 8),
      landlord.guid,
    ]);
    expect(JSON.stringify(await a.app.get(DataSource).getRepository(AdminEvent).find())).not.toContain(key);
  });
});
