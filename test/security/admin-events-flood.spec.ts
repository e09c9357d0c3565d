import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  AdminEvent,
  AdminEvents,
  REFUSAL_ROWS_PER_ACTOR,
  REFUSAL_WINDOW_MS,
  type RefusalSummary,
  UNWRITTEN_REFUSALS,
} from '@app/audit';
import { ManualClock } from '@app/runtime';
import { Permission } from '@app/access';
import { TenantRegistry } from '@app/identity';
import {
  concurrently,
  countOf,
  lastAdminEventId,
  refusalRows,
  refuseDirectly,
  sendRefused,
} from '../support/admin-refusals';
import { createUser, landlordActor, type CreatedUser } from '../factories/identity.factory';
import { signIn } from '../support/auth';
import { createPostgresDatabase } from '../support/databases';
import { freePort } from '../support/free-port';
import { samples } from '../support/prometheus';
import { RedisServer, startRedisServer } from '../support/redis-server';
import { startTestApp, TestApp } from '../support/test-app';

const FLOOD = 20_000;
const OVER_HTTP = 2_000;
/** The review's two loops: a tenant's update and a user's deletion, at random targets. */
const HTTP_ROUTES = ['PUT /api/TenantRegistry/:guid', 'DELETE /api/UserRegistry/:guid'];

/**
 * One signed-in user without permissions floods the administrators' trail with 20 000 refusals on two
 * PostgreSQL nodes sharing Redis (2 000 over HTTP, 50 at a time, the rest through the path the HTTP layer calls,
 * cycling through every administrative route): the trail grows by at most REFUSAL_ROWS_PER_ACTOR rows for them
 * in the minute, another user's refusals are still recorded, and every refusal not written as a row is counted
 * (the counter, and each node's summary line at the minute's end). The nodes share a ManualClock, so the flood
 * is within one minute whatever the machine's speed.
 */
