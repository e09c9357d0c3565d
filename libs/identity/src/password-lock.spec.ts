import { lockDuration, lockDurations, passwordLockAt } from './password-lock';

describe('the automatic password lock (pure rules)', () => {
  it('doubles from the first lock up to the cap, the cap last', () => {
    expect(lockDurations({ firstMs: 300_000, maximumMs: 3_600_000 })).toEqual([
      300_000, 600_000, 1_200_000, 2_400_000, 3_600_000,
    ]);
    expect(lockDurations({ firstMs: 60_000, maximumMs: 60_000 })).toEqual([60_000]);
    // a cap below the first lock wins
    expect(lockDurations({ firstMs: 60_000, maximumMs: 1_000 })).toEqual([1_000]);
    // the widest settings stay a short list
    expect(lockDurations({ firstMs: 1_000, maximumMs: 604_800_000 }).length).toBeLessThanOrEqual(21);
    const policy = { firstMs: 300_000, maximumMs: 3_600_000 };
    expect([0, 1, 2, 3, 4, 5, 100].map((n) => lockDuration(policy, n))).toEqual([
      300_000, 600_000, 1_200_000, 2_400_000, 3_600_000, 3_600_000, 3_600_000,
    ]);
  });

  it('a lock is in force until its end; one that has lifted shows nothing and counts from zero', () => {
    const since = new Date(1_000_000);
    const until = new Date(1_300_000);
    const row = {
      PasswordLocked: true,
      PasswordLockedDate: since,
      PasswordLockedUntil: until,
      FailedPasswordCount: 4,
    };
    expect(passwordLockAt(row, 1_299_999)).toEqual({
      locked: true,
      lockedDate: since,
      lockedUntil: until,
      failedPasswordCount: 4,
    });
    expect(passwordLockAt(row, 1_300_000)).toEqual({
      locked: false,
      lockedDate: null,
      lockedUntil: null,
      failedPasswordCount: 0,
    });
    // a lock from before locks lifted by themselves lasts until Unlock
    expect(passwordLockAt({ ...row, PasswordLockedUntil: null }, Number.MAX_SAFE_INTEGER).locked).toBe(true);
    expect(passwordLockAt({ ...row, PasswordLocked: false, FailedPasswordCount: 2 }, 0)).toEqual({
      locked: false,
      lockedDate: null,
      lockedUntil: null,
      failedPasswordCount: 2,
    });
  });
});
