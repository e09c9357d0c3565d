import request from 'supertest';
import { DataSource } from 'typeorm';
import { ALL_PERMISSIONS, Permission } from '@app/access';
import { CaptureFlusher } from '@app/capture-queues';
import { CaseCreationStage } from '@app/telemetry';
import { PipelineTelemetry } from '@app/engine';
import { UserLogin } from '@app/audit';
import { createUser, landlordActor } from './factories/identity.factory';
import { signIn } from './support/auth';
import { formulaCells } from './support/csv-readings';
import { TEST_PROVIDERS } from './support/databases';
import { startTestApp, TestApp } from './support/test-app';

const TELEMETRY = [
  'ArchiverStagePerformanceCounter',
  'ArchiverWarning',
  'CaseCreationStagePerformanceCounter',
  'CaseCreationWarning',
  'ModelInvokeWarning',
  'CaptureQueueHealth',
];
const MODEL = '11111111-2222-4333-8444-555555555555';

/** The cells a spreadsheet sees when `separator` is its list separator (quotes keep a cell together). */
function splitOutsideQuotes(line: string, separator: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (ch === separator && !quoted) {
      cells.push(cell);
      cell = '';
      continue;
    }
    cell += ch;
  }
  return [...cells, cell];
}

describe.each(TEST_PROVIDERS)('grids over HTTP on %s', (provider) => {
  let t: TestApp;
  let landlordToken: string;
  let tenantToken: string;
  let tenantAuditToken: string;
  let tenantName: string;

  beforeAll(async () => {
    t = await startTestApp(provider, { CaptureQueueFlushIntervalMilliseconds: '3600000' });
    const landlordTenant = (await landlordActor(t.app)).tenantGuid;
    const landlordUser = await createUser(t.app, {
      tenantGuid: landlordTenant,
      permissions: [Permission.ReadSecurityAudit],
    });
    const tenantAdmin = await createUser(t.app, { permissions: [...ALL_PERMISSIONS] });
    const tenantAuditor = await createUser(t.app, {
      tenantGuid: tenantAdmin.tenantGuid,
      permissions: [Permission.ReadSecurityAudit],
    });
    tenantName = tenantAuditor.name;
    landlordToken = (await signIn(t.url, landlordUser.name, landlordUser.password)).token;
    tenantToken = (await signIn(t.url, tenantAdmin.name, tenantAdmin.password)).token;
    tenantAuditToken = (await signIn(t.url, tenantAuditor.name, tenantAuditor.password)).token;
    // A failed attempt against a user name that does not exist, and one against a real tenant user.
    await request(t.url)
      .post('/api/Authentication/ByUserNamePassword')
      .send({ userName: '=cmd|calc', password: 'nope-nope-nope' });
    await request(t.url)
      .post('/api/Authentication/ByUserNamePassword')
      .send({ userName: tenantName, password: 'wrong-password-1' });
    // Telemetry through the real recorder and flush.
    const rec = t.app.get(PipelineTelemetry);
    for (let i = 0; i < 5; i++) {
      rec.modelInvokeWarning({
        entityAnalysisModelGuid: MODEL,
        entityAnalysisModelName: 'Fraud 100% model_x [b]',
        entityAnalysisModelInstanceEntryGuid: '99999999-2222-4333-8444-555555555555',
        message: `ExtractFields ${i}`,
        elapsedMicroseconds: 1000 * (i + 1),
        sinceLastEntryMicroseconds: 100 * (i + 1),
      });
    }
    rec.caseCreationWarning({
      caseWorkflowGuid: MODEL,
      caseWorkflowName: 'Workflow',
      caseKey: 'AccountId',
      caseKeyValue: 'ACC-42',
      stageId: CaseCreationStage.HttpEndpoint,
      durationMicroseconds: 12_000_000,
      destination: 'http://127.0.0.1:1/callback',
    });
    await t.app.get(CaptureFlusher).flush();
  });
  afterAll(() => t.close());

  it('telemetry grids: the landlord gets 200; a tenant administrator with every permission gets 403', async () => {
    for (const grid of TELEMETRY) {
      const ok = await request(t.url).get(`/api/${grid}`).set('Authorization', `Bearer ${landlordToken}`);
      expect({ grid, status: ok.status }).toEqual({ grid, status: 200 });
      expect(ok.body).toEqual(
        expect.objectContaining({
          rows: expect.any(Array),
          total: expect.any(Number),
          statistics: expect.any(Object),
        }),
      );
      const denied = await request(t.url).get(`/api/${grid}`).set('Authorization', `Bearer ${tenantToken}`);
      expect({ grid, status: denied.status }).toEqual({ grid, status: 403 });
      expect(denied.body).toMatchObject({ status: 403, type: 'urn:problem-type:forbidden' });
      await request(t.url).get(`/api/${grid}`).expect(401);
    }
  });

  it('ModelInvokeWarning: rows, statistics, model filter and search with wildcards', async () => {
    const auth = { Authorization: `Bearer ${landlordToken}` };
    const all = await request(t.url).get('/api/ModelInvokeWarning').set(auth).expect(200);
    expect(all.body.total).toBe(5);
    expect(all.body.rows[0]).toMatchObject({
      entityAnalysisModelGuid: MODEL,
      message: 'ExtractFields 4',
      elapsedMicroseconds: 5000,
    });
    expect(all.body.statistics.elapsedMicroseconds).toMatchObject({
      count: 5,
      min: 1000,
      max: 5000,
      mean: 3000,
      median: 3000,
    });
    expect(all.body.statistics.elapsedMicroseconds.standardDeviation).toBeCloseTo(1581.1388, 3);
    expect(all.body.statistics.elapsedMicroseconds.histogram).toHaveLength(10);
    expect(
      (await request(t.url).get('/api/ModelInvokeWarning').query({ search: '100%' }).set(auth)).body.total,
    ).toBe(5);
    expect(
      (await request(t.url).get('/api/ModelInvokeWarning').query({ search: '1000%' }).set(auth)).body.total,
    ).toBe(0);
    expect(
      (await request(t.url).get('/api/ModelInvokeWarning').query({ search: 'extractfields 3' }).set(auth))
        .body.total,
    ).toBe(1);
    expect(
      (
        await request(t.url)
          .get('/api/ModelInvokeWarning')
          .query({ entityAnalysisModelGuid: '00000000-0000-4000-8000-000000000000' })
          .set(auth)
      ).body.total,
    ).toBe(0);
    const sorted = await request(t.url)
      .get('/api/ModelInvokeWarning')
      .query({ sortField: 'ELAPSEDMICROSECONDS', sortDirection: 'ASC', take: '2' })
      .set(auth);
    expect(sorted.body.rows.map((r: { elapsedMicroseconds: number }) => r.elapsedMicroseconds)).toEqual([
      1000, 2000,
    ]);
    expect(sorted.body.total).toBe(5);
  });

  it('grid paging: next in the body and Link rel="next" (whole answers) lead to the same pages, every row once', async () => {
    const auth = { Authorization: `Bearer ${landlordToken}` };
    const all = (await request(t.url).get('/api/ModelInvokeWarning').set(auth).expect(200)).body as {
      rows: { id: number }[];
      total: number;
      next: unknown;
    };
    expect(all.total).toBe(5);
    expect(all.next).toBeNull();
    const seen: number[] = [];
    let path: string | null = '/api/ModelInvokeWarning?take=2';
    while (path) {
      const res: request.Response = await request(t.url).get(path).set(auth).expect(200);
      const body = res.body as {
        rows: { id: number }[];
        next: { beforeTime: string; beforeId: number } | null;
      };
      seen.push(...body.rows.map((r) => r.id));
      if (body.next === null) {
        expect(res.headers.link).toBeUndefined();
        path = null;
      } else {
        const link: string = /^<([^>]+)>; rel="next"$/.exec(res.headers.link)?.[1] ?? '';
        const url = new URL(link, 'http://x');
        expect([url.pathname, url.searchParams.get('take')]).toEqual(['/api/ModelInvokeWarning', '2']);
        expect(url.searchParams.get('beforeTime')).toBe(body.next.beforeTime);
        expect(url.searchParams.get('beforeId')).toBe(String(body.next.beforeId));
        path = link;
      }
      expect(seen.length).toBeLessThan(20);
    }
    expect(seen).toEqual(all.rows.map((r) => r.id));
    // Another order has no keyset to page by: no next.
    const sorted = await request(t.url)
      .get('/api/ModelInvokeWarning')
      .query({ take: '2', sortField: 'elapsedMicroseconds' })
      .set(auth)
      .expect(200);
    expect(sorted.body.next).toBeNull();
    expect(sorted.headers.link).toBeUndefined();
  });

  it('CaseCreationWarning names its stage and URL; CaptureQueueHealth has the six queues with names', async () => {
    const auth = { Authorization: `Bearer ${landlordToken}` };
    const w = await request(t.url)
      .get('/api/CaseCreationWarning')
      .query({ search: 'acc-4' })
      .set(auth)
      .expect(200);
    expect(w.body.rows).toEqual([
      expect.objectContaining({
        stageId: 4,
        stageName: 'HttpEndpoint',
        caseKeyValue: 'ACC-42',
        destination: 'http://127.0.0.1:1/callback',
      }),
    ]);
    const h = await request(t.url).get('/api/CaptureQueueHealth').set(auth).expect(200);
    expect(new Set(h.body.rows.map((r: { queueId: number }) => r.queueId))).toEqual(
      new Set([1, 2, 3, 4, 5, 6]),
    );
    expect(h.body.rows.find((r: { queueId: number }) => r.queueId === 1).queueName).toBe(
      'ModelInvokeWarning',
    );
    const one = await request(t.url)
      .get('/api/CaptureQueueHealth')
      .query({ queueId: '2' })
      .set(auth)
      .expect(200);
    expect(one.body.rows.every((r: { queueName: string }) => r.queueName === 'CaseCreationWarning')).toBe(
      true,
    );
  });

  it('the stage rollup grids show their stored stageName and sort by it', async () => {
    const repo = t.app.get(DataSource).getRepository('CaseCreationStagePerformanceCounter');
    const now = new Date();
    await repo.insert(
      (['Notification', 'ExistingCasePriorityLookup', 'HttpEndpoint'] as const).map((name, i) => ({
        StageId: [3, 1, 4][i],
        StageName: name,
        TotalMicroseconds: 10 * (i + 1),
        MinMicroseconds: 1,
        MaxMicroseconds: 9,
        InvokeCount: i + 1,
        CreatedDate: now,
        Instance: 'node-a',
      })),
    );
    const res = await request(t.url)
      .get('/api/CaseCreationStagePerformanceCounter')
      .query({ sortField: 'stageName', sortDirection: 'asc' })
      .set('Authorization', `Bearer ${landlordToken}`)
      .expect(200);
    const names = (res.body as { rows: { stageName: string }[] }).rows.map((r) => r.stageName);
    expect(names).toEqual(['ExistingCasePriorityLookup', 'HttpEndpoint', 'Notification']);
    await repo.clear();
  });

  it('hostile parameters are 400 problems or harmless, never a 500, and the table survives', async () => {
    const auth = { Authorization: `Bearer ${landlordToken}` };
    const cases: [Record<string, string | string[]>, number][] = [
      [{ take: '-1' }, 200],
      [{ take: '0' }, 200],
      [{ take: '1e9' }, 200],
      [{ take: '10abc' }, 400],
      [{ take: ['1', '2'] }, 400],
      [{ sortField: 'name;DROP TABLE "ModelInvokeWarning"' }, 200],
      [{ sortField: '__proto__' }, 200],
      [{ search: '%' }, 200],
      [{ search: '_' }, 200],
      [{ search: "' OR '1'='1" }, 200],
      [{ from: '2026-02-30T00:00:00Z' }, 400],
      // No offset: UTC; anything else malformed stays a 400 naming the parameter.
      [{ from: '2026-11-22T10:00:00' }, 200],
      [{ from: '2026-11-22 10:00:00' }, 400],
      // Each valid alone, contradicting each other: a 422.
      [{ from: '2030-01-01T00:00:00Z', to: '2020-01-01T00:00:00Z' }, 422],
      [{ samplePercentage: 'NaN' }, 400],
      [{ samplePercentage: '-0' }, 200],
      [{ samplePercentage: '100.0000001' }, 200],
      [{ samplePercentage: '50%' }, 400],
      [{ entityAnalysisModelGuid: "1' OR 1=1 --" }, 400],
      // Instants every database stores (datetime2 on SQL Server: years 0001 to 9999, in UTC).
      [{ from: '0001-01-01T00:00:00Z', to: '9999-12-31T23:59:59.999Z' }, 200],
      [{ from: '0000-12-31T23:59:59Z' }, 400],
      [{ from: '0001-01-01T00:30:00+01:00' }, 400],
      [{ to: '9999-12-31T23:30:00-01:00' }, 400],
    ];
    // A + left unencoded by the client arrives as a space and is read as the offset it was.
    const raw = await request(t.url)
      .get('/api/ModelInvokeWarning?from=2026-11-22T11:00:00+01:00&take=1')
      .set(auth);
    expect(raw.status).toBe(200);
    for (const [query, status] of cases) {
      const res = await request(t.url).get('/api/ModelInvokeWarning').query(query).set(auth);
      expect({ query, status: res.status }).toEqual({ query, status });
      if (status === 400)
        expect(res.body).toMatchObject({
          status: 400,
          errors: [expect.objectContaining({ field: expect.any(String) })],
        });
    }
    expect((await request(t.url).get('/api/ModelInvokeWarning').set(auth)).body.total).toBe(5);
    // % and _ match themselves: the model name holds one of each, the messages neither
    expect(
      (await request(t.url).get('/api/ModelInvokeWarning').query({ search: '%' }).set(auth)).body.total,
    ).toBe(5);
    expect(
      (await request(t.url).get('/api/ModelInvokeWarning').query({ search: '%%' }).set(auth)).body.total,
    ).toBe(0);
    expect(
      (await request(t.url).get('/api/ModelInvokeWarning').query({ search: 'l_x' }).set(auth)).body.total,
    ).toBe(5);
    expect(
      (await request(t.url).get('/api/ModelInvokeWarning').query({ search: 'lx' }).set(auth)).body.total,
    ).toBe(0);
    // [ too (SQL Server would read [a] as "any a", and every name holds one)
    expect(
      (await request(t.url).get('/api/ModelInvokeWarning').query({ search: '[b]' }).set(auth)).body.total,
    ).toBe(5);
    expect(
      (await request(t.url).get('/api/ModelInvokeWarning').query({ search: '[a]' }).set(auth)).body.total,
    ).toBe(0);
  });

  it("audit grids: the landlord sees every row, a tenant auditor only their tenant's, never the unknown user", async () => {
    const landlordRows = (
      await request(t.url)
        .get('/api/UserLogin')
        .query({ take: '1000' })
        .set('Authorization', `Bearer ${landlordToken}`)
        .expect(200)
    ).body.rows as { createdUser: string; failureType: string }[];
    expect(landlordRows.some((r) => r.createdUser === '=cmd|calc' && r.failureType !== null)).toBe(true);
    const tenantRows = (
      await request(t.url)
        .get('/api/UserLogin')
        .query({ take: '1000' })
        .set('Authorization', `Bearer ${tenantAuditToken}`)
        .expect(200)
    ).body.rows as { createdUser: string }[];
    expect(tenantRows.some((r) => r.createdUser === tenantName)).toBe(true);
    expect(tenantRows.some((r) => r.createdUser === '=cmd|calc')).toBe(false);
    const ds = t.app.get(DataSource);
    const own = await ds.getRepository(UserLogin).count();
    expect(landlordRows.length).toBe(own);
    expect(tenantRows.length).toBeLessThan(own);
    await request(t.url).get('/api/UserLogin').set('Authorization', `Bearer ${tenantToken}`).expect(200); // has every permission
    await request(t.url).get('/api/UserLogout').set('Authorization', `Bearer ${landlordToken}`).expect(200);
  });

  it('audit grids export CSV with a header row and no formula injection', async () => {
    const auth = { Authorization: `Bearer ${landlordToken}` };
    // A cell holding the list separator of a ';' locale (German, French, Dutch Excel) must stay one cell.
    await request(t.url)
      .post('/api/Authentication/ByUserNamePassword')
      .send({ userName: 'csvy;=1+1', password: 'nope-nope-nope' })
      .expect(401);
    const res = await request(t.url)
      .get('/api/UserLogin')
      .query({ format: 'csv', take: '1000' })
      .set(auth)
      .expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    const lines = res.text.split('\r\n');
    // The byte-order mark, then the page's columns in its order with its labels (times with their zone).
    expect(lines[0]).toBe(
      '\uFEFF"When (UTC)","User name","Scheme","Failed","Failure","Message","Remote address","User agent"',
    );
    expect(res.text).toContain('"\'=cmd|calc"');
    expect(res.text).not.toMatch(/(^|,)"?=cmd/m);
    // Every text cell is quoted, and what follows a ';' cannot start a formula either; the stored
    // text is as typed.
    expect(res.text).toContain(',"csvy;\'=1+1",');
    expect(formulaCells(res.text)).toEqual([]);
    for (const separator of [',', ';'])
      for (const line of lines)
        expect({
          separator,
          cells: splitOutsideQuotes(line, separator).filter((c) => /^[=+\-@]/.test(c)),
        }).toEqual({
          separator,
          cells: [],
        });
    expect(await t.app.get(DataSource).getRepository(UserLogin).countBy({ CreatedUser: 'csvy;=1+1' })).toBe(
      1,
    );
    const accept = await request(t.url)
      .get('/api/UserLogout')
      .set(auth)
      .set('Accept', 'text/csv')
      .expect(200);
    expect(accept.headers['content-type']).toMatch(/^text\/csv/);
  });

  it('the CSV export: BOM, CRLF only, spreadsheet date-times in UTC, and a file name that says when it is capped', async () => {
    const auth = { Authorization: `Bearer ${landlordToken}` };
    const all = await request(t.url)
      .get('/api/UserLogin')
      .query({ format: 'csv' })
      .set(auth)
      .buffer(true)
      .expect(200);
    const raw = Buffer.from(all.text, 'utf8');
    expect([...raw.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(all.text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
    const total = (await request(t.url).get('/api/UserLogin').set(auth).expect(200)).body.total as number;
    // named by the grid and its window (UTC)
    expect(all.headers['content-disposition']).toMatch(
      /^attachment; filename="UserLogin_\d{4}-\d\d-\d\dT\d{4,6}Z_\d{4}-\d\d-\d\dT\d{4,6}Z\.csv"$/,
    );
    const records = all.text.split('\r\n').slice(1).filter(Boolean);
    expect(records.length).toBe(total);
    // When, first as on the page: a spreadsheet date-time in UTC
    for (const record of records) expect(record).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3},/);
    const capped = await request(t.url)
      .get('/api/UserLogin')
      .query({ format: 'csv', take: '1' })
      .set(auth)
      .expect(200);
    expect(capped.headers['content-disposition']).toMatch(
      new RegExp(`^attachment; filename="UserLogin_[\\dT-]+Z_[\\dT-]+Z-newest-1-of-${total}\\.csv"$`),
    );
    expect(capped.text.split('\r\n').filter(Boolean).length).toBe(2);
  });

  it('UserLogin failed=true is the failed attempts only, failed=false the successes; anything else a 400', async () => {
    const auth = { Authorization: `Bearer ${landlordToken}` };
    const rows = async (failed?: string) =>
      (
        await request(t.url)
          .get('/api/UserLogin')
          .query({ take: '1000', ...(failed === undefined ? {} : { failed }) })
          .set(auth)
          .expect(200)
      ).body as { rows: { failed: boolean; failureTypeId: number | null }[]; total: number };
    const [every, failed, succeeded] = [await rows(), await rows('true'), await rows('false')];
    expect(failed.total).toBeGreaterThan(0);
    expect(succeeded.total).toBeGreaterThan(0);
    expect(failed.total + succeeded.total).toBe(every.total);
    for (const r of failed.rows) expect(r.failed && r.failureTypeId !== null).toBe(true);
    for (const r of succeeded.rows) expect(r.failed).toBe(false);
    for (const value of ['yes', 'FALSE']) {
      const bad = await request(t.url).get('/api/UserLogin').query({ failed: value }).set(auth).expect(400);
      expect(bad.body.errors).toEqual([
        { field: 'failed', message: 'failed must be true or false.', code: 'not_in_enum' },
      ]);
    }
  });

  it('GET /api/<Grid>/Series: the landlord gets the whole window per bucket, anyone else 403', async () => {
    for (const grid of TELEMETRY) {
      const res = await request(t.url)
        .get(`/api/${grid}/Series`)
        .query({ buckets: '12' })
        .set('Authorization', `Bearer ${landlordToken}`)
        .expect(200);
      expect(res.body).toMatchObject({ bucketMilliseconds: expect.any(Number), series: expect.any(Array) });
      const total = (
        await request(t.url).get(`/api/${grid}`).set('Authorization', `Bearer ${landlordToken}`).expect(200)
      ).body.total as number;
      const counted = (res.body.series as { points: { count: number }[] }[])
        .flatMap((l) => l.points)
        .reduce((n, p) => n + p.count, 0);
      expect([grid, counted]).toEqual([grid, total]);
      await request(t.url)
        .get(`/api/${grid}/Series`)
        .set('Authorization', `Bearer ${tenantToken}`)
        .expect(403);
    }
    const bad = await request(t.url)
      .get('/api/CaptureQueueHealth/Series')
      .query({ buckets: '0' })
      .set('Authorization', `Bearer ${landlordToken}`)
      .expect(400);
    expect(bad.body.errors[0].field).toBe('buckets');
  });
});
