import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import { IDENTITY_SETTINGS, type IdentitySettings } from '@app/config';
import { ALL_PERMISSIONS } from '@app/access';
import { Clock } from '@app/runtime';
import { nameSkeletonKey } from '@app/input-rules';
import { RoleRegistry, TenantRegistry, UserRegistry } from './entities';
import { IdentityRepository } from './identity.repository';
import { normalizeUserName } from './names';
import { PasswordHasher } from './password-hasher';

export const BOOTSTRAP_ADMINISTRATOR = 'Administrator';

/**
 * First start on an empty database: the landlord tenant, an administrator role holding every permission,
 * and user Administrator whose password is expired, so the first sign-in must change it.
 */
@Injectable()
export class BootstrapService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Bootstrap');

  constructor(
    private readonly repo: IdentityRepository,
    private readonly hasher: PasswordHasher,
    private readonly clock: Clock,
    @Inject(IDENTITY_SETTINGS.token) private readonly settings: IdentitySettings,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.ensureLandlord();
    await this.noteWirePasswordHashNames();
  }

  /**
   * Migration note (docs/authentication.md, WirePasswordHash): browsers now hash the normalised user name. A
   * flagged user whose registered name is not in that form has a stored hash of the old form: every sign-in
   * would fail and count. Said at each start until an administrator resets their passwords.
   */
  async noteWirePasswordHashNames(): Promise<void> {
    const stale = (await this.repo.listWirePasswordHashUsers()).filter((u) => u.Name !== u.NormalizedName);
    if (!stale.length) return;
    const names = stale.slice(0, 20).map((u) => u.Name);
    this.logger.warn(
      `${stale.length} user(s) with WirePasswordHash have a name not in normalised form (${names.join(', ')}${stale.length > names.length ? ', …' : ''}): their browsers now hash the normalised name, so an administrator must reset their passwords (docs/authentication.md, WirePasswordHash migration note).`,
    );
  }

  /** Returns the generated password when one was generated (and printed), else undefined. */
  async ensureLandlord(): Promise<string | undefined> {
    if ((await this.repo.countTenants()) > 0) return undefined;
    const generated = this.settings.BootstrapAdministratorPassword
      ? undefined
      : randomBytes(18).toString('base64url');
    const password = this.settings.BootstrapAdministratorPassword ?? generated ?? '';
    const hash = await this.hasher.hash(password);
    const created = await this.repo.transaction(async (tx) => {
      if ((await tx.countTenants()) > 0) return false; // another node got there first
      const now = new Date(this.clock.now());
      const audit = {
        CreatedDate: now,
        CreatedUser: 'Bootstrap',
        UpdatedDate: null,
        UpdatedUser: null,
        DeletedDate: null,
        DeletedUser: null,
      };
      const tenant = await tx.insertTenant(
        Object.assign(new TenantRegistry(), {
          Guid: randomUUID(),
          Name: 'Landlord',
          Landlord: true,
          ...audit,
        }),
      );
      const role = await tx.insertRole(
        Object.assign(new RoleRegistry(), {
          Guid: randomUUID(),
          TenantRegistryId: tenant.Id,
          Name: 'Administrator',
          ...audit,
        }),
      );
      await tx.replacePermissions(role.Id, [...ALL_PERMISSIONS]);
      await tx.insertUser(
        Object.assign(new UserRegistry(), {
          Guid: randomUUID(),
          TenantRegistryId: tenant.Id,
          RoleRegistryId: role.Id,
          Name: BOOTSTRAP_ADMINISTRATOR,
          NormalizedName: normalizeUserName(BOOTSTRAP_ADMINISTRATOR),
          NameSkeleton: nameSkeletonKey(BOOTSTRAP_ADMINISTRATOR),
          Email: null,
          PasswordHash: hash,
          PasswordExpiryDate: now, // must change at first sign-in
          PasswordCreatedDate: now,
          FailedPasswordCount: 0,
          PasswordLocked: false,
          PasswordLockedDate: null,
          PasswordLockedUntil: null,
          PasswordLockCount: 0,
          Active: true,
          LastLoginDate: null,
          WirePasswordHash: false,
          TokensValidFrom: null,
          ...audit,
        }),
      );
      return true;
    });
    if (!created) return undefined;
    this.logger.log('Created the landlord tenant, the Administrator role and user Administrator');
    if (generated) {
      // Printed once, to the console only, on purpose: it is the only way a new user learns it.
      process.stdout.write(
        `\n  First start: user ${BOOTSTRAP_ADMINISTRATOR}, one-time password: ${generated}\n` +
          '  The password is expired: the first sign-in must choose a new one.\n\n',
      );
    }
    return generated;
  }
}
