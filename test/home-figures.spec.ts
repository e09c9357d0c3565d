import request from 'supertest';
import { DataSource } from 'typeorm';
import { Permission } from '@app/access';
import { createUser, landlordActor } from './factories/identity.factory';
import { signIn } from './support/auth';
import { TEST_PROVIDERS } from './support/databases';
import { startTestApp, TestApp } from './support/test-app';

/**
 * What the console's home page reads beside the grids (issue 51, item 7): a stage rollup's invocations per
 * bucket (Series with measure=invokeCount) and the active sessions of the caller's tenant.
 */
describe.each(TEST_PROVIDERS)('the home page’s figures over HTTP on %s', (provider) => {
  let t: TestApp;
  let landlordToken: string;

  beforeAll(async () => {
    t = await startTestApp(provider, { CaptureQueueFlushIntervalMilliseconds: '3600000' });
    const landlordUser = await createUser(t.app, {
      tenantGuid: (await landlordActor(t.app)).tenantGuid,
      permissions: [Permission.ReadWriteSecurityUser],
    });
    landlordToken = (await signIn(t.url, landlordUser.name, landlordUser.password)).token;
  }, 60_000);
  afterAll(() => t?.close());

  it('Series with measure=invokeCount: each bucket sums the invocations, adding up to the statistics; other measures are 400', async () => {
    const repo = t.app.get(DataSource).getRepository('CaseCreationStagePerformanceCounter');
    const now = Date.now();
    await repo.insert(
      [7, 11, 13].map((invokeCount, i) => ({
        StageId: 1,
        StageName: 'ExistingCasePriorityLookup',
        TotalMicroseconds: 1_000,
        MinMicroseconds: 1,
        MaxMicroseconds: 9,
        InvokeCount: invokeCount,
        CreatedDate: new Date(now - (i * 20 + 1) * 60_000),
        Instance: 'node-a',
      })),
    );
    const auth = { Authorization: `Bearer ${landlordToken}` };
    const series = await request(t.url)
      .get('/api/CaseCreationStagePerformanceCounter/Series')
      .query({ buckets: '6', stageId: '1', measure: 'invokeCount' })
      .set(auth)
      .expect(200);
    expect(series.body.measure).toBe('invokeCount');
    const points = (series.body.series as { points: { sum: number; max: number }[] }[]).flatMap(
      (l) => l.points,
    );
    expect(points.reduce((n, p) => n + p.sum, 0)).toBe(31);
    expect(Math.max(...points.map((p) => p.max))).toBe(13);
    const grid = await request(t.url)
      .get('/api/CaseCreationStagePerformanceCounter')
      .query({ stageId: '1', take: '1' })
      .set(auth)
      .expect(200);
    const s = grid.body.statistics.invokeCount as { count: number; mean: number };
    expect(Math.round(s.mean * s.count)).toBe(31);
    // the default measure is still the total time
    const byDefault = await request(t.url)
      .get('/api/CaseCreationStagePerformanceCounter/Series')
      .query({ stageId: '1' })
      .set(auth)
      .expect(200);
    expect(byDefault.body.measure).toBe('totalMicroseconds');
    for (const [name, measure] of [
      ['CaseCreationStagePerformanceCounter', 'instance'],
      ['CaseCreationStagePerformanceCounter', 'InvokeCount;DROP TABLE "Case"'],
      ['CaptureQueueHealth', 'droppedCount'],
    ]) {
      const bad = await request(t.url).get(`/api/${name}/Series`).query({ measure }).set(auth).expect(400);
      expect([name, bad.body.errors[0].field]).toEqual([name, 'measure']);
    }
    expect(await repo.count()).toBe(3);
  });

  it("GET /api/ActiveSessions: the users of the caller's tenant signed in and not cut; the landlord's: every tenant", async () => {
    const tenantAdmin = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
    const colleague = await createUser(t.app, { tenantGuid: tenantAdmin.tenantGuid });
    const reader = await createUser(t.app, {
      tenantGuid: tenantAdmin.tenantGuid,
      permissions: [Permission.ReadSecurityAudit],
    });
    const count = async (token: string) =>
      (await request(t.url).get('/api/ActiveSessions').set('Authorization', `Bearer ${token}`).expect(200))
        .body.count as number;
    const landlordBefore = await count(landlordToken);
    const admin = (await signIn(t.url, tenantAdmin.name, tenantAdmin.password)).token;
    expect(await count(admin)).toBe(1);
    await signIn(t.url, colleague.name, colleague.password);
    expect(await count(admin)).toBe(2);
    // the landlord counts every tenant's sessions
    expect(await count(landlordToken)).toBe(landlordBefore + 2);
    await request(t.url)
      .post(`/api/UserRegistry/RevokeTokens/${colleague.guid}`)
      .set('Authorization', `Bearer ${admin}`)
      .expect(204);
    expect(await count(admin)).toBe(1);
    expect(await count(landlordToken)).toBe(landlordBefore + 1);
    // a user without the right is refused, an anonymous caller too
    const readerToken = (await signIn(t.url, reader.name, reader.password)).token;
    await request(t.url).get('/api/ActiveSessions').set('Authorization', `Bearer ${readerToken}`).expect(403);
    await request(t.url).get('/api/ActiveSessions').expect(401);
  });
});