describe('a refusal flood on PostgreSQL, two nodes sharing Redis', () => {
  const clock = new ManualClock(Math.floor(Date.now() / REFUSAL_WINDOW_MS) * REFUSAL_WINDOW_MS + 1_000);
  let redis: RedisServer;
  let a: TestApp;
  let b: TestApp;
  const ports: number[] = [];
  let loud: CreatedUser;
  let quiet: CreatedUser;
  let administratorGuid: string;
  let before: number;
  let warn: jest.SpyInstance;
  let bClosed = false;

  beforeAll(async () => {
    redis = await startRedisServer();
    const connectionString = await createPostgresDatabase();
    for (const name of ['node-a', 'node-b']) {
      const port = await freePort();
      ports.push(port);
      const node = await startTestApp(
        'postgres',
        {
          RedisConnectionString: redis.url,
          InstanceName: name,
          EnableOpenTelemetry: 'True',
          OpenTelemetryPrometheusPort: String(port),
        },
        { connectionString, clock },
      );
      if (name === 'node-a') a = node;
      else b = node;
    }
    loud = await createUser(a.app, { permissions: [Permission.ReadSecurityAudit] });
    quiet = await createUser(a.app, { permissions: [Permission.ReadSecurityAudit] });
    administratorGuid = (await landlordActor(a.app)).userGuid;
    before = await lastAdminEventId(a.app);
    warn = jest.spyOn(Logger.prototype, 'warn');
  });
  afterAll(async () => {
    warn?.mockRestore();
    await a?.close();
    if (!bClosed) await b?.close();
    await redis?.stop();
  });

  const both = () => [a.app.get(AdminEvents), b.app.get(AdminEvents)];
  const flush = () => Promise.all(both().map((e) => e.flushRefusals()));
  const unwritten = (reason: 'aggregated' | 'actor-bound') =>
    both().reduce((n, e) => n + e.unwrittenSinceStart[reason], 0);
  const rowsOf = async (actor: CreatedUser) =>
    (await refusalRows(a.app, before)).filter((r) => r.ActorUserGuid === actor.guid);

  it("20 000 refusals of one actor: at most REFUSAL_ROWS_PER_ACTOR rows; another actor's refusals recorded at once", async () => {
    const token = (await signIn(a.url, loud.name, loud.password)).token;
    const statuses = await concurrently(OVER_HTTP, 50, (i) =>
      sendRefused(i % 2 ? a.url : b.url, token, HTTP_ROUTES[i % HTTP_ROUTES.length]),
    );
    expect([...statuses]).toEqual([[403, OVER_HTTP]]);
    const direct = (FLOOD - OVER_HTTP) / 2;
    refuseDirectly(a.app, loud.actor, direct);
    refuseDirectly(b.app, loud.actor, direct);

    // The second actor, after the flood, in the same minute: refused ResetPassword of the Administrator, refused
    // deletions; over HTTP, to both nodes.
    const quietToken = (await signIn(b.url, quiet.name, quiet.password)).token;
    const quietKeys = [
      'POST /api/UserRegistry/:guid/ResetPassword',
      'DELETE /api/UserRegistry/:guid',
      'POST /api/UserRegistry/:guid/ResetPassword',
      'DELETE /api/UserRegistry/:guid',
      'POST /api/UserRegistry/:guid/ResetPassword',
    ];
    for (const [i, key] of quietKeys.entries()) {
      const res = await fetch(
        `${i % 2 ? a.url : b.url}${key.split(' ')[1].replace(':guid', administratorGuid)}`,
        {
          method: key.split(' ')[0],
          headers: { authorization: `Bearer ${quietToken}`, 'content-type': 'application/json' },
          body: key.startsWith('DELETE') ? undefined : JSON.stringify({ password: 'A-Reset-Password-42' }),
        },
      );
      await res.arrayBuffer();
      expect(res.status).toBe(403);
    }
    await Promise.all(both().map((e) => e.settled()));
    // Recorded at once, before any flush: each of the quiet actor's refusals opened or joined a row.
    const quietRows = await rowsOf(quiet);
    expect(new Set(quietRows.map((r) => r.Action))).toEqual(
      new Set(['UserRegistry.ResetPassword', 'UserRegistry.Delete']),
    );
    expect(quietRows.every((r) => r.TargetGuid === administratorGuid && r.StatusCode === 403)).toBe(true);

    await flush();
    expect(countOf(await rowsOf(quiet))).toBe(quietKeys.length);
    const loudRows = await rowsOf(loud);
    expect(loudRows.length).toBeGreaterThan(0);
    // The bound is shared through Redis; a node whose Redis counter did not answer within its time limit (a
    // loaded machine) bounds the actor alone for the minute, and says so: then 20 a node.
    const alone = warn.mock.calls.filter(([m]) => /this node bounds .* alone/.test(String(m))).length;
    const bound = REFUSAL_ROWS_PER_ACTOR * (alone ? 2 : 1);
    expect(loudRows.length).toBeLessThanOrEqual(bound);
    // The table grew by the loud actor's bounded rows and the quiet actor's few (a row per node and action).
    expect((await refusalRows(a.app, before)).length).toBeLessThanOrEqual(bound + 4);
    // Every refusal is a row, counted in one, or counted past the bound.
    expect(countOf(loudRows) + unwritten('actor-bound')).toBe(FLOOD);
    expect(unwritten('actor-bound')).toBeGreaterThan(0);
    const rows = await refusalRows(a.app, before);
    expect(unwritten('aggregated')).toBe(countOf(rows) - rows.length);
    // Each row names the actor's tenant and its first and last target.
    const tenant = await a.app
      .get(DataSource)
      .getRepository(TenantRegistry)
      .findOneByOrFail({ Guid: loud.tenantGuid });
    const busiest = loudRows.reduce((x, y) => (y.EventCount > x.EventCount ? y : x));
    expect(busiest.EventCount).toBeGreaterThan(100);
    expect([busiest.ActorTenantName, busiest.TargetGuid === busiest.LastTargetGuid]).toEqual([
      tenant.Name,
      false,
    ]);
    expect(busiest.LastDate!.getTime()).toBeGreaterThanOrEqual(busiest.CreatedDate.getTime());
  });

  it('the counter says how many were not written as rows, and each node one summary line at the minute end', async () => {
    const expected = { aggregated: unwritten('aggregated'), bound: unwritten('actor-bound') };
    let exported = { aggregated: 0, bound: 0 };
    for (const port of ports) {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      const value = (reason: string) =>
        samples(text).find(
          (s) => s.name === `${UNWRITTEN_REFUSALS.replace(/\./g, '_')}_total` && s.labels.reason === reason,
        )?.value ?? NaN;
      exported = {
        aggregated: exported.aggregated + value('aggregated'),
        bound: exported.bound + value('actor-bound'),
      };
    }
    expect(exported).toEqual(expected);

    warn.mockClear();
    clock.advance(REFUSAL_WINDOW_MS);
    await flush();
    const lines = warn.mock.calls
      .map((call: unknown[]) => call[0] as Partial<RefusalSummary>)
      .filter((s) => typeof s === 'object' && s !== null && 'actorBound' in s);
    expect(lines).toHaveLength(2);
    expect({
      aggregated: lines.reduce((n, s) => n + s.aggregated!, 0),
      bound: lines.reduce((n, s) => n + s.actorBound!, 0),
    }).toEqual(expected);
    expect(lines.every((s) => s.loudest![0].actorUserGuid === loud.guid)).toBe(true);
    expect(lines.reduce((n, s) => n + s.refusals!, 0)).toBe(FLOOD + 5);
  });

  it('a row still counting when its node shuts down is written with its whole count', async () => {
    const mark = await lastAdminEventId(a.app);
    refuseDirectly(b.app, quiet.actor, 1, { routeKeys: ['DELETE /api/RoleRegistry/:guid'] });
    await b.app.get(AdminEvents).settled();
    refuseDirectly(b.app, quiet.actor, 99, { routeKeys: ['DELETE /api/RoleRegistry/:guid'] });
    const open = await refusalRows(a.app, mark);
    expect(open.map((r) => r.EventCount)).toEqual([1]);
    bClosed = true;
    await b.close();
    const [row] = await a.app.get(DataSource).getRepository(AdminEvent).findBy({ Id: open[0].Id });
    expect(row.EventCount).toBe(100);
  });
});
