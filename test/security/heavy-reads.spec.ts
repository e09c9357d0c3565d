import request from 'supertest';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { AdminEvent } from '@app/audit';
import { Permission } from '@app/access';
import { ADMIN_EVENT_GRID, GridService } from '@app/grid';
import { createUser, landlordActor } from '../factories/identity.factory';
import { signIn } from '../support/auth';
import { SQLITE_AND_POSTGRES } from '../support/databases';
import { waitFor } from '../support/spawn-server';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Heavy audit reads cannot stall a node: a grid answer of more than LARGE_READ_ROWS rows is streamed in keyset
 * batches (its text the same as the answer read whole), a node serves at most GridLargeReadConcurrency of them
 * at once (the others wait, then 503 with Retry-After), a sort without an index is refused on a window larger
 * than GridUnindexedSortMaxRows, and on PostgreSQL a statement past GridStatementTimeoutMilliseconds is a 503
 * problem, not a 500 and not a wait.
 */
/** More than a large read (LARGE_READ_ROWS, 1 000), in many batches (READ_BATCH, 256). */
const ROWS = 3_072;
const SORT_BOUND = 600;
const WAIT_MS = 1_500;
const AGENTS = ['Mozilla/5.0', 'curl/8.5', 'Ärger/1', 'mozilla/5.0', 'Zeta', null];

