import { fieldChanges, isSecretField, recordChange } from './admin-event-types';

describe('fieldChanges (AdminEvent)', () => {
  it('lists only the fields that differ, old → new, bookkeeping columns left out', () => {
    const before = { Id: 1, Guid: 'g', Name: 'A', Active: true, Version: 3, UpdatedDate: new Date(0) };
    const after = { ...before, Name: 'B', Version: 4, UpdatedDate: new Date(5) };
    expect(fieldChanges(before, after)).toEqual([{ field: 'Name', old: 'A', new: 'B' }]);
  });

  it('never holds a secret: a password or key hash, a passcode, only "changed"', () => {
    const changes = fieldChanges(
      { PasswordHash: 'old-hash', KeyHash: 'k1', WirePasswordHash: false },
      { PasswordHash: 'new-hash', KeyHash: 'k2', WirePasswordHash: true },
    );
    expect(changes).toEqual([
      { field: 'PasswordHash', changed: true },
      { field: 'KeyHash', changed: true },
      { field: 'WirePasswordHash', old: false, new: true },
    ]);
    expect(JSON.stringify(changes)).not.toMatch(/hash"|k1|k2/);
    expect(['Passcode', 'password', 'ApiHmacSecret'].every(isSecretField)).toBe(true);
    expect(
      [
        'PasswordLocked',
        'PasswordExpiryDate',
        'FailedPasswordCount',
        'PasswordLockedUntil',
        'PasswordLockCount',
      ].some(isSecretField),
    ).toBe(false);
  });

  it('a creation lists what is set (nulls left out); instants as ISO text; long or hostile text bounded and inert', () => {
    const changes = fieldChanges(null, {
      Name: 'x'.repeat(1000),
      Email: null,
      CreatedUser: 'admin',
      PasswordExpiryDate: new Date('2030-01-01T00:00:00Z'),
      Description: 'a\u0000b\u001b[31m',
    });
    expect(changes).toEqual([
      { field: 'Name', old: null, new: 'x'.repeat(256) },
      { field: 'PasswordExpiryDate', old: null, new: '2030-01-01T00:00:00.000Z' },
      { field: 'Description', old: null, new: 'a\uFFFDb\uFFFD[31m' },
    ]);
  });

  it('recordChange names the target as it was, in its tenant; a deletion changes no field', () => {
    const before = { Guid: 'g1', Name: 'Old', Active: true };
    expect(recordChange(7, before, { ...before, Name: 'New' })).toEqual({
      target: { guid: 'g1', name: 'Old', tenantId: 7 },
      changes: [{ field: 'Name', old: 'Old', new: 'New' }],
    });
    expect(recordChange(7, before, null).changes).toEqual([]);
  });
});
