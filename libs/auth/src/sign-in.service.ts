import { Inject, Injectable, Logger } from '@nestjs/common';
import { SIGN_IN_SETTINGS, type SignInSettings } from '@app/config';
import { ClientContext } from '@app/http-edge';
import { Clock } from '@app/runtime';
import { ProblemException, Problems } from '@app/problems';
import {
  AuthenticationType,
  FailureType,
  LoginRecorder,
  LogoutOutcome,
  LogoutReason,
  LogoutRecorder,
} from '@app/audit';
import {
  canonicalWireHash,
  IdentityAuthService,
  IdentityEvents,
  type LockoutPolicy,
  MAX_PASSWORD_INPUT_LENGTH,
  PasswordHasher,
  PasswordPolicy,
  SignInUser,
} from '@app/identity';
import { AuthProblems } from './auth-problems';
import type { SignedInDto, SignInOptionsDto } from './dto/authentication.dto';
import { OAUTH_LOGIN_PATH } from './oauth/oauth-paths';
import type { SecondFactorRequiredDto } from './dto/second-factor.dto';
import { PasscodeTokens, PendingSignIn } from './second-factor/passcode-tokens';
import { SecondFactorProvider, SecondFactorUnavailable } from './second-factor/second-factor-provider';
import { PasswordTransport } from './password-transport';
import { CookieInstruction, SessionCookies } from './session-cookies';
import { IssuedToken, SessionTokens } from './session-tokens';

/** Optional fields may arrive as JSON null; null means "not supplied". */
export interface SignInRequest {
  userName: string;
  password?: string | null;
  newPassword?: string | null;
  repeatNewPassword?: string | null;
}

export interface PasscodeRequest {
  passcodeToken: string;
  passcode: string;
}

/** Who a scheme other than username/password has proven the caller to be. */
export interface EstablishedIdentity {
  /** The UserRegistry name to look up (case-insensitively, like a typed user name). */
  userName: string;
  /** What UserLogin.CreatedUser records: the identity as the scheme presented it (a Kerberos principal). */
  recordedName: string;
  authenticationType: AuthenticationType;
}

/**
 * How a sign-in step ended, for the controller to answer: 200 with the session's body and cookies, or 202
 * (spec: Errors — the second factor is pending) with the passcode token and no cookie.
 */
export type SignInOutcome =
  | { status: 200; body: SignedInDto; cookies: CookieInstruction[] }
  | { status: 202; body: SecondFactorRequiredDto; cookies: [] };

/** GET route of the RSA public key (AuthenticationController). */
export const PASSWORD_PUBLIC_KEY_PATH = '/api/Authentication/PasswordPublicKey';

/**
 * spec: UserLogin FailureTypeId 1-3, for every scheme: no such user, not Active, Password Locked; null when the
 * user may sign in.
 */
export function accountFailure(user: SignInUser | null): FailureType | null {
  if (!user) return FailureType.UnknownUser;
  if (!user.active) return FailureType.NotActive;
  if (user.passwordLocked) return FailureType.PasswordLocked;
  return null;
}

/**
 * Username and password sign-in (spec: Identity schemes, Username and Password; UserLogin FailureTypeId 1-6),
 * with password change, lockout and the session cookies. Every attempt writes exactly one UserLogin row.
 */
@Injectable()
export class SignInService {
  private readonly logger = new Logger('SignIn');

  constructor(
    @Inject(SIGN_IN_SETTINGS.token) private readonly settings: SignInSettings,
    private readonly identity: IdentityAuthService,
    private readonly hasher: PasswordHasher,
    private readonly policy: PasswordPolicy,
    private readonly transport: PasswordTransport,
    private readonly tokens: SessionTokens,
    private readonly cookies: SessionCookies,
    private readonly logins: LoginRecorder,
    private readonly logouts: LogoutRecorder,
    private readonly identityEvents: IdentityEvents,
    private readonly clock: Clock,
    private readonly passcodeTokens: PasscodeTokens,
    private readonly secondFactor: SecondFactorProvider,
  ) {}

  /** spec: Identity schemes 1 — disabled (404) whenever OAuth or Negotiate is enabled. */
  ensureEnabled(): void {
    if (this.settings.OAuthAuthentication || this.settings.NegotiateAuthentication)
      throw AuthProblems.disabled();
  }

