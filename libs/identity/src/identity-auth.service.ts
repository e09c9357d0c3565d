import { Inject, Injectable } from '@nestjs/common';
import { createHmac } from 'node:crypto';
import { IDENTITY_SETTINGS, type IdentitySettings } from '@app/config';
import { Clock } from '@app/runtime';
import type { Transaction } from '@app/database';
import { IdentityRepository } from './identity.repository';
import { SessionUserRepository, type SessionUser } from './session-user.repository';
import { SignInRaceError, UserSecurityRepository } from './user-security.repository';
import { normalizeUserName } from './names';
import { passwordLockAt, type LockoutPolicy } from './password-lock';
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
  /** An automatic lock is in force now (one that has lifted by itself is not). */
  passwordLocked: boolean;
  wirePasswordHash: boolean;
  /** The last completed sign-in; a second-factor step is bound to it, so it completes at most once. */
  lastLoginDate: Date | null;
}

export type { SessionUser } from './session-user.repository';

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
  constructor(
    private readonly repo: IdentityRepository,
    private readonly security: UserSecurityRepository,
    private readonly sessionUsers: SessionUserRepository,
    @Inject(IDENTITY_SETTINGS.token) private readonly settings: IdentitySettings,
    private readonly clock: Clock,
  ) {}

  async findSignInUser(userName: string): Promise<SignInUser | null> {
    if (!userName || userName.length > MAX_USER_NAME) return null;
    return this.toSignInUser(await this.repo.findUserByNormalizedName(normalizeUserName(userName.trim())));
  }

  /** The same view of a (not deleted) user found by Guid: the second factor step knows only the Guid. */
  async findSignInUserByGuid(userGuid: string): Promise<SignInUser | null> {
    return this.toSignInUser(await this.repo.findUserByGuid(userGuid));
  }

  /** A user of a deleted tenant is as gone as a deleted user (the session check joins the tenant too). */
  private async toSignInUser(u: UserRegistry | null): Promise<SignInUser | null> {
    if (!u || !(await this.repo.findTenantById(u.TenantRegistryId))) return null;
    return {
      id: u.Id,
      guid: u.Guid,
      name: u.Name,
      tenantId: u.TenantRegistryId,
      passwordHash: u.PasswordHash,
      passwordExpiryDate: u.PasswordExpiryDate,
      active: u.Active,
      passwordLocked: passwordLockAt(u, this.clock.now()).locked,
      wirePasswordHash: u.WirePasswordHash,
      lastLoginDate: u.LastLoginDate,
    };
  }

  /** See UserSecurityRepository.countFailedPassword: false when a lock was in force (nothing counted). */
  countFailedPassword(userId: number, policy: LockoutPolicy, now: number): Promise<boolean> {
    return this.security.countFailedPassword(userId, policy, new Date(now));
  }

  completeSignIn(
    userId: number,
    verifiedHash: string,
    now: number,
    expectedLastLoginAt?: number | null,
  ): Promise<boolean> {
    return this.security.completeSignIn(
      userId,
      verifiedHash,
      new Date(now),
      instantOrAbsent(expectedLastLoginAt),
    );
  }

  /** See UserSecurityRepository.completeExternalSignIn: false when the user cannot sign in any more. */
  completeExternalSignIn(userId: number, now: number, expectedLastLoginAt?: number | null): Promise<boolean> {
    return this.security.completeExternalSignIn(userId, new Date(now), instantOrAbsent(expectedLastLoginAt));
  }

  /**
   * Sets the new hash and moves TokensValidFrom forward (every earlier session ends, on every node). Returns
   * the instant the new session starts (`now`, or just after a session that started meanwhile; see
   * UserSecurityRepository.replacePassword), or null when refused (password or state changed).
   */
  async replacePassword(
    userId: number,
    oldHash: string,
    newHash: string,
    now: number,
    by: string,
  ): Promise<number | null> {
    try {
      return (
        (await this.security.replacePassword(userId, oldHash, newHash, new Date(now), by))?.getTime() ?? null
      );
    } catch (err) {
      // Sessions kept starting in the instants chosen: refused like a state change; the user tries again.
      if (err instanceof SignInRaceError) return null;
      throw err;
    }
  }

  /**
   * Ends every session of the user that started before `validFrom` (ms), on every node at once, because
   * every request reads TokensValidFrom. Only ever moves it forward. In `tx` when given (its AdminEvent row).
   * Given `version` (an administrator's If-Match), only at that version: false when the row moved on.
   */
  revokeSessions(userId: number, validFrom: number, tx?: Transaction, version?: number): Promise<boolean> {
    return this.security.in(tx).moveTokensValidFrom(userId, new Date(validFrom), version);
  }

  /** Read on EVERY authenticated JWT request: state, TokensValidFrom and the role's permissions. */
  /** How many users of the tenant (undefined: every tenant) have a session started after `since` and not cut. */
  countLiveSessions(tenantId: number | undefined, since: number): Promise<number> {
    return this.repo.countLiveSessions(tenantId, new Date(since));
  }

  sessionUser(userGuid: string): Promise<SessionUser | null> {
    return this.sessionUsers.findSessionUser(userGuid);
  }

  /** The name of a (not deleted) tenant, for the signed-in user's header. */
  async tenantName(tenantId: number): Promise<string | null> {
    return (await this.repo.findTenantById(tenantId))?.Name ?? null;
  }

  /**
   * spec: Password transport hardening 1. A user's answer is their flag. An unknown name must not stand out
   * (an unknown name must not be told from a known one by its answer), so it gets a stable answer drawn like a user's: true for a share of all names,
   * decided by an HMAC of the normalised name under a key derived from JwtKey. The share is
   * WirePasswordHashUnknownPercent when set, else the share of users who have the flag NOW, read from the
   * database with every ask: it follows every flag change at once, on every node and across restarts (a share
   * counted once per process let names flagged since the start stand out). Both reads run for every ask, known
   * name or not, so the answer's time says nothing either. A name answers the same as long as the share stays.
   */
  async wirePasswordHash(userName: string): Promise<boolean> {
    const [user, share] = await Promise.all([this.findSignInUser(userName), this.unknownNameShare()]);
    if (user) return user.wirePasswordHash;
    const mac = createHmac('sha256', this.settings.JwtKey ?? '')
      .update(`WirePasswordHash unknown name\u0000${normalizeUserName(userName.trim())}`)
      .digest();
    return mac.readUIntBE(0, 6) / 2 ** 48 < share;
  }

  /** The share (0 to 1) of unknown names that answer true: the setting, or the flagged users' share now. */
  private async unknownNameShare(): Promise<number> {
    const configured = this.settings.WirePasswordHashUnknownPercent;
    if (configured !== undefined) return configured / 100;
    const { all, wirePasswordHash } = await this.repo.countUsers();
    return all === 0 ? 0 : wirePasswordHash / all;
  }
}
