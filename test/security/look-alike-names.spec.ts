import request from 'supertest';
import { Permission } from '@app/access';
import { createUser, CreatedUser, landlordActor } from '../factories/identity.factory';
import { signIn } from '../support/auth';
import { TEST_PROVIDERS } from '../support/databases';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * A name is what an administrator reads in the trails (AdminEvent, UserLogin): a tenant administrator must not be
 * able to make a user, role or tenant whose name reads as another's. Invisible characters (Unicode
 * Default_Ignorable_Code_Point and Bidi_Control) are refused in the names of users, roles and tenants (400); user
 * names are unique by their UTS #39 skeleton, case-folded (409), and the unique index holds it under 50
 * concurrent creates.
 */
jest.setTimeout(120_000);

const CONCURRENT = 50;

/** `count` spellings of `base` a reader cannot tell apart: Latin p, a, o, e swapped for their Cyrillic twins. */
function lookAlikes(base: string, count: number): string[] {
  const twin: Record<string, string> = { p: '\u0440', a: '\u0430', o: '\u043e', e: '\u0435' };
  const positions = [...base].flatMap((c, i) => (twin[c] ? [i] : []));
  if (2 ** positions.length < count) throw new Error(`${base} has too few letters with a twin`);
  return Array.from({ length: count }, (_, mask) => {
    const chars = [...base];
    positions.forEach((p, bit) => {
      if ((mask >> bit) & 1) chars[p] = twin[chars[p]];
    });
    return chars.join('');
  });
}

describe.each(TEST_PROVIDERS)('look-alike names (%s)', (provider) => {
  let t: TestApp;
  let admin: CreatedUser;
  let auth: { Authorization: string };
  let landlordAuth: { Authorization: string };
  beforeAll(async () => {
    t = await startTestApp(provider);
    admin = await createUser(t.app, {
      permissions: [Permission.ReadWriteSecurityUser, Permission.ReadWriteSecurityRole],
    });
    auth = { Authorization: `Bearer ${(await signIn(t.url, admin.name, admin.password)).token}` };
    const landlordAdmin = await createUser(t.app, {
      tenantGuid: (await landlordActor(t.app)).tenantGuid,
      permissions: [Permission.ReadWriteTenant],
    });
    landlordAuth = {
      Authorization: `Bearer ${(await signIn(t.url, landlordAdmin.name, landlordAdmin.password)).token}`,
    };
  });
  afterAll(() => t?.close());

  const createUserNamed = (name: string) =>
    request(t.url).post('/api/UserRegistry').set(auth).send({ name, roleGuid: admin.roleGuid });

  it('a tenant administrator cannot create "Administrator" again: invisible characters 400, look-alikes 409', async () => {
    const answers: Record<string, [number, string | undefined]> = {};
    for (const name of [
      'Administrator\u200b', // zero-width space
      'Administrator\u00ad', // soft hyphen
      'Admin\u200distrator', // zero-width joiner
      '\u202eAdministrator', // right-to-left override
      'Administrator\u2066', // left-to-right isolate
      'Adm\u0131nistrator', // dotless ı
      '\u0410dministrator', // Cyrillic А
      'ADMINISTRATOR',
      'Administrator',
    ]) {
      const res = await createUserNamed(name);
      answers[JSON.stringify(name)] = [res.status, res.body.type as string | undefined];
    }
    const invalid: [number, string] = [400, 'urn:problem-type:validation'];
    const conflict: [number, string] = [409, 'urn:problem-type:conflict'];
    expect(answers).toEqual({
      '"Administrator\u200b"': invalid,
      '"Administrator\u00ad"': invalid,
      '"Admin\u200distrator"': invalid,
      '"\u202eAdministrator"': invalid,
      '"Administrator\u2066"': invalid,
      '"Adm\u0131nistrator"': conflict,
      '"\u0410dministrator"': conflict,
      '"ADMINISTRATOR"': conflict,
      '"Administrator"': conflict,
    });
  });

  it('role and tenant names refuse invisible characters (400 naming the field)', async () => {
    const role = await request(t.url)
      .post('/api/RoleRegistry')
      .set(auth)
      .send({ name: 'Administrator\u200b', permissions: [] });
    const tenant = await request(t.url)
      .post('/api/TenantRegistry')
      .set(landlordAuth)
      .send({ name: 'Landlord\u00ad' });
    expect([
      role.status,
      role.body.errors?.[0]?.field,
      tenant.status,
      tenant.body.errors?.[0]?.field,
    ]).toEqual([400, 'name', 400, 'name']);
    await request(t.url)
      .post('/api/RoleRegistry')
      .set(auth)
      .send({ name: 'Zoë’s team', permissions: [] })
      .expect(201);
  });

  it(`${CONCURRENT} concurrent creates of look-alike names: exactly one is created, the others 409`, async () => {
    const names = lookAlikes(`paypal-operator-${provider}`, CONCURRENT);
    expect(new Set(names).size).toBe(CONCURRENT);
    const statuses = (await Promise.all(names.map((name) => createUserNamed(name)))).map((r) => r.status);
    expect({
      created: statuses.filter((s) => s === 201).length,
      conflicts: statuses.filter((s) => s === 409).length,
    }).toEqual({ created: 1, conflicts: CONCURRENT - 1 });
  });
});