  /**
   * What the Login page offers, from the settings alone (nothing per user): the one identity scheme, the
   * second factor (never after OAuth: spec, OAuth 6), the RSA transport and the password length rules the
   * browser enforces where the server cannot (a WirePasswordHash user's new password arrives as a hash).
   */
  options(): SignInOptionsDto {
    const s = this.settings;
    const mode = s.OAuthAuthentication ? 'oauth' : s.NegotiateAuthentication ? 'negotiate' : 'password';
    const encrypted = mode === 'password' && this.transport.encrypted;
    return {
      mode,
      secondFactor: mode !== 'oauth' && s.EnableMultifactorAuthentication,
      passwordEncryption: encrypted,
      passwordPublicKeyPath: encrypted ? PASSWORD_PUBLIC_KEY_PATH : null,
      passwordMinimumLength: s.PasswordMinimumLength,
      passwordMaximumLength: s.PasswordMaximumLength,
      oauthLoginPath: mode === 'oauth' ? OAUTH_LOGIN_PATH : null,
    };
  }

  async wirePasswordHash(userName: string): Promise<boolean> {
    this.ensureEnabled();
    return this.identity.wirePasswordHash(userName);
  }

  /**
   * Signs in (and changes the password when newPassword is given). `currentSessionStartedAt`: the session
   * of a signed-in user changing their password, for the UserLogout row. With EnableMultifactorAuthentication
   * a proven password yields a passcode token instead, and nothing of the success happens yet.
   */
  async signIn(
    body: SignInRequest,
    client: ClientContext,
    currentSessionStartedAt?: number,
  ): Promise<SignInOutcome> {
    this.ensureEnabled();
    const user = await this.identity.findSignInUser(body.userName);
    const supplied = body.password ?? undefined;
    // Decode before anything is decided, so every branch costs about one Argon2 verification.
    const candidate = supplied === undefined || supplied === '' ? undefined : this.transport.decode(supplied);
    const fail = (failureType: FailureType): Promise<never> =>
      this.fail(
        client,
        body.userName,
        user?.tenantId ?? null,
        AuthenticationType.UserNamePassword,
        failureType,
      );

    const refused = accountFailure(user);
    if (refused !== null || !user) {
      await this.equaliseTiming(candidate);
      return fail(refused ?? FailureType.UnknownUser);
    }
    if (candidate === undefined) return fail(FailureType.NoPassword);
    const hash = user.passwordHash;
    if (hash === null) {
      // A user without a password (OpenID Connect or Negotiate only): never matches, never counts.
      await this.equaliseTiming(candidate);
      return fail(FailureType.WrongPassword);
    }
    // A wire hash is compared as stored (lower-case hex), however the client cased it.
    const proof =
      user.wirePasswordHash && candidate !== null ? (canonicalWireHash(candidate) ?? candidate) : candidate;
    const correct = await this.verify(hash, proof);
    if (!correct || proof === null) {
      // spec: User account — more than PasswordAttempts consecutive failures lock; a lock already set by a
      // concurrent attempt makes this one a PasswordLocked failure (the count never slips past the lock).
      const counted = await this.identity.countFailedPassword(user.id, this.lockout(), this.clock.now());
      return fail(counted ? FailureType.WrongPassword : FailureType.PasswordLocked);
    }

    let newHash: string | undefined;
    if (body.newPassword !== undefined && body.newPassword !== null) {
      let newPassword: string;
      try {
        newPassword = this.checkNewPassword(
          user,
          proof,
          body.newPassword,
          body.repeatNewPassword ?? undefined,
        );
      } catch (err) {
        // spec: UserLogin rule 1 — the attempt is recorded; the answer stays the 400 naming the field.
        await this.logins.record(client, {
          userName: body.userName,
          tenantId: user.tenantId,
          authenticationType: AuthenticationType.UserNamePassword,
          failureType: FailureType.NewPasswordRefused,
        });
        throw err;
      }
      newHash = await this.hasher.hash(newPassword);
    } else if (user.passwordExpiryDate !== null && user.passwordExpiryDate.getTime() <= this.clock.now()) {
      return fail(FailureType.PasswordExpired);
    }
    const proven: PendingSignIn = {
      userGuid: user.guid,
      typedName: body.userName,
      authenticationType: AuthenticationType.UserNamePassword,
      verifiedHash: hash,
      ...(newHash !== undefined ? { newHash } : {}),
      ...(currentSessionStartedAt !== undefined ? { currentSessionStartedAt } : {}),
    };
    if (this.settings.EnableMultifactorAuthentication) return this.secondFactorRequired(user, proven, client);
    return this.complete(user, proven, client);
  }

