import request from 'supertest';
import { DataSource } from 'typeorm';
import { FailureType, UserLogin } from '@app/audit';
import { ManualClock } from '@app/runtime';
import { Permission } from '@app/access';
import { UserRegistry } from '@app/identity';
import { createUser, CreatedUser } from '../factories/identity.factory';
import { logoutRows, signIn } from '../support/auth';
import { TEST_PROVIDERS } from '../support/databases';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The automatic password lock (docs/SECURITY.md, "The password lock"): more than PasswordAttempts consecutive
 * wrong passwords stop new password sign-ins only. A session signed in before the lock keeps working (a
 * stranger's guesses log nobody out); the lock lifts by itself after PasswordLockoutMilliseconds, twice as long
 * for each consecutive lock up to PasswordLockoutMaximumMilliseconds; an administrator's Unlock lifts it at once.
 * The lockout is one conditional statement: 50 concurrent wrong passwords lock once, with the lock's end
 * computed in that statement.
 */
const FIRST_MS = 60_000;
const MAXIMUM_MS = 200_000;
const STRESS = 50;
jest.setTimeout(240_000);

describe.each(TEST_PROVIDERS)('the password lock stops new sign-ins only, and lifts (%s)', (provider) => {
  let t: TestApp;
  let clock: ManualClock;
  let admin: CreatedUser;
  let adminToken: string;
  beforeAll(async () => {
    clock = new ManualClock(Date.now());
    t = await startTestApp(
      provider,
      {
        PasswordLockoutMilliseconds: String(FIRST_MS),
        PasswordLockoutMaximumMilliseconds: String(MAXIMUM_MS),
      },
      { clock },
    );
    admin = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityUser] });
  });
  afterAll(() => t.close());
  // the clock moves by minutes: a fresh administrator's session for each test (a token lasts 15 minutes)
  beforeEach(async () => {
    adminToken = (await signIn(t.url, admin.name, admin.password)).token;
  });

  const row = (guid: string) =>
    t.app.get(DataSource).getRepository(UserRegistry).findOneByOrFail({ Guid: guid });
  const user = () => createUser(t.app, { tenantGuid: admin.tenantGuid });
  const attempt = (name: string, password: string) =>
    request(t.url).post('/api/Authentication/ByUserNamePassword').send({ userName: name, password });
  const wrongTimes = async (name: string, n: number) => {
    for (let i = 0; i < n; i++) await attempt(name, 'not-the-password-x').expect(401);
  };
  const session = (token: string) =>
    request(t.url).get('/api/Authentication/Session').set('Authorization', `Bearer ${token}`);
  const asAdmin = (method: 'get' | 'post', path: string) =>
    request(t.url)[method](path).set('Authorization', `Bearer ${adminToken}`);
  const lockLength = async (guid: string) => {
    const r = await row(guid);
    expect(r.PasswordLocked).toBe(true);
    return r.PasswordLockedUntil!.getTime() - r.PasswordLockedDate!.getTime();
  };

  it("a stranger's four wrong passwords neither end nor hide a session signed in before them", async () => {
    const u = await user();
    const old = (await signIn(t.url, u.name, u.password)).token;
    const before = await row(u.guid);
    await wrongTimes(u.name, 4);
    const locked = await row(u.guid);
    expect(locked.PasswordLocked).toBe(true);
    expect(locked.TokensValidFrom?.getTime()).toBe(before.TokensValidFrom?.getTime());
    await session(old).expect(200);
    expect(await logoutRows(t.app, u.name)).toEqual([]);
    // a new password sign-in is refused while it lasts, as PasswordLocked (spec: FailureTypeId 3)
    await attempt(u.name, u.password).expect(401);
    const rows = await t.app
      .get(DataSource)
      .getRepository(UserLogin)
      .find({ where: { CreatedUser: u.name }, order: { Id: 'DESC' }, take: 1 });
    expect(rows[0].FailureTypeId).toBe(FailureType.PasswordLocked);
    const { body } = await asAdmin('get', `/api/UserRegistry/${u.guid}`).expect(200);
    expect(body).toMatchObject({
      passwordLocked: true,
      passwordLockedUntil: new Date(clock.now() + FIRST_MS).toISOString(),
    });
  });

  it('lifts by itself after PasswordLockoutMilliseconds, twice as long each consecutive time, up to the cap; a success starts again', async () => {
    const u = await user();
    const lengths: number[] = [];
    for (let lock = 0; lock < 4; lock++) {
      await wrongTimes(u.name, 4);
      const length = await lockLength(u.guid);
      lengths.push(length);
      clock.advance(length - 1);
      await attempt(u.name, u.password).expect(401); // a millisecond early: still locked
      clock.advance(1);
      const { body } = await asAdmin('get', `/api/UserRegistry/${u.guid}`).expect(200);
      expect(body).toMatchObject({
        passwordLocked: false,
        passwordLockedUntil: null,
        failedPasswordCount: 0,
      });
    }
    expect(lengths).toEqual([FIRST_MS, 2 * FIRST_MS, MAXIMUM_MS, MAXIMUM_MS]);
    // the lock lifted, the right password signs in, and the next lock is a first one again
    await signIn(t.url, u.name, u.password);
    expect((await row(u.guid)).PasswordLockCount).toBe(0);
    await wrongTimes(u.name, 4);
    expect(await lockLength(u.guid)).toBe(FIRST_MS);
  });

  it("an administrator's Unlock lifts it at once and ends nothing; the next lock is a first one again", async () => {
    const u = await user();
    const old = (await signIn(t.url, u.name, u.password)).token;
    await wrongTimes(u.name, 4);
    clock.advance(FIRST_MS); // a second, longer lock
    await wrongTimes(u.name, 4);
    expect(await lockLength(u.guid)).toBe(2 * FIRST_MS);
    const { body } = await asAdmin('post', `/api/UserRegistry/${u.guid}/Unlock`).expect(200);
    expect(body).toMatchObject({ passwordLocked: false, failedPasswordCount: 0, passwordLockedUntil: null });
    await session(old).expect(200);
    expect(await logoutRows(t.app, u.name)).toEqual([]);
    await signIn(t.url, u.name, u.password);
    await wrongTimes(u.name, 4);
    expect(await lockLength(u.guid)).toBe(FIRST_MS);
  });

  it('a lock written before locks lifted by themselves (no PasswordLockedUntil) stays until Unlock', async () => {
    const u = await user();
    await t.app
      .get(DataSource)
      .getRepository(UserRegistry)
      .update({ Guid: u.guid }, { PasswordLocked: true, PasswordLockedDate: new Date(clock.now()) });
    clock.advance(10 * MAXIMUM_MS);
    await attempt(u.name, u.password).expect(401);
    await wrongTimes(u.name, 2);
    expect((await row(u.guid)).FailedPasswordCount).toBe(0); // nothing counted while locked
    adminToken = (await signIn(t.url, admin.name, admin.password)).token;
    await asAdmin('post', `/api/UserRegistry/${u.guid}/Unlock`).expect(200);
    await signIn(t.url, u.name, u.password);
  });

  it('Revoke Sessions and a deactivation still end the session of a locked user', async () => {
    for (const cut of [
      (guid: string) => asAdmin('post', `/api/UserRegistry/RevokeTokens/${guid}`).expect(204),
      (guid: string) => asAdmin('post', `/api/UserRegistry/${guid}/Deactivate`).expect(200),
    ]) {
      const u = await user();
      const old = (await signIn(t.url, u.name, u.password)).token;
      await wrongTimes(u.name, 4);
      await session(old).expect(200);
      clock.advance(1); // the manual clock stands still: the cut comes after the sign-in, as it would
      await cut(u.guid);
      await session(old).expect(401);
    }
  });

  it(`stress: ${STRESS} concurrent wrong passwords lock once, the lock's end computed once; again after it lifts`, async () => {
    const u = await user();
    const rowsOf = async (type: FailureType) =>
      t.app
        .get(DataSource)
        .getRepository(UserLogin)
        .count({ where: { CreatedUser: u.name, FailureTypeId: type } });
    for (const [lock, expected] of [
      [1, FIRST_MS],
      [2, 2 * FIRST_MS],
    ] as const) {
      const answers = await Promise.all(
        Array.from({ length: STRESS }, () => attempt(u.name, 'not-the-password-x')),
      );
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 401));
      const r = await row(u.guid);
      expect(r.PasswordLockCount).toBe(lock);
      expect(r.FailedPasswordCount).toBe(4);
      expect(r.PasswordLockedUntil!.getTime() - r.PasswordLockedDate!.getTime()).toBe(expected);
      expect(r.PasswordLockedDate!.getTime()).toBe(clock.now());
      // four counted (the fourth locked), every later one found the lock in force
      expect(await rowsOf(FailureType.WrongPassword)).toBe(4 * lock);
      expect(await rowsOf(FailureType.PasswordLocked)).toBe((STRESS - 4) * lock);
      clock.advance(expected);
    }
  });
});
