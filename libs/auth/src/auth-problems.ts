import { HttpStatus } from '@nestjs/common';
import { ProblemException, Problems } from '@app/problems';

/** Problem types of authentication, documented in docs/authentication.md. */
export const AuthProblemType = {
  signInFailed: 'urn:problem-type:sign-in-failed',
  passwordExpired: 'urn:problem-type:password-expired',
  csrfOrigin: 'urn:problem-type:csrf-origin',
  /** Every 401 of GET api/Authentication/ByNegotiate (with WWW-Authenticate: Negotiate). */
  negotiate: 'urn:problem-type:negotiate-required',
} as const;

export const AuthProblems = {
  /**
   * The ONE answer for FailureTypeId 1, 2, 3, 5 and 6 (and an RSA ciphertext that does not decrypt), so the
   * response never tells which.
   */
  signInFailed: () =>
    new ProblemException(
      HttpStatus.UNAUTHORIZED,
      'Sign-in failed',
      'The user name or password is not correct, or the account cannot sign in.',
      AuthProblemType.signInFailed,
    ),
  /** FailureTypeId 4: the password was right but has expired; sign in again with newPassword. */
  passwordExpired: () =>
    new ProblemException(
      HttpStatus.UNAUTHORIZED,
      'Password expired',
      'The password has expired. Sign in again with newPassword and repeatNewPassword to choose a new one.',
      AuthProblemType.passwordExpired,
      { passwordExpired: true },
    ),
  /** spec: API keys 4 — every API-key failure has the same outward reason. */
  keyNotFound: () => Problems.unauthenticated('A valid credential is required.', { reason: 'Key Not Found' }),
  /** Any bad, expired or revoked session token: one body, no hint of which. */
  invalidSession: () => Problems.unauthenticated('A valid credential is required.'),
  csrf: () =>
    new ProblemException(
      HttpStatus.FORBIDDEN,
      'Forbidden',
      'A cookie-authenticated change must come from this site (Sec-Fetch-Site, Origin or Referer).',
      AuthProblemType.csrfOrigin,
    ),
  disabled: () => Problems.notFound('endpoint'),
};