  /**
   * spec: Second factor 1 and Session (JWT) "after second factor when enabled": no session, no success row,
   * no LastLoginDate, no password change until the passcode is accepted; a passcode token instead (202). The
   * attempt's row says a passcode was requested (FailureTypeId 13), so an abandoned second step is visible.
   */
  private async secondFactorRequired(
    user: SignInUser,
    proven: PendingSignIn,
    client: ClientContext,
  ): Promise<SignInOutcome> {
    const pending = this.passcodeTokens.issue({
      ...proven,
      lastLoginAt: user.lastLoginDate?.getTime() ?? null,
    });
    await this.logins.record(client, {
      userName: proven.typedName,
      tenantId: user.tenantId,
      authenticationType: proven.authenticationType,
      failureType: FailureType.SecondFactorRequired,
    });
    return {
      status: 202,
      body: {
        secondFactorRequired: true,
        passcodeToken: pending.token,
        expiresAt: new Date(pending.expiresAt).toISOString(),
      },
      cookies: [],
    };
  }

  /**
   * A scheme other than username/password has established who the caller is (Negotiate): the user must
   * exist, be active and not be locked (FailureTypeId 1, 2, 3, FailureMessage null; `refusal` is the
   * scheme's own 401). Then, as after a password, either the second factor's 202 (spec: Negotiate 2 — with
   * EnableMultifactorAuthentication) or the session (spec: Identity schemes 2).
   */
  async signInEstablished(
    identity: EstablishedIdentity,
    client: ClientContext,
    refusal: () => ProblemException,
  ): Promise<SignInOutcome> {
    const user = await this.identity.findSignInUser(identity.userName);
    const fail = (failureType: FailureType): Promise<never> =>
      this.fail(
        client,
        identity.recordedName,
        user?.tenantId ?? null,
        identity.authenticationType,
        failureType,
        refusal,
      );
    const refused = accountFailure(user);
    if (refused !== null || !user) return fail(refused ?? FailureType.UnknownUser);
    const proven: PendingSignIn = {
      userGuid: user.guid,
      typedName: identity.recordedName,
      authenticationType: identity.authenticationType,
      verifiedHash: null,
    };
    if (this.settings.EnableMultifactorAuthentication) return this.secondFactorRequired(user, proven, client);
    return this.complete(user, proven, client, refusal);
  }

  /**
   * The second step (spec: Second factor): the passcode token of a proven password and the passcode. A
   * wrong passcode counts towards the same lockout as a wrong password.
   */
  async passcode(body: PasscodeRequest, client: ClientContext): Promise<SignInOutcome & { status: 200 }> {
    // The second step follows a password (disabled under OAuth or Negotiate) or Negotiate itself.
    if (!this.settings.EnableMultifactorAuthentication || this.settings.OAuthAuthentication)
      throw AuthProblems.disabled();
    const pending = this.passcodeTokens.verify(body.passcodeToken);
    // A bad, tampered or expired token identifies nobody: its row names nobody (spec: UserLogin rule 1).
    if (!pending) return this.passcodeTokenRefused(client);
    const user = await this.identity.findSignInUserByGuid(pending.userGuid);
    const fail = (failureType: FailureType): Promise<never> =>
      this.fail(client, pending.typedName, user?.tenantId ?? null, pending.authenticationType, failureType);
    // A password step's token is void once password sign-in is off (Negotiate switched on meanwhile), and a
    // Negotiate step's once Negotiate is off.
    if (
      (pending.authenticationType === AuthenticationType.UserNamePassword) ===
      this.settings.NegotiateAuthentication
    )
      return fail(FailureType.SecondFactorMismatch);
    const refused = accountFailure(user);
    if (refused !== null || !user) return fail(refused ?? FailureType.UnknownUser);
    // The password was changed since the password step: what was proven no longer matches (not counted).
    // (A Negotiate token proved no password: nothing to compare.) Or a sign-in was completed since (this
    // token, or another): a passcode token completes at most once.
    const passwordProven = pending.hashTag !== null;
    if (
      (passwordProven &&
        (user.passwordHash === null || !this.passcodeTokens.provesHash(pending, user.passwordHash))) ||
      (user.lastLoginDate?.getTime() ?? null) !== pending.lastLoginAt
    )
      return fail(FailureType.SecondFactorMismatch);

    let accepted: boolean;
    try {
      accepted = await this.secondFactor.verify(user.name, body.passcode);
    } catch (err) {
      // Neither refused nor accepted: not counted, and the token stays usable; the attempt is recorded (12).
      this.logger.error(
        `Second-factor provider unavailable: ${err instanceof SecondFactorUnavailable ? err.message : 'unexpected error'}`,
      );
      await this.logins.record(client, {
        userName: pending.typedName,
        tenantId: user.tenantId,
        authenticationType: pending.authenticationType,
        failureType: FailureType.SecondFactorUnavailable,
      });
      throw Problems.unavailable('The second-factor provider cannot be reached; try again shortly.');
    }
    if (!accepted) {
      // spec: User account lockout, shared with wrong passwords; the row says it was the passcode (11).
      const counted = await this.identity.countFailedPassword(user.id, this.lockout(), this.clock.now());
      return fail(counted ? FailureType.SecondFactorMismatch : FailureType.PasswordLocked);
    }
    return this.complete(
      user,
      {
        userGuid: user.guid,
        typedName: pending.typedName,
        authenticationType: pending.authenticationType,
        verifiedHash: passwordProven ? user.passwordHash : null,
        lastLoginAt: pending.lastLoginAt,
        ...(pending.newHash !== undefined ? { newHash: pending.newHash } : {}),
        ...(pending.currentSessionStartedAt !== undefined
          ? { currentSessionStartedAt: pending.currentSessionStartedAt }
          : {}),
      },
      client,
    );
  }

