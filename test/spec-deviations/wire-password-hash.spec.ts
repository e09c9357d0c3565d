import request from 'supertest';
import { DataSource } from 'typeorm';
import { Permission } from '@app/access';
import { BootstrapService, UserRegistry, wirePasswordHashOf } from '@app/identity';
import { Logger } from '@nestjs/common';
import { createUser, CreatedUser, landlordActor } from '../factories/identity.factory';
import { signIn } from '../support/auth';
import { TEST_PROVIDERS } from '../support/databases';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The WirePasswordHash flag changes only together with a password, and the
 * hashed user name is the normalised one, so a user typing their name in another letter case signs in.
 */
describe.each(TEST_PROVIDERS)('WirePasswordHash (%s)', (provider) => {
  let t: TestApp;
  let admin: CreatedUser;
  let token: string;
  beforeAll(async () => {
    t = await startTestApp(provider);
    admin = await createUser(t.app, {
      tenantGuid: (await landlordActor(t.app)).tenantGuid,
      permissions: [Permission.ReadWriteSecurityUser],
    });
    token = (await signIn(t.url, admin.name, admin.password)).token;
  });
  afterAll(() => t.close());

  const flag = async (guid: string) =>
    (await t.app.get(DataSource).getRepository(UserRegistry).findOneByOrFail({ Guid: guid }))
      .WirePasswordHash;

  it('PUT cannot flip the flag without a password: a 400 naming the field, nothing changed', async () => {
    const u = await createUser(t.app, { tenantGuid: admin.tenantGuid });
    const res = await request(t.url)
      .put(`/api/UserRegistry/${u.guid}`)
      .set('Authorization', `Bearer ${token}`)
      .send({ wirePasswordHash: true })
      .expect(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'wirePasswordHash' })]);
    expect(await flag(u.guid)).toBe(false);
    await signIn(t.url, u.name, u.password);
  });

  it('ResetPassword with the flag takes the browser hash only (a plaintext is a 422 naming password)', async () => {
    const u = await createUser(t.app, { tenantGuid: admin.tenantGuid, name: `Mixed.Case.${Date.now()}` });
    const reset = (password: string) =>
      request(t.url)
        .post(`/api/UserRegistry/${u.guid}/ResetPassword`)
        .set('Authorization', `Bearer ${token}`)
        .send({ password, passwordExpired: false, wirePasswordHash: true });
    const plain = await reset('A-Plain-Long-Password-1').expect(422);
    expect(plain.body.errors).toEqual([expect.objectContaining({ field: 'password' })]);
    expect(await flag(u.guid)).toBe(false);
    await reset(wirePasswordHashOf('A-Plain-Long-Password-1', u.name).toUpperCase()).expect(200);
    expect(await flag(u.guid)).toBe(true);
    // Whatever letter case the user types, the browser hashes the normalised name: one hash, accepted.
    for (const typed of [u.name, u.name.toUpperCase(), ` ${u.name.toLowerCase()} `]) {
      const res = await request(t.url)
        .post('/api/Authentication/ByUserNamePassword')
        .send({ userName: typed, password: wirePasswordHashOf('A-Plain-Long-Password-1', typed) });
      expect({ typed, status: res.status }).toEqual({ typed, status: 200 });
    }
    // The flag goes back only with a password too.
    await request(t.url)
      .post(`/api/UserRegistry/${u.guid}/ResetPassword`)
      .set('Authorization', `Bearer ${token}`)
      .send({ password: 'Back-To-Plain-Password-2', passwordExpired: false, wirePasswordHash: false })
      .expect(200);
    await signIn(t.url, u.name.toUpperCase(), 'Back-To-Plain-Password-2');
  });

  it('start-up names the flagged users whose registered name is not in normalised form (migration note)', async () => {
    const u = await createUser(t.app, { tenantGuid: admin.tenantGuid, name: `Legacy.Name.${provider}` });
    await t.app
      .get(DataSource)
      .getRepository(UserRegistry)
      .update({ Guid: u.guid }, { WirePasswordHash: true });
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      await t.app.get(BootstrapService).noteWirePasswordHashNames();
      expect(warn).toHaveBeenCalledWith(expect.stringContaining(u.name));
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('reset their passwords'));
    } finally {
      warn.mockRestore();
    }
  });
});
