import request from 'supertest';
import { DataSource } from 'typeorm';
import { AdminEvents } from '@app/audit';
import { Permission } from '@app/access';
import { PasswordHasher, TenantRegistry, UserRegistry } from '@app/identity';
// The repository itself (not exported by the feature): the gate holds an edit between its read and its write.
import { IdentityRepository } from '../../libs/identity/src/identity.repository';
import { createUser, CreatedUser, landlordActor } from '../factories/identity.factory';
import { signIn } from '../support/auth';
import { TEST_PROVIDERS, TestProvider } from '../support/databases';
import { startTestApp, TestApp } from '../support/test-app';
import { gateAfter, gateBefore, openGates } from './gate';

/**
 * A revocation, a logout, a lockout or a tenant deletion must never be undone
 * by an administrator's concurrent edit of the same row, and a password reset must end every session that
 * the old password started. Each race in two forms: a deterministic one (a one-shot gate holds the edit
 * between its read and its write) and a stress run of 50 concurrent attempts.
 */
const STRESS = 50;
// Each stress run is some hundred Argon2 verifications: room for a loaded 2-core machine.
jest.setTimeout(240_000);

interface Fixture {
  t: TestApp;
  admin: CreatedUser;
  adminToken: string;
}

async function fixture(provider: TestProvider): Promise<Fixture> {
  const t = await startTestApp(provider);
  // A landlord administrator: tenants are managed by the landlord only.
  const admin = await createUser(t.app, {
    permissions: [Permission.ReadWriteSecurityUser, Permission.ReadWriteTenant],
    tenantGuid: (await landlordActor(t.app)).tenantGuid,
  });
  const adminToken = (await signIn(t.url, admin.name, admin.password)).token;
  return { t, admin, adminToken };
}

const session = (f: Fixture, token: string) =>
  request(f.t.url).get('/api/Authentication/Session').set('Authorization', `Bearer ${token}`);

const putUser = (f: Fixture, guid: string, body: object) =>
  request(f.t.url).put(`/api/UserRegistry/${guid}`).set('Authorization', `Bearer ${f.adminToken}`).send(body);

const revoke = (f: Fixture, guid: string) =>
  request(f.t.url)
    .post(`/api/UserRegistry/RevokeTokens/${guid}`)
    .set('Authorization', `Bearer ${f.adminToken}`);

// A test that fails while its gate holds a request would leave it held, and the app's close waiting on it.
afterEach(openGates);

describe.each(TEST_PROVIDERS)('concurrent administration never undoes a revocation (%s)', (provider) => {
  let f: Fixture;
  beforeAll(async () => {
    f = await fixture(provider);
  });
  afterAll(() => f.t.close());

  it('deterministic: Revoke Sessions while an edit of the user is between its read and its write', async () => {
    const user = await createUser(f.t.app, { tenantGuid: f.admin.tenantGuid });
    const old = (await signIn(f.t.url, user.name, user.password)).token;
    const gate = gateAfter(f.t.app.get(IdentityRepository), 'findUserByGuid');
    const edit = putUser(f, user.guid, { email: 'edited@example.com' }).then((r) => r);
    await gate.reached;
    await revoke(f, user.guid).expect(204);
    await session(f, old).expect(401);
    gate.open();
    expect((await edit).status).toBe(200);
    await session(f, old).expect(401);
  });

  it('deterministic: a lockout while an edit of the user is between its read and its write', async () => {
    const user = await createUser(f.t.app, { tenantGuid: f.admin.tenantGuid });
    const gate = gateAfter(f.t.app.get(IdentityRepository), 'findUserByGuid');
    const edit = putUser(f, user.guid, { email: 'edited@example.com' }).then((r) => r);
    await gate.reached;
    for (let i = 0; i < 4; i++)
      await request(f.t.url)
        .post('/api/Authentication/ByUserNamePassword')
        .send({ userName: user.name, password: 'wrong-password-x' })
        .expect(401);
    gate.open();
    expect((await edit).status).toBe(200);
    const row = await f.t.app
      .get(DataSource)
      .getRepository(UserRegistry)
      .findOneByOrFail({ Guid: user.guid });
    expect(row.PasswordLocked).toBe(true);
    expect(row.Email).toBe('edited@example.com');
  });

  it('deterministic: a tenant deletion while an edit of the tenant is between its read and its write', async () => {
    const user = await createUser(f.t.app);
    const token = (await signIn(f.t.url, user.name, user.password)).token;
    const gate = gateAfter(f.t.app.get(IdentityRepository), 'findTenantByGuid');
    const edit = request(f.t.url)
      .put(`/api/TenantRegistry/${user.tenantGuid}`)
      .set('Authorization', `Bearer ${f.adminToken}`)
      .send({ name: 'Renamed tenant' })
      .then((r) => r);
    await gate.reached;
    await request(f.t.url)
      .delete(`/api/TenantRegistry/${user.tenantGuid}`)
      .set('Authorization', `Bearer ${f.adminToken}`)
      .expect(204);
    gate.open();
    expect([200, 404]).toContain((await edit).status);
    const tenant = await f.t.app
      .get(DataSource)
      .getRepository(TenantRegistry)
      .findOneByOrFail({ Guid: user.tenantGuid });
    expect(tenant.DeletedDate).not.toBeNull();
    // The tenant stays deleted: its users' sessions end, and they cannot sign in.
    await session(f, token).expect(401);
    await request(f.t.url)
      .post('/api/Authentication/ByUserNamePassword')
      .send({ userName: user.name, password: user.password })
      .expect(401);
  });

  it(`stress: ${STRESS} revocations racing edits; every revoked token is refused afterwards`, async () => {
    const user = await createUser(f.t.app, { tenantGuid: f.admin.tenantGuid });
    let undone = 0;
    for (let i = 0; i < STRESS; i++) {
      const token = (await signIn(f.t.url, user.name, user.password)).token;
      const [edit, cut] = await Promise.all([
        putUser(f, user.guid, { email: `e${i}@example.com` }),
        revoke(f, user.guid),
      ]);
      expect(edit.status).toBe(200);
      expect(cut.status).toBe(204);
      if ((await session(f, token)).status !== 401) undone++;
    }
    expect(undone).toBe(0);
  });

  it(`stress: ${STRESS} lockouts racing edits; every locked account stays locked`, async () => {
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
    let undone = 0;
    const user = await createUser(f.t.app, { tenantGuid: f.admin.tenantGuid });
    for (let i = 0; i < STRESS; i++) {
      await request(f.t.url)
        .post(`/api/UserRegistry/${user.guid}/Unlock`)
        .set('Authorization', `Bearer ${f.adminToken}`)
        .expect(200);
      const wrong = () =>
        request(f.t.url)
          .post('/api/Authentication/ByUserNamePassword')
          .send({ userName: user.name, password: 'wrong-password-x' });
      for (let n = 0; n < 3; n++) await wrong().expect(401);
      // The fourth failure locks after its Argon2 verification; edits spread over that time race its UPDATE.
      const [, ...edits] = await Promise.all([
        wrong(),
        ...[0, 4, 8, 12, 16, 20, 24, 28, 32, 36].map((ms) =>
          pause(ms).then(() => putUser(f, user.guid, { email: `k${i}-${ms}@example.com` })),
        ),
      ]);
      for (const edit of edits) expect(edit.status).toBe(200);
      const row = await f.t.app
        .get(DataSource)
        .getRepository(UserRegistry)
        .findOneByOrFail({ Guid: user.guid });
      if (!row.PasswordLocked) undone++;
    }
    expect(undone).toBe(0);
  });

  it(`stress: ${STRESS} logouts racing edits; every logged-out token is refused afterwards`, async () => {
    const user = await createUser(f.t.app, { tenantGuid: f.admin.tenantGuid });
    let undone = 0;
    for (let i = 0; i < STRESS; i++) {
      const token = (await signIn(f.t.url, user.name, user.password)).token;
      const [edit, out] = await Promise.all([
        putUser(f, user.guid, { email: `l${i}@example.com` }),
        request(f.t.url).post('/api/Authentication/Logout').set('Authorization', `Bearer ${token}`),
      ]);
      expect(edit.status).toBe(200);
      expect(out.status).toBe(200);
      if ((await session(f, token)).status !== 401) undone++;
    }
    expect(undone).toBe(0);
  });
});

