import { assertFiniteNumber, CaptureRowError, isRowRefused, valuesList } from './bulk-insert';

describe('bulk insert chunks', () => {
  it('numbers placeholders in each dialect style', () => {
    expect(valuesList('postgres', 2, 2)).toBe('($1, $2), ($3, $4)');
    expect(valuesList('mssql', 2, 2)).toBe('(@0, @1), (@2, @3)');
    expect(valuesList('sqlite', 2, 2)).toBe('(?, ?), (?, ?)');
  });

  it('tells refused rows from an unreachable database', () => {
    expect(isRowRefused({ code: '22001' })).toBe(true);
    expect(isRowRefused({ driverError: { code: '23505' } })).toBe(true);
    expect(isRowRefused({ code: 'SQLITE_CONSTRAINT_NOTNULL' })).toBe(true);
    expect(isRowRefused({ number: 8152 })).toBe(true);
    expect(isRowRefused({ code: 'ECONNREFUSED' })).toBe(false);
    expect(isRowRefused({ code: '57P01' })).toBe(false);
    expect(isRowRefused(new Error('Connection terminated unexpectedly'))).toBe(false);
    expect(isRowRefused(null)).toBe(false);
    expect(isRowRefused(new CaptureRowError('bad date'))).toBe(true);
  });

  it('tells SQL Server refusing a value from SQL Server being away', () => {
    // 8023: a float that is NaN or ±Infinity; 241/242: a date it cannot convert or hold.
    for (const number of [8023, 241, 242]) expect(isRowRefused({ number })).toBe(true);
    // node-mssql/tedious validating a parameter before sending (a bigint ≥ 2^63, a date out of range).
    expect(
      isRowRefused({
        name: 'QueryFailedError',
        driverError: {
          code: 'EPARAM',
          message:
            "Validation failed for parameter '3'. Value must be between -9223372036854775808 and 9223372036854775807, inclusive.",
        },
      }),
    ).toBe(true);
    // The connection's problems keep the rows for the next flush.
    for (const code of ['ESOCKET', 'ETIMEOUT', 'ECONNCLOSED', 'ENOTOPEN', 'ELOGIN'])
      expect(isRowRefused({ driverError: { code } })).toBe(false);
  });

  it("refuses NaN and ±Infinity as the row's fault, and lets every finite number through", () => {
    for (const bad of [NaN, Infinity, -Infinity]) {
      expect(() => assertFiniteNumber(bad, 'Sum')).toThrow(CaptureRowError);
      expect(() => assertFiniteNumber(bad, 'Sum')).toThrow(/Sum/);
    }
    for (const ok of [0, -1.5, Number.MAX_VALUE, 2 ** 63, null, 'NaN', new Date(NaN)])
      expect(() => assertFiniteNumber(ok, 'Sum')).not.toThrow();
  });
});
