import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository, type WhereExpressionBuilder } from 'typeorm';
import { boundTo, type Transaction, type TransactionBound } from '@app/database';
import { UserRegistry } from './entities';
import { affected, IdentityRepository, type UserChanges } from './identity.repository';

/**
 * A completing UPDATE's single-use condition: when `expected` is given, LastLoginDate must still be it (null:
 * never signed in), so of two completions of one pending sign-in only the first changes a row.
 */
function whereLastLogin<Q extends WhereExpressionBuilder>(query: Q, expected: Date | null | undefined): Q {
  if (expected === null) query.andWhere('"LastLoginDate" IS NULL');
  else if (expected !== undefined)
    query.andWhere('"LastLoginDate" = :expectedLastLogin', { expectedLastLogin: expected });
  return query;
}

/** What an administrator's password reset writes besides the lockout and TokensValidFrom. */
export interface PasswordResetWrite {
  passwordHash: string;
  /** Expired at once (the user must choose their own at next sign-in), or no expiry. */
  expired: boolean;
  /** Unchanged when undefined. */
  wirePasswordHash: boolean | undefined;
  updatedUser: string;
}

/** TokensValidFrom moved to :at, never back: dialect-neutral (no GREATEST: SQLite lacks it, SQL Server 2019 too). */
const FORWARD_TOKENS_VALID_FROM =
  'CASE WHEN "TokensValidFrom" IS NULL OR "TokensValidFrom" < :at THEN :at ELSE "TokensValidFrom" END';

/** Every session's start instant is the LastLoginDate its completion wrote: none started at or after :at. */
const NO_SESSION_SINCE = '("LastLoginDate" IS NULL OR "LastLoginDate" < :at)';

/** Sign-ins kept completing in the instants a password write chose (practically never): try again. */
export class SignInRaceError extends Error {
  constructor() {
    super('Sessions kept starting while the password was being replaced; try again.');
  }
}
/**
 * The security-relevant writes of a user (security issues 13 and 37): sign-in completions, failure counts, password
 * replacements and resets, deactivation, unlock and revocation. Each is ONE conditional statement per attempt, so
 * concurrent attempts never lose a count nor bring back a session that was ended.
 */
@Injectable()
export class UserSecurityRepository implements TransactionBound {
  /** The transaction this repository's statements run in (boundTo); none: each statement on its own. */
  readonly tx?: Transaction;

  constructor(
    @InjectRepository(UserRegistry) private readonly users: Repository<UserRegistry>,
    private readonly identity: IdentityRepository,
  ) {}

  /** This repository (and the identity reads and writes it makes) in `tx`; none: itself. */
  in(tx: Transaction | undefined): UserSecurityRepository {
    const bound = boundTo(this, tx);
    if (bound !== this) Object.assign(bound, { identity: this.identity.in(tx) });
    return bound;
  }

  /**
   * A deactivation (security issue 37): the edit's columns with Active false AND TokensValidFrom moved forward,
   * in ONE statement per attempt, so a later reactivation (a stale edit carrying `active: true` included) never
   * brings an earlier session back. Like a password write it applies only while no session started at or after
   * its instant (sessionsEndAt). Returns that instant, or null when the user is gone.
   */
  deactivateUser(userId: number, changes: UserChanges, at: Date, version?: number): Promise<Date | null> {
    const atVersionSql = version === undefined ? '' : ' AND "Version" = :version';
    return this.sessionsEndAt(
      userId,
      at,
      async (instant) =>
        affected(
          await this.users
            .createQueryBuilder()
            .update(UserRegistry)
            .set({ ...changes, Active: false, TokensValidFrom: () => FORWARD_TOKENS_VALID_FROM })
            .where(`"Id" = :userId AND "DeletedDate" IS NULL AND ${NO_SESSION_SINCE}${atVersionSql}`, {
              userId,
              at: instant,
              version,
            })
            .execute(),
        ),
      // given `version` (If-Match), a row that moved on is not written again at a later instant
      (user) => version === undefined || user.Version === version,
    );
  }

