import request from 'supertest';
import { DataSource } from 'typeorm';
import { Permission } from '@app/access';
import { createUser, landlordActor } from '../factories/identity.factory';
import { signIn } from '../support/auth';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * UserLogin and UserLogout are never purged, so their ids are 64-bit on every
 * dialect, and stay JSON numbers in the API and plain digits in the CSV.
 */
describe('audit row ids beyond 2^31 (PostgreSQL)', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startTestApp('postgres');
    const auditor = await createUser(t.app, {
      tenantGuid: (await landlordActor(t.app)).tenantGuid,
      permissions: [Permission.ReadSecurityAudit],
    });
    token = (await signIn(t.url, auditor.name, auditor.password)).token;
    const ds = t.app.get(DataSource);
    for (const table of ['UserLogin', 'UserLogout'])
      await ds.query(`SELECT setval('"${table}_Id_seq"', 3000000000)`);
  });
  afterAll(() => t.close());

  it('a failed sign-in and a logout without a session are recorded, and read back as numbers', async () => {
    await request(t.url)
      .post('/api/Authentication/ByUserNamePassword')
      .send({ userName: 'big-id-probe', password: 'x' })
      .expect(401);
    await request(t.url).post('/api/Authentication/Logout').set('X-Forwarded-For', '192.0.2.77').expect(200);
    const logins = await request(t.url)
      .get('/api/UserLogin')
      .query({ search: 'big-id-probe' })
      .set('Authorization', `Bearer ${token}`)
      .expect(200);
    expect(logins.body.rows).toEqual([
      expect.objectContaining({ id: 3000000001, createdUser: 'big-id-probe' }),
    ]);
    const logouts = await request(t.url)
      .get('/api/UserLogout')
      .set('Authorization', `Bearer ${token}`)
      .expect(200);
    expect(logouts.body.rows[0].id).toBe(3000000001);
    const csv = await request(t.url)
      .get('/api/UserLogin')
      .query({ search: 'big-id-probe', format: 'csv' })
      .set('Authorization', `Bearer ${token}`)
      .expect(200);
    // the export holds the page's columns (no id): the probe's row, once
    expect(csv.text.trimEnd().split('\r\n').slice(1)).toEqual([expect.stringContaining('"big-id-probe"')]);
  });
});
