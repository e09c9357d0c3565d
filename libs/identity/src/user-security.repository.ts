import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository, type WhereExpressionBuilder } from 'typeorm';
import { boundTo, type Transaction, type TransactionBound } from '@app/database';
import { UserRegistry } from './entities';
import { affected, IdentityRepository, type UserChanges } from './identity.repository';
import { lockDurations, passwordLockAt, type LockoutPolicy } from './password-lock';

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

/**
 * No automatic lock is in force at :now (password-lock.ts): none set, or one that has lifted by itself. A lock
 * without PasswordLockedUntil (set before locks lifted by themselves) stays until an administrator's Unlock.
 */
const NOT_LOCKED_AT_NOW =
  '("PasswordLocked" = :unlocked OR ("PasswordLockedUntil" IS NOT NULL AND "PasswordLockedUntil" <= :now))';

/** The lock columns of a user who may sign in again from scratch (a success, an Unlock, a new password). */
const LOCK_CLEARED = {
  FailedPasswordCount: 0,
  PasswordLocked: false,
  PasswordLockedDate: null,
  PasswordLockedUntil: null,
  PasswordLockCount: 0,
} as const;

/** The row at the version an If-Match named (none: the row as it is). */
const atVersionSql = (version: number | undefined) =>
  version === undefined ? '' : ' AND "Version" = :version';

/**
 * The row's Version (its ETag) kept as it is. TypeORM raises a @VersionColumn in every UPDATE unless the
 * statement sets it itself; the writes of sign-in state (failure counts, the automatic lock, LastLoginDate,
 * TokensValidFrom of a logout or Revoke Sessions, an Unlock) are not what an administrator edits, so they set it to
 * itself: a stranger's wrong passwords never make an administrator's If-Match stale.
 */
const VERSION_KEPT = { Version: () => '"Version"' } as const;