describe.each(SQLITE_AND_POSTGRES)('heavy grid reads on %s', (provider) => {
  let t: TestApp;
  let token: string;
  let grids: GridService;
  const base = Date.now() - 3_600_000;
  const window = { from: new Date(base - 1).toISOString(), to: new Date(base + ROWS).toISOString() };
  /** The newest SORT_BOUND - 50 rows only: a window a sort without an index may order (two batches and more). */
  const narrow = {
    from: new Date(base + Math.floor((ROWS - (SORT_BOUND - 50)) / 2)).toISOString(),
    to: window.to,
  };

  beforeAll(async () => {
    t = await startTestApp(provider, {
      GridLargeReadConcurrency: '2',
      GridLargeReadWaitMilliseconds: String(WAIT_MS),
      GridUnindexedSortMaxRows: String(SORT_BOUND),
      GridStatementTimeoutMilliseconds: '300',
    });
    grids = t.app.get(GridService);
    const auditor = await createUser(t.app, {
      tenantGuid: (await landlordActor(t.app)).tenantGuid,
      permissions: [Permission.ReadSecurityAudit],
    });
    token = (await signIn(t.url, auditor.name, auditor.password)).token;
    // Two rows to each millisecond (ties at batch boundaries), user agents repeated and NULL among them.
    const rows = Array.from({ length: ROWS }, (_, i) => ({
      CreatedDate: new Date(base + Math.floor(i / 2)),
      ActorUserGuid: '11111111-2222-4333-8444-555555555555',
      ActorUser: `heavy-${i % 17}`,
      ActorTenantRegistryId: 1,
      ActorTenantName: i % 5 ? 'Landlord' : null,
      CredentialKind: 'bearer',
      Action: 'UserRegistry.Update',
      TargetType: 'UserRegistry',
      TargetName: `user ${i}`,
      Changes: JSON.stringify([{ field: 'Name', old: `a${i}`, new: `b${i}` }]),
      OutcomeId: 1,
      StatusCode: 200,
      EventCount: 1,
      UserAgent: AGENTS[i % AGENTS.length],
      LastDate: i % 3 ? new Date(base + i) : null,
    }));
    const repo = t.app.get(DataSource).getRepository(AdminEvent);
    for (let i = 0; i < rows.length; i += 500) await repo.insert(rows.slice(i, i + 500));
  });
  afterAll(() => t.close());

  const get = (query: Record<string, string>) =>
    request(t.url).get('/api/AdminEvent').query(query).set('Authorization', `Bearer ${token}`);
  /** The answer read whole, in one statement (the unstreamed reference), as Nest would have sent it. */
  const whole = async (query: Record<string, string>) =>
    JSON.stringify(await grids.query(ADMIN_EVENT_GRID, query));

  it.each([
    ['newest first', { ...window, take: '100000' }],
    [
      'oldest first (the time column: indexed)',
      { ...window, take: '3000', sortField: 'createdDate', sortDirection: 'asc' },
    ],
    [
      'by a nullable column ascending, within the sort bound',
      { ...narrow, take: '2000', sortField: 'userAgent', sortDirection: 'asc' },
    ],
    [
      'by a nullable column descending, within the sort bound',
      { ...narrow, take: '2000', sortField: 'lastDate' },
    ],
    [
      'by a number column, paged below a row',
      { ...narrow, take: '5000', sortField: 'id', beforeTime: window.to, beforeId: '999999' },
    ],
    ['a sample', { ...window, take: '100000', samplePercentage: '40', sampleSeed: '7' }],
  ])('streams %s: chunked, and the same text as the answer read whole', async (_label, query) => {
    const res = await get(query).expect(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-length']).toBeUndefined(); // streamed, never built whole
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.text;
    expect(body).toBe(await whole(query));
    expect((JSON.parse(body) as { rows: unknown[] }).rows.length).toBeGreaterThan(250);
  });

  it('refuses a sort without an index on a window larger than the bound: a 400 naming sortField', async () => {
    for (const take of ['100000', '100']) {
      const res = await get({ ...window, take, sortField: 'userAgent', sortDirection: 'asc' }).expect(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body.errors[0].field).toBe('sortField');
      expect(res.body.detail).toContain(`${SORT_BOUND}`);
    }
    // the time column sorts any window
    await get({ ...window, take: '100', sortField: 'createdDate', sortDirection: 'asc' }).expect(200);
  });

  it('a large read waits for a turn, and is refused with 503 and Retry-After when none comes in time', async () => {
    const held = [await grids.largeReads.acquire(), await grids.largeReads.acquire()];
    const refused = await get({ ...window, take: '5000' });
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.body.type).toBe('urn:problem-type:service-unavailable');
    // small reads are not held
    await get({ ...window, take: '100' }).expect(200);
    const waiting = get({ ...window, take: '5000' }).then((r) => r);
    await waitFor(
      () => grids.largeReads.state.waiting === 1,
      WAIT_MS / 2,
      'the large read to wait for a turn',
    );
    expect(grids.largeReads.state).toEqual({ running: 2, waiting: 1 });
    held[0]();
    const served = await waiting;
    expect(served.status).toBe(200);
    expect(served.text).toBe(await whole({ ...window, take: '5000' }));
    held[1]();
    expect(grids.largeReads.state).toEqual({ running: 0, waiting: 0 });
  });

  it('a CSV export is a large read too', async () => {
    const held = [await grids.largeReads.acquire(), await grids.largeReads.acquire()];
    try {
      const res = await get({ ...window, format: 'csv' });
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
    } finally {
      held.forEach((release) => release());
    }
    const csv = await get({ ...window, format: 'csv' }).expect(200);
    expect(csv.text.trimEnd().split('\r\n')).toHaveLength(ROWS + 1);
    expect(grids.largeReads.state).toEqual({ running: 0, waiting: 0 });
  });

  if (provider === 'postgres') {
    it('60 large reads at once: never more than two running, each answered whole or 503 with Retry-After, no turn lost', async () => {
      const query = { ...window, take: '1500' };
      const reference = await whole(query);
      let most = 0;
      const watch = setInterval(() => (most = Math.max(most, grids.largeReads.state.running)), 1);
      const answers = await Promise.all(Array.from({ length: 60 }, () => get(query).then((r) => r)));
      clearInterval(watch);
      const served = answers.filter((r) => r.status === 200);
      const refused = answers.filter((r) => r.status !== 200);
      expect(served.length).toBeGreaterThanOrEqual(2);
      for (const r of served) expect(r.text).toBe(reference);
      for (const r of refused) {
        expect(r.status).toBe(503);
        expect(r.headers['retry-after']).toBe('5');
      }
      expect(most).toBeLessThanOrEqual(2);
      expect(grids.largeReads.state).toEqual({ running: 0, waiting: 0 });
    });

    it('a statement past GridStatementTimeoutMilliseconds is a 503 problem with Retry-After, not a 500', async () => {
      const locker = new Client({ connectionString: t.settings.ConnectionString });
      await locker.connect();
      try {
        await locker.query('BEGIN');
        await locker.query('LOCK TABLE "AdminEvent" IN ACCESS EXCLUSIVE MODE');
        const res = await get({ ...window, take: '5000' }).timeout(5_000);
        expect(res.status).toBe(503);
        expect(res.headers['retry-after']).toBe('5');
        expect(res.body.detail).toContain('GridStatementTimeoutMilliseconds');
      } finally {
        await locker.query('ROLLBACK');
        await locker.end();
      }
      expect(grids.largeReads.state).toEqual({ running: 0, waiting: 0 });
      // every connection went back without the time limit (ten at once: the pool's every connection)
      const limits = await Promise.all(
        Array.from({ length: 10 }, () =>
          t.app
            .get(DataSource)
            .query<{ s: string }[]>(`SELECT current_setting('statement_timeout') AS s, pg_sleep(0.05)`),
        ),
      );
      expect(limits.map(([r]) => r.s)).toEqual(Array.from({ length: 10 }, () => '0'));
    });
  }
});
