import request from 'supertest';
import { DataSource } from 'typeorm';
import { UserLogin } from '@app/audit';
import { Permission } from '@app/access';
import { READ_BATCH } from '@app/grid';
import { createUser, landlordActor } from '../factories/identity.factory';
import { signIn } from '../support/auth';
import { formulaCells } from '../support/csv-readings';
import { TEST_PROVIDERS } from '../support/databases';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * A CSV export of an audit grid is the whole filtered window (up to the
 * grid's 100 000 rows) unless `take` is given, read in keyset batches: rows that share a time across a batch
 * boundary are neither lost nor repeated.
 */
describe.each(TEST_PROVIDERS)('CSV export of UserLogin (%s)', (provider) => {
  let t: TestApp;
  let token: string;
  const ROWS = READ_BATCH * 2 + 500;
  beforeAll(async () => {
    t = await startTestApp(provider);
    const auditor = await createUser(t.app, {
      tenantGuid: (await landlordActor(t.app)).tenantGuid,
      permissions: [Permission.ReadSecurityAudit],
    });
    token = (await signIn(t.url, auditor.name, auditor.password)).token;
    // Ten rows to each millisecond: ties on the time column at every batch boundary.
    const base = Date.now() - 60_000;
    const rows = Array.from({ length: ROWS }, (_, i) => ({
      CreatedUser: `csv-export-${i}`,
      TenantRegistryId: null,
      RemoteIp: '192.0.2.1',
      LocalIp: null,
      UserAgent: 'csv',
      AuthenticationTypeId: 1,
      Failed: true,
      FailureTypeId: 1,
      FailureMessage: null,
      CreatedDate: new Date(base + Math.floor(i / 10)),
    }));
    const repo = t.app.get(DataSource).getRepository(UserLogin);
    for (let i = 0; i < rows.length; i += 500) await repo.insert(rows.slice(i, i + 500));
  });
  afterAll(() => t.close());

  const csv = (query: Record<string, string>) =>
    request(t.url)
      .get('/api/UserLogin')
      .query({ format: 'csv', search: 'csv-export-', ...query })
      .set('Authorization', `Bearer ${token}`);

  it('without take: every row of the window, once each, newest first', async () => {
    const res = await csv({}).expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    const lines = res.text.trimEnd().split('\r\n');
    // the byte-order mark, then the page's labels in the page's order
    expect(lines[0].split(',').slice(0, 2)).toEqual(['\uFEFF"When (UTC)"', '"User name"']);
    const cells = lines.slice(1).map((l) => l.split(',').map((c) => c.replace(/"/g, '')));
    // every row once (each was made with its own user name), newest first
    expect(cells).toHaveLength(ROWS);
    expect(new Set(cells.map((c) => c[1])).size).toBe(ROWS);
    const times = cells.map((c) => c[0]);
    expect(times).toEqual([...times].sort().reverse());
  });

  it('with take: that many rows', async () => {
    const res = await csv({ take: '10' }).expect(200);
    expect(res.text.trimEnd().split('\r\n')).toHaveLength(11);
  });

  it('a user name that starts a formula after a separator is neutralised for every reader', async () => {
    const names = [
      ';=1+1 formula',
      ' =1+1 formula',
      'x;"=1+1" formula',
      'x,\t@SUM(A1) formula',
      'x\n-1 formula',
    ];
    await t.app
      .get(DataSource)
      .getRepository(UserLogin)
      .insert(
        names.map((CreatedUser) => ({
          CreatedUser,
          TenantRegistryId: null,
          RemoteIp: '192.0.2.1',
          LocalIp: null,
          UserAgent: ';=cmd|/c calc',
          AuthenticationTypeId: 1,
          Failed: true,
          FailureTypeId: 1,
          FailureMessage: null,
          CreatedDate: new Date(),
        })),
      );
    const res = await csv({ search: 'formula' }).expect(200);
    expect(res.text.split('\r\n').length).toBeGreaterThan(names.length);
    expect(formulaCells(res.text)).toEqual([]);
  });

  it('a bad parameter is still a 400 problem, not a broken download', async () => {
    const res = await csv({ from: 'yesterday' }).expect(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});