  /**
   * THE completion of every sign-in scheme (password, passcode, Negotiate, OpenID Connect), once every factor
   * is proven: password change (when asked), LastLoginDate and count reset (or, when no password was proven,
   * LastLoginDate alone while the user may still sign in), the session, the UserLogin success row and the
   * cookies descriptor. The session starts now. A user whose state changed meanwhile gets a failed row and
   * the scheme's `refusal` (else the sign-in problems).
   */
  async complete(
    user: SignInUser,
    proven: PendingSignIn,
    client: ClientContext,
    /** The scheme's own refusal (Negotiate's 401 with its challenge, OpenID Connect's redirect). */
    refusal?: () => Error,
  ): Promise<SignInOutcome & { status: 200 }> {
    let now = this.clock.now();
    const fail = (failureType: FailureType): Promise<never> =>
      this.fail(client, proven.typedName, user.tenantId, proven.authenticationType, failureType, refusal);
    if (proven.verifiedHash === null) {
      // No password was proven (Negotiate): LastLoginDate only while the user can still sign in, and for a
      // passcode token only if no other sign-in completed since (single use, atomic).
      if (!(await this.identity.completeExternalSignIn(user.id, now, proven.lastLoginAt))) {
        const state = await this.stateFailure(user.guid);
        // Not a password failure: a state that changed, or (passcode token) a completion that came first.
        return fail(
          state === FailureType.WrongPassword && refusal !== undefined ? FailureType.UnknownUser : state,
        );
      }
    } else if (proven.newHash !== undefined) {
      const startedAt = await this.identity.replacePassword(
        user.id,
        proven.verifiedHash,
        proven.newHash,
        now,
        user.name,
      );
      if (startedAt === null) return fail(await this.stateFailure(user.guid));
      // Later than `now` when another session started meanwhile: this one starts after it (never before).
      now = startedAt;
      // spec: Session (JWT) — a password change ends the earlier sessions (their streams close too):
      // UserLogout with ReasonId 3, through the one recorder of session cuts. The change is committed: the
      // row is written within the logout limit, its failure logged, never turning the sign-in into a 5xx.
      this.identityEvents.emit('sessionsRevoked', { userGuid: user.guid, validFrom: now });
      await this.logouts.recordWithin(
        client,
        {
          userName: user.name,
          tenantId: user.tenantId,
          reason: LogoutReason.PasswordChanged,
          outcome: LogoutOutcome.Revoked,
          sessionStartedAt: proven.currentSessionStartedAt ?? null,
        },
        this.settings.LogoutRevocationTimeoutMilliseconds,
      );
    } else if (!(await this.identity.completeSignIn(user.id, proven.verifiedHash, now, proven.lastLoginAt))) {
      // Locked, deactivated, deleted or re-passworded while this attempt was verifying; or, for a passcode
      // token, another completion got there first (the LastLoginDate condition makes single use atomic).
      return fail(await this.stateFailure(user.guid));
    }
    const issued: IssuedToken = this.tokens.issue(user.guid, now);
    await this.logins.record(client, {
      userName: proven.typedName,
      tenantId: user.tenantId,
      authenticationType: proven.authenticationType,
    });
    return {
      status: 200,
      body: {
        token: issued.token,
        expiresAt: new Date(issued.expiresAt).toISOString(),
        sessionStartedAt: new Date(issued.sessionStartedAt).toISOString(),
      },
      cookies: this.cookies.forSession(issued, client.secure),
    };
  }