  /**
   * An administrator's Unlock. A locked user's lock, failure count and sessions end in ONE statement
   * (TokensValidFrom forward to `now`: whoever held a session before the lock does not get it back; while locked
   * no session can start). A user who is not locked only has the failure count cleared. 'cut', 'cleared', or
   * null when the user is gone. (The automatic lockout itself only hides sessions: countFailedPassword.)
   */
  async unlockUser(userId: number, now: Date, by: string): Promise<'cut' | 'cleared' | null> {
    const unlocked = {
      PasswordLocked: false,
      PasswordLockedDate: null,
      FailedPasswordCount: 0,
      UpdatedDate: now,
      UpdatedUser: by,
    };
    const cut = await this.users
      .createQueryBuilder()
      .update(UserRegistry)
      .set({ ...unlocked, TokensValidFrom: () => FORWARD_TOKENS_VALID_FROM })
      .where('"Id" = :userId AND "DeletedDate" IS NULL AND "PasswordLocked" = :locked', {
        userId,
        locked: true,
        at: now,
      })
      .execute();
    if (affected(cut)) return 'cut';
    return (await this.identity.updateUser(userId, unlocked)) ? 'cleared' : null;
  }

  /**
   * An administrator's password reset, in ONE statement: the new hash, the lockout cleared, and
   * TokensValidFrom moved forward (never back) to the reset's instant. Returns that instant, or null when the
   * user is gone. See sessionsEndAt for why the instant may end up later than `at`.
   */
  resetPassword(userId: number, reset: PasswordResetWrite, at: Date): Promise<Date | null> {
    return this.sessionsEndAt(userId, at, async (instant) =>
      affected(
        await this.users
          .createQueryBuilder()
          .update(UserRegistry)
          .set({
            PasswordHash: reset.passwordHash,
            PasswordCreatedDate: instant,
            PasswordExpiryDate: reset.expired ? instant : null,
            ...(reset.wirePasswordHash !== undefined ? { WirePasswordHash: reset.wirePasswordHash } : {}),
            UpdatedDate: instant,
            UpdatedUser: reset.updatedUser,
            FailedPasswordCount: 0,
            PasswordLocked: false,
            PasswordLockedDate: null,
            TokensValidFrom: () => FORWARD_TOKENS_VALID_FROM,
          })
          .where(`"Id" = :userId AND "DeletedDate" IS NULL AND ${NO_SESSION_SINCE}`, { userId, at: instant })
          .execute(),
      ),
    );
  }

  /**
   * A write that ends every session started before its instant (a password replaced) must not miss one that
   * started just after the caller took the instant: a sign-in with the old password that completed in between
   * would keep a session. So each attempt is one conditional statement that applies only while no session
   * started at or after the instant (LastLoginDate, which every completion writes as its session start, is
   * before it); when one did, the next attempt takes the instant just after that session's start. Returns the
   * instant written, or null when `write` is refused for another reason (the user is gone, or `stillApplies`
   * says so: the password or state changed).
   */
  private async sessionsEndAt(
    userId: number,
    at: Date,
    write: (instant: Date) => Promise<boolean>,
    stillApplies: (user: UserRegistry) => boolean = () => true,
  ): Promise<Date | null> {
    let instant = at;
    for (let attempt = 0; attempt < 5; attempt++) {
      if (await write(instant)) return instant;
      const user = await this.identity.findUserById(userId);
      if (!user || !stillApplies(user)) return null;
      const lastLogin = user.LastLoginDate?.getTime() ?? -Infinity;
      instant = new Date(Math.max(instant.getTime(), lastLogin + 1));
    }
    throw new SignInRaceError();
  }

  // ---- sign-in and sessions (atomic, conditional updates: concurrent attempts never lose a count)

