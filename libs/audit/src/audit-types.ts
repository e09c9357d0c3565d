/** spec: UserLogin AuthenticationTypeId. */
export enum AuthenticationType {
  UserNamePassword = 1,
  Negotiate = 2,
  OAuth = 3,
}

/** spec: UserLogin FailureTypeId (populated only when Failed is set). */
export enum FailureType {
  UnknownUser = 1,
  NotActive = 2,
  PasswordLocked = 3,
  PasswordExpired = 4,
  WrongPassword = 5,
  NoPassword = 6,
  OAuthNoUsableClaim = 7,
  OAuthRemoteFailure = 8,
  OAuthLocalValidationFailure = 9,
  OAuthInternalError = 10,
  // Deliberate extensions of the spec's table (docs/decisions.md, the spec's deviations):
  /** The second factor's passcode did not match, or its step is void (a bad, expired or stale passcode token). */
  SecondFactorMismatch = 11,
  /** The second-factor provider could not be reached: neither refused nor accepted. */
  SecondFactorUnavailable = 12,
  /** The first factor was proven and a passcode requested (202): not signed in yet; no success follows if abandoned. */
  SecondFactorRequired = 13,
  /** Username/Password only: the password was proven, but the new password supplied was refused. */
  NewPasswordRefused = 14,
}

/**
 * What a Failed UserLogin row stands for: a `refusal` (the attempt was turned away: what an operator looks at)
 * or a `continue` step (the sign-in protocol asks the user for more and the attempt goes on: an expired
 * password to change, a passcode to give, a new password to choose again). Every FailureType is one or the
 * other: a new FailureType without its entry here is a type error. Read by the UserLogin grid's `refused`
 * filter, and through it by the console's "Failed sign-ins" figure.
 */
export const FAILURE_KIND: { readonly [F in FailureType]: 'refusal' | 'continue' } = {
  [FailureType.UnknownUser]: 'refusal',
  [FailureType.NotActive]: 'refusal',
  [FailureType.PasswordLocked]: 'refusal',
  [FailureType.PasswordExpired]: 'continue',
  [FailureType.WrongPassword]: 'refusal',
  [FailureType.NoPassword]: 'refusal',
  [FailureType.OAuthNoUsableClaim]: 'refusal',
  [FailureType.OAuthRemoteFailure]: 'refusal',
  [FailureType.OAuthLocalValidationFailure]: 'refusal',
  [FailureType.OAuthInternalError]: 'refusal',
  [FailureType.SecondFactorMismatch]: 'refusal',
  [FailureType.SecondFactorUnavailable]: 'refusal',
  [FailureType.SecondFactorRequired]: 'continue',
  [FailureType.NewPasswordRefused]: 'continue',
};

/** The FailureTypes that ask the user to continue (FAILURE_KIND `continue`), in ascending order. */
export const SIGN_IN_CONTINUE_STEPS: readonly FailureType[] = Object.values(FailureType)
  .filter((v): v is FailureType => typeof v === 'number' && FAILURE_KIND[v] === 'continue')
  .sort((a, b) => a - b);

/** spec: UserLogin rule 2 — FailureMessage only for these (the OAuth failures 7 to 10). */
export function carriesFailureMessage(failureType: FailureType | undefined): boolean {
  return (
    failureType !== undefined &&
    failureType >= FailureType.OAuthNoUsableClaim &&
    failureType <= FailureType.OAuthInternalError
  );
}

/** spec: UserLogout ReasonId. */
export enum LogoutReason {
  UserLoggedOut = 1,
  AdministratorRevoked = 2,
  PasswordChanged = 3,
}

/** spec: UserLogout OutcomeId. */
export enum LogoutOutcome {
  Revoked = 1,
  CookiesCleared = 2,
  RevocationFailed = 3,
}

/** Column bounds of the audit tables; text is cut to these by inertText before it is stored. */
export const AUDIT_LIMITS = {
  userName: 256,
  ip: 64,
  userAgent: 512,
  message: 1024,
  /** Every UserLogout text column is at most 512 characters (sessions issue). */
  logoutMessage: 512,
} as const;
