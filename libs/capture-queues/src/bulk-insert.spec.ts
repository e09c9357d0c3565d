import { CaptureRowError, isRowRefused, PARAMETER_LIMITS, rowsPerStatement, valuesList } from './bulk-insert';

describe('bulk insert chunks', () => {
  it('keeps every statement within the dialect parameter limit', () => {
    for (const provider of ['sqlite', 'postgres', 'mssql'] as const) {
      for (const columns of [1, 6, 9, 13]) {
        const rows = rowsPerStatement(provider, columns);
        expect(rows * columns).toBeLessThanOrEqual(PARAMETER_LIMITS[provider]);
        expect((rows + 1) * columns > PARAMETER_LIMITS[provider] || rows === 1000).toBe(true);
      }
    }
    expect(rowsPerStatement('sqlite', 9)).toBe(3640);
    expect(rowsPerStatement('postgres', 9)).toBe(7281);
    expect(rowsPerStatement('mssql', 9)).toBe(233);
    expect(rowsPerStatement('mssql', 1)).toBe(1000);
  });

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
});
