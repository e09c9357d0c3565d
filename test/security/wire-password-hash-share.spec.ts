import request from 'supertest';
import { DataSource, IsNull } from 'typeorm';
import { UserRegistry, UserService } from '@app/identity';
import { createUser, landlordActor } from '../factories/identity.factory';
import { createPostgresDatabase, TEST_PROVIDERS } from '../support/databases';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The WirePasswordHash answer for an unknown name must look like a real user's at
 * every moment, on every node and across restarts: after any flag change the share of `true` among 400
 * unknown names stays within the statistical range of the share of flagged users; each name answers the
 * same every time while the share stays; an explicit WirePasswordHashUnknownPercent stays fixed.
 */
jest.setTimeout(180_000);

const NAMES = Array.from({ length: 400 }, (_, i) => `nobody-${i}`);

const ask = async (t: TestApp, userName: string): Promise<boolean> =>
  (await request(t.url).post('/api/Authentication/WirePasswordHash').send({ userName }).expect(200)).body
    .wirePasswordHash as boolean;

const askAll = async (t: TestApp): Promise<boolean[]> => {
  const out: boolean[] = [];
  for (let i = 0; i < NAMES.length; i += 50)
    out.push(...(await Promise.all(NAMES.slice(i, i + 50).map((n) => ask(t, n)))));
  return out;
};

/** The share of live users with the flag, from the database. */
async function realShare(t: TestApp): Promise<number> {
  const users = t.app.get(DataSource).getRepository(UserRegistry);
  const all = await users.count({ where: { DeletedDate: IsNull() } });
  const flagged = await users.count({ where: { DeletedDate: IsNull(), WirePasswordHash: true } });
  return flagged / all;
}

/** `trues` of NAMES.length draws at `share`: within four standard deviations (and one draw) of the mean. */
function expectPlausible(trues: number, share: number): void {
  const n = NAMES.length;
  const spread = 4 * Math.sqrt(n * share * (1 - share)) + 1;
  const plausible = Math.abs(trues - n * share) <= spread;
  expect({ trues, share, plausible }).toEqual({ trues, share, plausible: true });
}

async function setFlag(t: TestApp, guid: string, flag: boolean): Promise<void> {
  await t.app.get(UserService).resetPassword(await landlordActor(t.app), guid, {
    password: flag ? 'b'.repeat(64) : 'A-Plain-Long-Password-1',
    passwordExpired: false,
    wirePasswordHash: flag,
  });
}

describe.each(TEST_PROVIDERS)('the unknown-name share follows the flagged users (%s)', (provider) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(provider);
  });
  afterAll(() => t.close());

  it('after flags change, unknown names answer true at the real share; flagged names answer true', async () => {
    const users = [];
    for (let i = 0; i < 7; i++) users.push(await createUser(t.app));
    // The first ask after the start (when the share used to be counted, once):
    expect(await ask(t, 'first-ask-after-start')).toBe(false);
    for (const u of users.slice(0, 3)) await setFlag(t, u.guid, true);
    for (const u of users.slice(0, 3)) expect(await ask(t, u.name)).toBe(true);
    const share = await realShare(t);
    expect(share).toBeGreaterThan(0.2);
    const answers = await askAll(t);
    expectPlausible(answers.filter(Boolean).length, share);
    // The same answer every time while the share stays.
    expect(await askAll(t)).toEqual(answers);
    // Every flag taken away: no unknown name may say true any more.
    for (const u of users.slice(0, 3)) await setFlag(t, u.guid, false);
    expect((await askAll(t)).filter(Boolean).length).toBe(0);
  });
});

describe('every node and a restarted node answer alike (PostgreSQL)', () => {
  it('a flag changed on node A moves the share on node B, and on a node started afterwards', async () => {
    const connectionString = await createPostgresDatabase();
    const a = await startTestApp('postgres', { InstanceName: 'node-a' }, { connectionString });
    let b = await startTestApp('postgres', { InstanceName: 'node-b' }, { connectionString });
    try {
      const users = [];
      for (let i = 0; i < 5; i++) users.push(await createUser(a.app));
      expect(await ask(b, 'first-ask-on-b')).toBe(false);
      for (const u of users.slice(0, 2)) await setFlag(a, u.guid, true);
      const onA = await askAll(a);
      expectPlausible(onA.filter(Boolean).length, await realShare(a));
      expect(await askAll(b)).toEqual(onA);
      await b.close();
      b = await startTestApp('postgres', { InstanceName: 'node-b' }, { connectionString });
      expect(await askAll(b)).toEqual(onA);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('an explicit WirePasswordHashUnknownPercent stays fixed', () => {
  it('flag changes do not move it', async () => {
    const t = await startTestApp('sqlite', { WirePasswordHashUnknownPercent: '50' });
    try {
      const before = await askAll(t);
      expectPlausible(before.filter(Boolean).length, 0.5);
      const u = await createUser(t.app);
      await setFlag(t, u.guid, true);
      expect(await askAll(t)).toEqual(before);
    } finally {
      await t.close();
    }
  });
});