  /** A passcode token that proves nothing (bad, tampered, expired): its row names nobody. */
  private passcodeTokenRefused(client: ClientContext): Promise<never> {
    return this.fail(
      client,
      '',
      null,
      this.settings.NegotiateAuthentication
        ? AuthenticationType.Negotiate
        : AuthenticationType.UserNamePassword,
      FailureType.SecondFactorMismatch,
    );
  }

  /**
   * spec: User account — more than PasswordAttempts consecutive failures lock; the lock lifts by itself after
   * PasswordLockoutMilliseconds, doubling with each consecutive lock up to PasswordLockoutMaximumMilliseconds.
   */
  private lockout(): LockoutPolicy {
    return {
      allowed: this.settings.PasswordAttempts,
      firstMs: this.settings.PasswordLockoutMilliseconds,
      maximumMs: this.settings.PasswordLockoutMaximumMilliseconds,
    };
  }

  /** Writes the failed UserLogin row and throws the problem of that failure. */
  private async fail(
    client: ClientContext,
    userName: string,
    tenantId: number | null,
    authenticationType: AuthenticationType,
    failureType: FailureType,
    /** The scheme's own refusal (Negotiate's 401 with its challenge); else the sign-in problems. */
    refusal?: () => Error,
  ): Promise<never> {
    await this.logins.record(client, { userName, tenantId, authenticationType, failureType });
    if (refusal) throw refusal();
    throw failureType === FailureType.PasswordExpired
      ? AuthProblems.passwordExpired()
      : AuthProblems.signInFailed();
  }

  /** A password longer than 1024 characters is refused before hashing; null (RSA failure) never matches. */
  private async verify(hash: string, candidate: string | null): Promise<boolean> {
    if (candidate === null) {
      await this.hasher.verifyDummy('');
      return false;
    }
    if (candidate.length > MAX_PASSWORD_INPUT_LENGTH) return false;
    return this.hasher.verify(hash, candidate);
  }

  private async equaliseTiming(candidate: string | null | undefined): Promise<void> {
    if (candidate === undefined || (candidate !== null && candidate.length > MAX_PASSWORD_INPUT_LENGTH))
      return;
    await this.hasher.verifyDummy(candidate ?? '');
  }

  private async stateFailure(userGuid: string): Promise<FailureType> {
    return accountFailure(await this.identity.findSignInUserByGuid(userGuid)) ?? FailureType.WrongPassword;
  }

  /** Rules for a new password (the caller has just proved the current one, so a 422 tells nothing). */
  private checkNewPassword(
    user: SignInUser,
    current: string,
    newPasswordWire: string,
    repeatWire: string | undefined,
  ): string {
    if (repeatWire === undefined || repeatWire !== newPasswordWire) {
      // Ciphertexts of one password differ (OAEP is randomised): compare after decoding when encrypted.
      if (!this.transport.encrypted || repeatWire === undefined)
        throw Problems.unprocessable('repeatNewPassword', 'repeatNewPassword must equal newPassword.');
    }
    const newPassword = this.transport.decode(newPasswordWire);
    const repeat = repeatWire === undefined ? null : this.transport.decode(repeatWire);
    if (newPassword === null)
      throw Problems.unprocessable('newPassword', 'newPassword could not be decrypted.');
    if (repeat !== newPassword)
      throw Problems.unprocessable('repeatNewPassword', 'repeatNewPassword must equal newPassword.');
    let accepted = newPassword;
    if (user.wirePasswordHash) {
      // spec: Password transport hardening 1 — strength can only be enforced in the browser.
      const hash = canonicalWireHash(newPassword);
      if (hash === null)
        throw Problems.unprocessable(
          'newPassword',
          'newPassword must be the hex SHA-256 of the password and the normalised user name.',
        );
      accepted = hash;
    } else {
      this.policy.check('newPassword', newPassword);
    }
    if (accepted === current)
      throw Problems.unprocessable('newPassword', 'newPassword must differ from the current password.');
    return accepted;
  }
}
