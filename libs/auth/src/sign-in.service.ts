import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { SETTINGS, Settings } from '@app/config';
import { Clock, ProblemException, Problems } from '@app/common';
import {
  AuthenticationType,
  FailureType,
  LoginRecorder,
  LogoutOutcome,
  LogoutReason,
  LogoutRecorder,
} from '@app/audit';
import {
  IdentityAuthService,
  MAX_PASSWORD_INPUT_LENGTH,
  PasswordHasher,
  PasswordPolicy,
  SignInUser,
} from '@app/identity';
import { AuthProblems } from './auth-problems';
import type { SignedInDto } from './dto/authentication.dto';
import { PasswordTransport } from './password-transport';
import { SessionCookies } from './session-cookies';
import { SessionEvents } from './session-events';
import { SessionTokens } from './session-tokens';

/** Optional fields may arrive as JSON null; null means "not supplied". */
export interface SignInRequest {
  userName: string;
  password?: string | null;
  newPassword?: string | null;
  repeatNewPassword?: string | null;
}

/** Who a scheme other than username/password has proven the caller to be. */
export interface EstablishedIdentity {
  /** The UserRegistry name to look up (case-insensitively, like a typed user name). */
  userName: string;
  /** What UserLogin.CreatedUser records: the identity as the scheme presented it (a Kerberos principal). */
  recordedName: string;
  authenticationType: AuthenticationType;
}

const WIRE_HASH = /^[0-9a-f]{64}$/i;

/**
 * Username and password sign-in (spec: Identity schemes, Username and Password; UserLogin FailureTypeId 1-6),
 * with password change, lockout and the session cookies. Every attempt writes exactly one UserLogin row.
 */
@Injectable()
export class SignInService {
  constructor(
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly identity: IdentityAuthService,
    private readonly hasher: PasswordHasher,
    private readonly policy: PasswordPolicy,
    private readonly transport: PasswordTransport,
    private readonly tokens: SessionTokens,
    private readonly cookies: SessionCookies,
    private readonly logins: LoginRecorder,
    private readonly logouts: LogoutRecorder,
    private readonly sessionEvents: SessionEvents,
    private readonly clock: Clock,
  ) {}

  /** spec: Identity schemes 1 — disabled (404) whenever OAuth or Negotiate is enabled. */
  ensureEnabled(): void {
    if (this.settings.OAuthAuthentication || this.settings.NegotiateAuthentication)
      throw AuthProblems.disabled();
  }

  async wirePasswordHash(userName: string): Promise<boolean> {
    this.ensureEnabled();
    return this.identity.wirePasswordHash(userName);
  }

  /**
   * Signs in (and changes the password when newPassword is given). `currentSessionStartedAt`: the session
   * of a signed-in user changing their password, for the UserLogout row.
   */
  async signIn(
    body: SignInRequest,
    request: Request,
    response: Response,
    currentSessionStartedAt?: number,
  ): Promise<SignedInDto> {
    this.ensureEnabled();
    const user = await this.identity.findSignInUser(body.userName);
    const supplied = body.password ?? undefined;
    // Decode before anything is decided, so every branch costs about one Argon2 verification.
    const candidate = supplied === undefined || supplied === '' ? undefined : this.transport.decode(supplied);
    const fail = async (failureType: FailureType): Promise<never> => {
      await this.logins.record(request, {
        userName: body.userName,
        tenantId: user?.tenantId ?? null,
        authenticationType: AuthenticationType.UserNamePassword,
        failureType,
      });
      throw failureType === FailureType.PasswordExpired
        ? AuthProblems.passwordExpired()
        : AuthProblems.signInFailed();
    };

    if (!user || !user.active || user.passwordLocked) {
      await this.equaliseTiming(candidate);
      return fail(
        !user ? FailureType.UnknownUser : !user.active ? FailureType.NotActive : FailureType.PasswordLocked,
      );
    }
    if (candidate === undefined) return fail(FailureType.NoPassword);
    const hash = user.passwordHash;
    if (hash === null) {
      // A user without a password (OpenID Connect or Negotiate only): never matches, never counts.
      await this.equaliseTiming(candidate);
      return fail(FailureType.WrongPassword);
    }
    const correct = await this.verify(hash, candidate);
    const now = this.clock.now();
    if (!correct || candidate === null) {
      // spec: User account — more than PasswordAttempts consecutive failures lock; a lock already set by a
      // concurrent attempt makes this one a PasswordLocked failure (the count never slips past the lock).
      const counted = await this.identity.countFailedPassword(user.id, this.settings.PasswordAttempts, now);
      return fail(counted ? FailureType.WrongPassword : FailureType.PasswordLocked);
    }

    if (body.newPassword !== undefined && body.newPassword !== null) {
      const newPassword = this.checkNewPassword(
        user,
        candidate,
        body.newPassword,
        body.repeatNewPassword ?? undefined,
      );
      const newHash = await this.hasher.hash(newPassword);
      if (!(await this.identity.replacePassword(user.id, hash, newHash, now, user.name))) {
        return fail(await this.stateFailure(body.userName));
      }
      // spec: Session (JWT) — a password change ends the earlier sessions (their streams close too):
      // UserLogout with ReasonId 3, through the one recorder of session cuts.
      this.sessionEvents.revoked({ userGuid: user.guid, validFrom: now });
      await this.logouts.record(request, {
        userName: user.name,
        tenantId: user.tenantId,
        reason: LogoutReason.PasswordChanged,
        outcome: LogoutOutcome.Revoked,
        sessionStartedAt: currentSessionStartedAt ?? null,
      });
    } else {
      if (user.passwordExpiryDate !== null && user.passwordExpiryDate.getTime() <= now) {
        return fail(FailureType.PasswordExpired);
      }
      if (!(await this.identity.completeSignIn(user.id, hash, now))) {
        // Locked, deactivated, deleted or re-passworded while this attempt was verifying.
        return fail(await this.stateFailure(body.userName));
      }
    }
    return this.issueSession(
      request,
      response,
      user,
      body.userName,
      AuthenticationType.UserNamePassword,
      now,
    );
  }

