/**
 * The automatic password lock (spec: User account — more than PasswordAttempts consecutive wrong passwords
 * lock; how a lock is cleared is ours, /work/shared decisions "Accounts and locks"): it stops new password
 * sign-ins only, lifts by itself after PasswordLockoutMilliseconds, twice as long for each consecutive lock up
 * to PasswordLockoutMaximumMilliseconds, and an administrator's Unlock lifts it at once. It never ends or hides a
 * session.
 */
export interface LockoutPolicy {
  /** Consecutive wrong passwords allowed; one more locks (PasswordAttempts). */
  allowed: number;
  /** How long the first lock lasts (PasswordLockoutMilliseconds). */
  firstMs: number;
  /** The longest a lock lasts, however many came before it (PasswordLockoutMaximumMilliseconds). */
  maximumMs: number;
}

/**
 * How long each consecutive lock lasts: the first `firstMs`, each next one twice the one before, then
 * `maximumMs` for every later one. The last entry is the cap (every lock from its index on lasts that long), so
 * the list is short (at most ~40 entries for any settings, ~5 for the defaults).
 */
export function lockDurations(policy: Pick<LockoutPolicy, 'firstMs' | 'maximumMs'>): number[] {
  const out: number[] = [];
  let ms = policy.firstMs;
  while (ms < policy.maximumMs && out.length < 64) {
    out.push(ms);
    ms *= 2;
  }
  out.push(policy.maximumMs);
  return out;
}

/** How long the lock after `previousLocks` consecutive locks lasts. */
export function lockDuration(policy: Pick<LockoutPolicy, 'firstMs' | 'maximumMs'>, previousLocks: number) {
  const durations = lockDurations(policy);
  return durations[Math.min(previousLocks, durations.length - 1)];
}

/** What the lock columns of a user say at `now`. */
export interface PasswordLockState {
  /** New password sign-ins are refused (FailureTypeId 3). */
  locked: boolean;
  /** When the lock in force began; null when none is. */
  lockedDate: Date | null;
  /** When the lock in force lifts by itself; null when none is, or for a lock set before locks lifted by themselves. */
  lockedUntil: Date | null;
  /** Consecutive wrong passwords counted towards the next lock (0 once a lock has lifted by itself). */
  failedPasswordCount: number;
}

export interface PasswordLockColumns {
  PasswordLocked: boolean;
  PasswordLockedDate: Date | null;
  PasswordLockedUntil: Date | null;
  FailedPasswordCount: number;
}

/**
 * The lock at `now`. A lock is in force while PasswordLocked is set and PasswordLockedUntil is still ahead (or
 * null: a lock written before locks lifted by themselves stays until an administrator's Unlock). A lock that has
 * lifted stays in the row until the next attempt rewrites it (UserSecurityRepository.countFailedPassword).
 */
export function passwordLockAt(u: PasswordLockColumns, now: number): PasswordLockState {
  const lapsed = u.PasswordLocked && u.PasswordLockedUntil !== null && u.PasswordLockedUntil.getTime() <= now;
  const locked = u.PasswordLocked && !lapsed;
  return {
    locked,
    lockedDate: locked ? u.PasswordLockedDate : null,
    lockedUntil: locked ? u.PasswordLockedUntil : null,
    failedPasswordCount: lapsed ? 0 : u.FailedPasswordCount,
  };
}
