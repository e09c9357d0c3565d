import type { INestApplicationContext } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { Actor, ALL_PERMISSIONS, Permission } from '@app/access';
import {
  RoleService,
  TenantService,
  UserService,
  TenantRegistry,
  UserRegistry,
  BOOTSTRAP_ADMINISTRATOR,
} from '@app/identity';

/** The bootstrap Administrator as an Actor (landlord, every permission), read from the database. */
export async function landlordActor(app: INestApplicationContext): Promise<Actor> {
  const ds = app.get(DataSource);
  const user = await ds.getRepository(UserRegistry).findOneByOrFail({ Name: BOOTSTRAP_ADMINISTRATOR });
  const tenant = await ds.getRepository(TenantRegistry).findOneByOrFail({ Id: user.TenantRegistryId });
  return {
    userId: user.Id,
    userGuid: user.Guid,
    userName: user.Name,
    tenantId: tenant.Id,
    tenantGuid: tenant.Guid,
    landlord: true,
    permissions: new Set(ALL_PERMISSIONS),
    credential: 'bearer',
  };
}

export interface CreatedUser {
  guid: string;
  name: string;
  password: string;
  tenantGuid: string;
  roleGuid: string;
  /** The same user as an Actor, for service-level tests. */
  actor: Actor;
}

/**
 * Creates a user with a usable (not expired) password in a tenant, with a role holding `permissions`.
 * `tenantGuid` omitted: a new tenant is created. Uses the services, as an administrator would.
 */
export async function createUser(
  app: INestApplicationContext,
  options: {
    permissions?: readonly Permission[];
    tenantGuid?: string;
    name?: string;
    password?: string;
  } = {},
): Promise<CreatedUser> {
  const landlord = await landlordActor(app);
  const tenantGuid =
    options.tenantGuid ??
    (await app.get(TenantService).create(landlord, { name: `Tenant ${randomBytes(3).toString('hex')}` }))
      .guid;
  const role = await app.get(RoleService).create(landlord, {
    name: `Role ${randomBytes(3).toString('hex')}`,
    permissions: [...(options.permissions ?? [])],
    tenantGuid,
  });
  const name = options.name ?? `user-${randomBytes(4).toString('hex')}`;
  const password = options.password ?? `Pw-${randomBytes(9).toString('base64url')}`;
  const user = await app
    .get(UserService)
    .create(landlord, { name, roleGuid: role.guid, password, passwordExpired: false });
  const ds = app.get(DataSource);
  const row = await ds.getRepository(UserRegistry).findOneByOrFail({ Guid: user.guid });
  const tenant = await ds.getRepository(TenantRegistry).findOneByOrFail({ Guid: tenantGuid });
  return {
    guid: user.guid,
    name,
    password,
    tenantGuid,
    roleGuid: role.guid,
    actor: {
      userId: row.Id,
      userGuid: row.Guid,
      userName: row.Name,
      tenantId: tenant.Id,
      tenantGuid: tenant.Guid,
      landlord: tenant.Landlord,
      permissions: new Set(options.permissions ?? []),
      credential: 'bearer',
    },
  };
}