describe.each(TEST_PROVIDERS)(
  'an administrator password reset ends every old-password session (%s)',
  (provider) => {
    let f: Fixture;
    beforeAll(async () => {
      f = await fixture(provider);
    });
    afterAll(() => f.t.close());

    const reset = (guid: string, password: string) =>
      request(f.t.url)
        .post(`/api/UserRegistry/${guid}/ResetPassword`)
        .set('Authorization', `Bearer ${f.adminToken}`)
        .send({ password, passwordExpired: false });

    it('deterministic: a sign-in with the old password completing while the new one is being hashed', async () => {
      const user = await createUser(f.t.app, { tenantGuid: f.admin.tenantGuid });
      const gate = gateAfter(f.t.app.get(PasswordHasher), 'hash');
      const resetting = reset(user.guid, 'A-Brand-New-Password-1').then((r) => r);
      await gate.reached;
      const old = (await signIn(f.t.url, user.name, user.password)).token;
      gate.open();
      expect((await resetting).status).toBe(200);
      await session(f, old).expect(401);
    });

    it('deterministic: a sign-in with the old password completing between the reset taking its instant and writing', async () => {
      const user = await createUser(f.t.app, { tenantGuid: f.admin.tenantGuid });
      // The reset has taken its instant and not yet begun its transaction (its write with its audit row): on
      // SQLite the transaction would hold the one connection, and the sign-in could not complete meanwhile.
      const gate = gateBefore(f.t.app.get(AdminEvents), 'applied');
      const resetting = reset(user.guid, 'Another-New-Password-2').then((r) => r);
      await gate.reached;
      // Argon2 makes this sign-in finish later than the reset took its instant.
      const old = (await signIn(f.t.url, user.name, user.password)).token;
      gate.open();
      expect((await resetting).status).toBe(200);
      await session(f, old).expect(401);
      await signIn(f.t.url, user.name, 'Another-New-Password-2');
    });

    it(`stress: ${STRESS} resets racing sign-ins with the old password; no old-password session survives`, async () => {
      const user = await createUser(f.t.app, { tenantGuid: f.admin.tenantGuid });
      let password = user.password;
      let survived = 0;
      for (let i = 0; i < STRESS; i++) {
        const next = `Reset-Password-Number-${i}`;
        const [signedIn, done] = await Promise.all([
          request(f.t.url)
            .post('/api/Authentication/ByUserNamePassword')
            .send({ userName: user.name, password }),
          reset(user.guid, next),
        ]);
        expect(done.status).toBe(200);
        if (signedIn.status === 200 && (await session(f, signedIn.body.token as string)).status !== 401)
          survived++;
        password = next;
      }
      expect(survived).toBe(0);
    });
  },
);
