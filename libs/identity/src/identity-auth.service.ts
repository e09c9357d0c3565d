import { Injectable } from '@nestjs/common';
import { isPermission, Permission } from '@app/common';
import { IdentityRepository } from './identity.repository';
import { normalizeUserName } from './names';
import type { UserRegistry } from './entities';

/** What sign-in needs to know about a user matched by name. */
export interface SignInUser {
  id: number;
  guid: string;
  name: string;
  tenantId: number;
  passwordHash: string | null;
  passwordExpiryDate: Date | null;
  active: boolean;
  passwordLocked: boolean;
  wirePasswordHash: boolean;
  /** The last completed sign-in; a second-factor step is bound to it, so it completes at most once. */
  lastLoginDate: Date | null;
}

/** A user as the credential resolver sees it on every request, read from the database. */
export interface SessionUser {
  id: number;
  guid: string;
  name: string;
  tenantId: number;
  tenantGuid: string;
  landlord: boolean;
  active: boolean;
  passwordLocked: boolean;
  /** ms since epoch; sessions started before it are refused. */
  tokensValidFrom: number | null;
  permissions: ReadonlySet<Permission>;
}

/** ms → Date, keeping null and undefined as they are (they mean different things to the repository). */
function instantOrAbsent(ms: number | null | undefined): Date | null | undefined {
  return ms === undefined || ms === null ? ms : new Date(ms);
}

/** Longest user name stored; a longer one cannot match anybody. */
const MAX_USER_NAME = 256;

/**
 * What authentication needs from identity, so the auth feature never touches identity's repositories or
 * entities (STYLE: features talk through exported services).
 */
@Injectable()
export class IdentityAuthService {
  constructor(private readonly repo: IdentityRepository) {}

  async findSignInUser(userName: string): Promise<SignInUser | null> {
    if (!userName || userName.length > MAX_USER_NAME) return null;
    return this.toSignInUser(await this.repo.findUserByNormalizedName(normalizeUserName(userName.trim())));
  }

  /** The same view of a (not deleted) user found by Guid: the second factor step knows only the Guid. */
  async findSignInUserByGuid(userGuid: string): Promise<SignInUser | null> {
    return this.toSignInUser(await this.repo.findUserByGuid(userGuid));
  }

  private toSignInUser(u: UserRegistry | null): SignInUser | null {
    if (!u) return null;
    return {
      id: u.Id,
      guid: u.Guid,
      name: u.Name,
      tenantId: u.TenantRegistryId,
      passwordHash: u.PasswordHash,
      passwordExpiryDate: u.PasswordExpiryDate,
      active: u.Active,
      passwordLocked: u.PasswordLocked,
      wirePasswordHash: u.WirePasswordHash,
      lastLoginDate: u.LastLoginDate,
    };
  }

  /** See IdentityRepository.countFailedPassword: false when the account was already locked. */
  countFailedPassword(userId: number, allowed: number, now: number): Promise<boolean> {
    return this.repo.countFailedPassword(userId, allowed, new Date(now));
  }

  completeSignIn(
    userId: number,
    verifiedHash: string,
    now: number,
    expectedLastLoginAt?: number | null,
  ): Promise<boolean> {
    return this.repo.completeSignIn(
      userId,
      verifiedHash,
      new Date(now),
      instantOrAbsent(expectedLastLoginAt),
    );
  }

  /** See IdentityRepository.completeExternalSignIn: false when the user cannot sign in any more. */
  completeExternalSignIn(userId: number, now: number, expectedLastLoginAt?: number | null): Promise<boolean> {
    return this.repo.completeExternalSignIn(userId, new Date(now), instantOrAbsent(expectedLastLoginAt));
  }

  /** Sets the new hash and TokensValidFrom = now (every earlier session ends, on every node). */
  replacePassword(
    userId: number,
    oldHash: string,
    newHash: string,
    now: number,
    by: string,
  ): Promise<boolean> {
    return this.repo.replacePassword(userId, oldHash, newHash, new Date(now), by);
  }

  /**
   * Ends every session of the user that started before `validFrom` (ms), on every node at once, because
   * every request reads TokensValidFrom. Only ever moves it forward.
   */
  revokeSessions(userId: number, validFrom: number): Promise<boolean> {
    return this.repo.moveTokensValidFrom(userId, new Date(validFrom));
  }

  /** Read on EVERY authenticated JWT request: state, TokensValidFrom and the role's permissions. */
  async sessionUser(userGuid: string): Promise<SessionUser | null> {
    const row = await this.repo.findSessionUser(userGuid);
    if (!row) return null;
    const { permissionIds, ...rest } = row;
    return { ...rest, permissions: new Set(permissionIds.filter(isPermission)) };
  }

  /** The name of a (not deleted) tenant, for the signed-in user's header. */
  async tenantName(tenantId: number): Promise<string | null> {
    return (await this.repo.findTenantById(tenantId))?.Name ?? null;
  }

  /**
   * spec: Password transport hardening 1. An unknown user gets the same answer as a flagged one, so the
   * answer does not tell whether a name exists.
   */
  async wirePasswordHash(userName: string): Promise<boolean> {
    const u = await this.findSignInUser(userName);
    return u ? u.wirePasswordHash : true;
  }
}
