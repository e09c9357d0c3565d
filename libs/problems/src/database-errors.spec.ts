import { isDatabaseUnavailable } from './database-errors';

describe('isDatabaseUnavailable', () => {
  it('counts SQL Server connection failures as the database being away', () => {
    for (const code of ['ESOCKET', 'ETIMEOUT', 'ECONNCLOSED', 'ENOTOPEN', 'ELOGIN'])
      expect([code, isDatabaseUnavailable({ name: 'QueryFailedError', driverError: { code } })]).toEqual([
        code,
        true,
      ]);
  });

  it('does not count a refused value or statement', () => {
    expect(isDatabaseUnavailable({ driverError: { code: 'EPARAM' } })).toBe(false);
    expect(isDatabaseUnavailable({ driverError: { code: 'EREQUEST', number: 8023 } })).toBe(false);
    expect(isDatabaseUnavailable({ code: '23505' })).toBe(false);
  });
});