  /**
   * A scheme other than username/password has established who the caller is (Negotiate today): the user must
   * exist, be active and not be locked (FailureTypeId 1, 2, 3, FailureMessage null), then the session is
   * issued exactly as after a password (spec: Identity schemes 2). `refusal` is the scheme's own 401.
   * The second factor's 202 hooks in here, before issueSession (docs/authentication.md, Negotiate).
   */
  async signInEstablished(
    identity: EstablishedIdentity,
    request: Request,
    response: Response,
    refusal: () => ProblemException,
  ): Promise<SignedInDto> {
    const user = await this.identity.findSignInUser(identity.userName);
    const fail = async (failureType: FailureType): Promise<never> => {
      await this.logins.record(request, {
        userName: identity.recordedName,
        tenantId: user?.tenantId ?? null,
        authenticationType: identity.authenticationType,
        failureType,
      });
      throw refusal();
    };
    if (!user) return fail(FailureType.UnknownUser);
    if (!user.active) return fail(FailureType.NotActive);
    if (user.passwordLocked) return fail(FailureType.PasswordLocked);
    const now = this.clock.now();
    if (!(await this.identity.completeExternalSignIn(user.id, now))) {
      // Locked, deactivated or deleted since it was read.
      const state = await this.stateFailure(identity.userName);
      return fail(state === FailureType.WrongPassword ? FailureType.UnknownUser : state);
    }
    return this.issueSession(
      request,
      response,
      user,
      identity.recordedName,
      identity.authenticationType,
      now,
    );
  }

  /**
   * THE place a session is issued once identity is established and the user's state checked, for every
   * scheme: the JWT, the UserLogin success row, both cookies, and the sign-in body.
   */
  private async issueSession(
    request: Request,
    response: Response,
    user: SignInUser,
    recordedName: string,
    authenticationType: AuthenticationType,
    now: number,
  ): Promise<SignedInDto> {
    const issued = this.tokens.issue(user.guid, now);
    await this.logins.record(request, {
      userName: recordedName,
      tenantId: user.tenantId,
      authenticationType,
    });
    this.cookies.set(request, response, issued);
    return {
      token: issued.token,
      expiresAt: new Date(issued.expiresAt).toISOString(),
      sessionStartedAt: new Date(issued.sessionStartedAt).toISOString(),
    };
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

  private async stateFailure(userName: string): Promise<FailureType> {
    const now = await this.identity.findSignInUser(userName);
    if (!now) return FailureType.UnknownUser;
    if (!now.active) return FailureType.NotActive;
    if (now.passwordLocked) return FailureType.PasswordLocked;
    return FailureType.WrongPassword;
  }

  /** Rules for a new password (the caller has just proved the current one, so a 400 tells nothing). */
  private checkNewPassword(
    user: SignInUser,
    current: string,
    newPasswordWire: string,
    repeatWire: string | undefined,
  ): string {
    if (repeatWire === undefined || repeatWire !== newPasswordWire) {
      // Ciphertexts of one password differ (OAEP is randomised): compare after decoding when encrypted.
      if (!this.transport.encrypted || repeatWire === undefined)
        throw Problems.badParameter('repeatNewPassword', 'repeatNewPassword must equal newPassword.');
    }
    const newPassword = this.transport.decode(newPasswordWire);
    const repeat = repeatWire === undefined ? null : this.transport.decode(repeatWire);
    if (newPassword === null)
      throw Problems.badParameter('newPassword', 'newPassword could not be decrypted.');
    if (repeat !== newPassword)
      throw Problems.badParameter('repeatNewPassword', 'repeatNewPassword must equal newPassword.');
    if (user.wirePasswordHash) {
      // spec: Password transport hardening 1 — strength can only be enforced in the browser.
      if (!WIRE_HASH.test(newPassword))
        throw Problems.badParameter(
          'newPassword',
          'newPassword must be the hex SHA-256 of password and user name.',
        );
    } else {
      this.policy.check('newPassword', newPassword);
    }
    if (newPassword === current)
      throw Problems.badParameter('newPassword', 'newPassword must differ from the current password.');
    return newPassword;
  }
}