/** Sign-ins kept completing in the instants a password write chose (practically never): try again. */
export class SignInRaceError extends Error {
  constructor() {
    super('Sessions kept starting while the password was being replaced; try again.');
  }
}
/**
 * The security-relevant writes of a user (each one conditional statement that only moves forward): sign-in completions, failure counts, password
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
   * A deactivation: the edit's columns with Active false AND TokensValidFrom moved forward,
   * in ONE statement per attempt, so a later reactivation (a stale edit carrying `active: true` included) never
   * brings an earlier session back. Like a password write it applies only while no session started at or after
   * its instant (sessionsEndAt). Returns that instant, or null when the user is gone.
   */
  deactivateUser(userId: number, changes: UserChanges, at: Date, version?: number): Promise<Date | null> {
    return this.sessionsEndAt(
      userId,
      at,
      async (instant) =>
        affected(
          await this.users
            .createQueryBuilder()
            .update(UserRegistry)
            .set({ ...changes, Active: false, TokensValidFrom: () => FORWARD_TOKENS_VALID_FROM })
            .where(
              `"Id" = :userId AND "DeletedDate" IS NULL AND ${NO_SESSION_SINCE}${atVersionSql(version)}`,
              {
                userId,
                at: instant,
                version,
              },
            )
            .execute(),
        ),
      // given `version` (If-Match), a row that moved on is not written again at a later instant
      (user) => version === undefined || user.Version === version,
    );
  }

  /**
   * An administrator's Unlock, in ONE statement: the lock (in force or lifted), the failure count and the count
   * of consecutive locks cleared, at once. Sessions are not touched: the automatic lock never ended or hid one.
   * Neither is the row's Version (the lock is sign-in state, not what an administrator edits); given `version`
   * (If-Match), only at that version. False when nothing was written (the user is gone, or moved on).
   */
  async unlockUser(userId: number, now: Date, by: string, version?: number): Promise<boolean> {
    const result = await this.users
      .createQueryBuilder()
      .update(UserRegistry)
      .set({ ...VERSION_KEPT, ...LOCK_CLEARED, UpdatedDate: now, UpdatedUser: by })
      .where(`"Id" = :userId AND "DeletedDate" IS NULL${atVersionSql(version)}`, { userId, version })
      .execute();
    return affected(result);
  }

  /**
   * An administrator's password reset, in ONE statement: the new hash, the lockout cleared, and
   * TokensValidFrom moved forward (never back) to the reset's instant. Returns that instant, or null when the
   * user is gone. See sessionsEndAt for why the instant may end up later than `at`.
   */
  resetPassword(userId: number, reset: PasswordResetWrite, at: Date, version?: number): Promise<Date | null> {
    return this.sessionsEndAt(
      userId,
      at,
      async (instant) =>
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
              ...LOCK_CLEARED,
              TokensValidFrom: () => FORWARD_TOKENS_VALID_FROM,
            })
            .where(
              `"Id" = :userId AND "DeletedDate" IS NULL AND ${NO_SESSION_SINCE}${atVersionSql(version)}`,
              {
                userId,
                at: instant,
                version,
              },
            )
            .execute(),
        ),
      // given `version` (If-Match), a row that moved on is not written again at a later instant
      (user) => version === undefined || user.Version === version,
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
   * One more consecutive wrong password, in ONE statement, only while no lock is in force at `now`; the
   * increment that makes the count exceed `policy.allowed` also sets the lock, its start (`now`) and when it lifts
   * by itself (`now` plus the duration of this lock, chosen in the statement from the count of consecutive locks
   * before it: lockDurations). A lock that has lifted by itself is cleared by the next wrong password, which
   * counts from one again; the count of consecutive locks stays, so the next lock lasts twice as long. Concurrent
   * wrong passwords therefore lock once: the statements after the lock's find it in force and change nothing.
   * Returns false when a lock was in force (nothing counted). The row's Version stays (VERSION_KEPT).
   */
  async countFailedPassword(userId: number, policy: LockoutPolicy, now: Date): Promise<boolean> {
    // the count before this attempt: a lifted lock starts it again
    const counted = 'CASE WHEN "PasswordLocked" = :locked THEN 0 ELSE "FailedPasswordCount" END';
    const locks = `${counted} + 1 > :allowed`;
    const durations = lockDurations(policy);
    const until = Object.fromEntries(
      durations.map((ms, i) => [`lockedUntil${i}`, new Date(now.getTime() + ms)]),
    );
    // One flat CASE whose first branch is the column, so every database types the parameters as instants
    // (PostgreSQL types a CASE of parameters alone as text): kept unless this attempt locks, else the end of
    // the lock for the count of consecutive locks before it.
    const lockedUntil = `CASE WHEN ${counted} + 1 <= :allowed THEN "PasswordLockedUntil" ${durations
      .slice(0, -1)
      .map((_ms, i) => `WHEN "PasswordLockCount" = ${i} THEN :lockedUntil${i}`)
      .join(' ')} ELSE :lockedUntil${durations.length - 1} END`;
    const result = await this.users
      .createQueryBuilder()
      .update(UserRegistry)
      .set({
        ...VERSION_KEPT,
        FailedPasswordCount: () => `${counted} + 1`,
        PasswordLocked: () => `CASE WHEN ${locks} THEN :locked ELSE :unlocked END`,
        PasswordLockedDate: () => `CASE WHEN ${locks} THEN :now ELSE "PasswordLockedDate" END`,
        PasswordLockedUntil: () => lockedUntil,
        PasswordLockCount: () =>
          `CASE WHEN ${locks} THEN "PasswordLockCount" + 1 ELSE "PasswordLockCount" END`,
      })
      .where(`"Id" = :userId AND "DeletedDate" IS NULL AND ${NOT_LOCKED_AT_NOW}`, { userId })
      .setParameters({ allowed: policy.allowed, locked: true, unlocked: false, now, ...until })
      .execute();
    return affected(result);
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
      .set({ ...VERSION_KEPT, ...LOCK_CLEARED, LastLoginDate: now })
      .where(
        `"Id" = :userId AND "PasswordHash" = :verifiedHash AND "Active" = :active AND ${NOT_LOCKED_AT_NOW} AND "DeletedDate" IS NULL`,
        { userId, verifiedHash, active: true, unlocked: false, now },
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
      .set({ ...VERSION_KEPT, LastLoginDate: now })
      .where(`"Id" = :userId AND "Active" = :active AND ${NOT_LOCKED_AT_NOW} AND "DeletedDate" IS NULL`, {
        userId,
        active: true,
        unlocked: false,
        now,
      });
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
              ...LOCK_CLEARED,
              LastLoginDate: at,
              UpdatedDate: at,
              UpdatedUser: updatedUser,
            })
            .where(
              `"Id" = :userId AND "PasswordHash" = :oldHash AND "Active" = :active AND ${NOT_LOCKED_AT_NOW} AND "DeletedDate" IS NULL AND ${NO_SESSION_SINCE}`,
              { userId, oldHash, active: true, unlocked: false, at, now },
            )
            .execute(),
        ),
      (u) => u.PasswordHash === oldHash && u.Active && !passwordLockAt(u, now.getTime()).locked,
    );
  }

  /**
   * Moves TokensValidFrom forward to `validFrom`, never back: ONE conditional UPDATE, so two concurrent
   * revocations cannot lower it. False when it was already at or past `validFrom` (or the user is gone). Given
   * `version` (an administrator's If-Match), the statement applies only at that version and then answers
   * whether it did (moving TokensValidFrom forward, or leaving it where it was ahead). The row's Version stays:
   * sessions are not what an administrator edits.
   */
  async moveTokensValidFrom(userId: number, validFrom: Date, version?: number): Promise<boolean> {
    const query = this.users.createQueryBuilder().update(UserRegistry);
    if (version === undefined)
      query
        .set({ ...VERSION_KEPT, TokensValidFrom: validFrom })
        .where('"Id" = :userId AND ("TokensValidFrom" IS NULL OR "TokensValidFrom" < :validFrom)', {
          userId,
          validFrom,
        });
    else
      query
        .set({ ...VERSION_KEPT, TokensValidFrom: () => FORWARD_TOKENS_VALID_FROM })
        .where('"Id" = :userId AND "DeletedDate" IS NULL AND "Version" = :version', {
          userId,
          version,
          at: validFrom,
        });
    return affected(await query.execute());
  }
}
