import { FAILURE_KIND, FailureType, SIGN_IN_CONTINUE_STEPS } from './audit-types';

/** The numeric members of the enum (a TypeScript enum also maps each name back from its number). */
const FAILURE_TYPES = Object.values(FailureType).filter((v): v is FailureType => typeof v === 'number');

describe('FailureType: a refusal or a step that asks the user to continue', () => {
  it.each(FAILURE_TYPES.map((code) => [code, FailureType[code]] as const))(
    'FailureTypeId %i (%s) is classified',
    (code) => {
      // A FailureType added to the enum without its entry in FAILURE_KIND fails here.
      expect(['refusal', 'continue']).toContain(FAILURE_KIND[code]);
    },
  );

  it('classifies nothing that is not a FailureType', () => {
    expect(
      Object.keys(FAILURE_KIND)
        .map(Number)
        .sort((a, b) => a - b),
    ).toEqual([...FAILURE_TYPES].sort((a, b) => a - b));
  });

  it('the steps to continue are the expired password, the passcode requested and the refused new password', () => {
    expect(SIGN_IN_CONTINUE_STEPS).toEqual([
      FailureType.PasswordExpired,
      FailureType.SecondFactorRequired,
      FailureType.NewPasswordRefused,
    ]);
    const refusals = FAILURE_TYPES.filter((code) => FAILURE_KIND[code] === 'refusal');
    expect(refusals).toEqual([1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12]);
  });
});