  /**
   * One more consecutive wrong password, in ONE statement, only while the account is not locked; the
   * increment that makes the count exceed `allowed` also sets PasswordLocked. Returns false when the
   * account was already locked (nothing counted).
   */
  async countFailedPassword(userId: number, allowed: number, now: Date): Promise<boolean> {
    const result = await this.users
      .createQueryBuilder()
      .update(UserRegistry)
      .set({
        FailedPasswordCount: () => '"FailedPasswordCount" + 1',
        PasswordLocked: () =>
          'CASE WHEN "FailedPasswordCount" + 1 > :allowed THEN :locked ELSE "PasswordLocked" END',
        PasswordLockedDate: () =>
          'CASE WHEN "FailedPasswordCount" + 1 > :allowed THEN :now ELSE "PasswordLockedDate" END',
      })
      .where('"Id" = :userId AND "PasswordLocked" = :unlocked AND "DeletedDate" IS NULL', {
        userId,
        unlocked: false,
      })
      .setParameters({ allowed, locked: true, now })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /**
   * A successful sign-in: resets the count and stamps LastLoginDate, only if the user can still sign in
   * (active, not locked, not deleted) and the password is still the one verified. False otherwise.
   */
  async completeSignIn(
    userId: number,
    verifiedHash: string,
    now: Date,
    /** When given, LastLoginDate must still be this (null: never signed in): a pending sign-in completes once. */
    expectedLastLogin?: Date | null,
  ): Promise<boolean> {
    const query = this.users
      .createQueryBuilder()
      .update(UserRegistry)
      .set({ FailedPasswordCount: 0, LastLoginDate: now })
      .where(
        '"Id" = :userId AND "PasswordHash" = :verifiedHash AND "Active" = :active AND "PasswordLocked" = :unlocked AND "DeletedDate" IS NULL',
        { userId, verifiedHash, active: true, unlocked: false },
      );
    const result = await whereLastLogin(query, expectedLastLogin).execute();
    return (result.affected ?? 0) > 0;
  }

  /**
   * Sign-in by an identity another scheme proved (OpenID Connect, Negotiate): LastLoginDate, only while the
   * user is still Active, not Password Locked and not deleted. The password and its failure count are not
   * touched: no password was proven. `expectedLastLogin` as in completeSignIn (a passcode token's single use).
   */
  async completeExternalSignIn(userId: number, now: Date, expectedLastLogin?: Date | null): Promise<boolean> {
    const query = this.users
      .createQueryBuilder()
      .update(UserRegistry)
      .set({ LastLoginDate: now })
      .where(
        '"Id" = :userId AND "Active" = :active AND "PasswordLocked" = :unlocked AND "DeletedDate" IS NULL',
        { userId, active: true, unlocked: false },
      );
    const result = await whereLastLogin(query, expectedLastLogin).execute();
    return (result.affected ?? 0) > 0;
  }

  /**
   * Replaces the password (if it is still `oldHash` and the user can still sign in), ends every earlier
   * session (TokensValidFrom forward, never back) and signs in, in one statement per attempt. Returns the
   * instant the new session starts (see sessionsEndAt), or null when refused.
   */
  replacePassword(
    userId: number,
    oldHash: string,
    newHash: string,
    now: Date,
    updatedUser: string,
  ): Promise<Date | null> {
    return this.sessionsEndAt(
      userId,
      now,
      async (at) =>
        affected(
          await this.users
            .createQueryBuilder()
            .update(UserRegistry)
            .set({
              PasswordHash: newHash,
              PasswordCreatedDate: at,
              PasswordExpiryDate: null,
              TokensValidFrom: () => FORWARD_TOKENS_VALID_FROM,
              FailedPasswordCount: 0,
              LastLoginDate: at,
              UpdatedDate: at,
              UpdatedUser: updatedUser,
            })
            .where(
              `"Id" = :userId AND "PasswordHash" = :oldHash AND "Active" = :active AND "PasswordLocked" = :unlocked AND "DeletedDate" IS NULL AND ${NO_SESSION_SINCE}`,
              { userId, oldHash, active: true, unlocked: false, at },
            )
            .execute(),
        ),
      (u) => u.PasswordHash === oldHash && u.Active && !u.PasswordLocked,
    );
  }

  /**
   * Moves TokensValidFrom forward to `validFrom`, never back: ONE conditional UPDATE, so two concurrent
   * revocations cannot lower it. False when it was already at or past `validFrom` (or the user is gone).
   */
  async moveTokensValidFrom(userId: number, validFrom: Date): Promise<boolean> {
    const result = await this.users
      .createQueryBuilder()
      .update(UserRegistry)
      .set({ TokensValidFrom: validFrom })
      .where('"Id" = :userId AND ("TokensValidFrom" IS NULL OR "TokensValidFrom" < :validFrom)', {
        userId,
        validFrom,
      })
      .execute();
    return affected(result);
  }
}
