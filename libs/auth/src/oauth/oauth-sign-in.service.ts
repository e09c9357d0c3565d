import { Inject, Injectable, Logger } from '@nestjs/common';
import * as oidc from 'openid-client';
import { OAUTH_SETTINGS, type OAuthSettings } from '@app/config';
import { ClientContext } from '@app/http-edge';
import { Clock } from '@app/runtime';
import { AuthenticationType, FailureType, LoginRecorder } from '@app/audit';
import { IdentityAuthService, SignInUser } from '@app/identity';
import { AuthProblems } from '../auth-problems';
import type { CookieInstruction } from '../session-cookies';
import { accountFailure, SignInService } from '../sign-in.service';
import { localReturnUrl } from '@app/declarations';
import {
  OAUTH_TRANSACTION_COOKIE,
  OAUTH_TRANSACTION_LIFETIME_MS,
  OAuthTransaction,
  OAuthTransactionSealer,
} from './oauth-transaction';

import { LOGIN_PAGE_FAILED, OAUTH_CALLBACK_PATH } from './oauth-paths';

export const OAUTH_SCOPE = 'openid profile email';

/**
 * The identity claims tried in order (spec: OAuth / OpenID Connect 3). `sub` is not among them: it is the
 * provider's opaque (often pairwise) identifier, never a user name of this service.
 */
export const OAUTH_IDENTITY_CLAIMS = ['preferred_username', 'email', 'upn', 'unique_name', 'name'] as const;
const MAX_CLAIM = 256;

/** A sign-in failure with its UserLogin FailureTypeId, the message (7–10 only) and the claimed name. */
export class OAuthFailure extends Error {
  constructor(
    readonly failureType: FailureType,
    message: string,
    readonly userName: string | null = null,
    readonly tenantId: number | null = null,
  ) {
    super(message);
  }
}

const REMOTE_CODES = new Set([
  'OAUTH_HTTP_REQUEST_FORBIDDEN',
  'OAUTH_REQUEST_PROTOCOL_FORBIDDEN',
  'OAUTH_RESPONSE_IS_NOT_CONFORM',
  'OAUTH_RESPONSE_IS_NOT_JSON',
]);

/**
 * FailureTypeId of an error thrown by openid-client: 8 when the provider said no or could not be used
 * (error response, unreachable, not HTTPS, not JSON), 9 when this service refused what came back (state,
 * nonce, issuer, signature, expiry…), 10 for anything else.
 */
export function failureTypeOf(error: unknown): FailureType {
  if (
    error instanceof oidc.AuthorizationResponseError ||
    error instanceof oidc.ResponseBodyError ||
    error instanceof oidc.WWWAuthenticateChallengeError ||
    error instanceof TypeError
  )
    return FailureType.OAuthRemoteFailure;
  if (error instanceof oidc.ClientError)
    return error.code !== undefined && REMOTE_CODES.has(error.code)
      ? FailureType.OAuthRemoteFailure
      : FailureType.OAuthLocalValidationFailure;
  return FailureType.OAuthInternalError;
}

function messageOf(error: unknown): string {
  if (error instanceof oidc.AuthorizationResponseError)
    return `${error.error}${error.error_description ? `: ${error.error_description}` : ''}`;
  if (error instanceof oidc.ResponseBodyError)
    return `${error.error}${error.error_description ? `: ${error.error_description}` : ''}`;
  const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return error instanceof Error ? `${error.message}${cause}` : 'unknown error';
}

const loopback = (url: URL) => ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);

/** A failure whose UserLogin row the one completion has already written. */
class AlreadyRecorded extends Error {}

/** What the provider's authorization response proved (OidcStrategy's user). */
export interface OidcIdentity {
  /** The identity claim, looked up like a typed user name. */
  userName: string;
  /** Where to land: the local URL sealed in the transaction. */
  returnUrl: string;
}

/** How the strategy's run ended, including a thrown failure; `fail` carries the strategy's challenge. */
export type OidcOutcome =
  | { kind: 'success'; user: OidcIdentity }
  | { kind: 'fail'; challenge?: unknown }
  | { kind: 'error'; error: unknown };

/** The transaction before the strategy adds its state, nonce and PKCE verifier. */
export type PendingTransaction = Omit<OAuthTransaction, 'state' | 'nonce' | 'codeVerifier'>;

const NO_TRANSACTION =
  'No valid sign-in transaction (the transaction cookie is missing, expired or was altered).';

/**
 * A strategy's refusal as a failure: the provider's error response (openid-client's strategy fails on
 * access_denied, handing on the response's parameters) is the provider's (8); the only other refusal is a
 * callback without the strategy's state, that is without a valid transaction cookie (9).
 */
function refusalOf(challenge: unknown): OAuthFailure {
  const { error, error_description: description } = (challenge ?? {}) as Record<string, unknown>;
  if (typeof error === 'string')
    return new OAuthFailure(
      FailureType.OAuthRemoteFailure,
      `${error}${typeof description === 'string' && description ? `: ${description}` : ''}`,
    );
  return new OAuthFailure(FailureType.OAuthLocalValidationFailure, NO_TRANSACTION);
}

/** An error of the strategy's run as a failure (8, 9 or 10 by failureTypeOf, unless it is one already). */
function strategyFailure(error: unknown): OAuthFailure {
  return error instanceof OAuthFailure ? error : new OAuthFailure(failureTypeOf(error), messageOf(error));
}

/** Where to send the browser, and the cookies that go with it. */
export interface OAuthAnswer {
  location: string;
  cookies: CookieInstruction[];
}

/**
 * OpenID Connect sign-in (spec: Identity schemes, OAuth / OpenID Connect): authorization code with PKCE
 * through openid-client, then the service's own session exactly as username/password sign-in issues it.
 * Every callback writes one UserLogin row with AuthenticationTypeId 3 (spec: UserLogin rules 1 and 3).
 */
@Injectable()
export class OAuthSignInService {
  private readonly logger = new Logger(OAuthSignInService.name);
  private readonly sealer: OAuthTransactionSealer;
  private discovered: Promise<oidc.Configuration> | undefined;

  constructor(
    @Inject(OAUTH_SETTINGS.token) private readonly settings: OAuthSettings,
    private readonly identity: IdentityAuthService,
    private readonly signIn: SignInService,
    private readonly logins: LoginRecorder,
    private readonly clock: Clock,
  ) {
    this.sealer = new OAuthTransactionSealer(settings.JwtKey ?? '');
  }

  get enabled(): boolean {
    return this.settings.OAuthAuthentication;
  }

  ensureEnabled(): void {
    if (!this.enabled) throw AuthProblems.disabled();
  }

  /** spec: OAuth 4 — form_post unless OAuthForceGet asks for the query string. */
  get responseMode(): 'query' | 'form_post' {
    return this.settings.OAuthForceGet ? 'query' : 'form_post';
  }

  /**
   * The provider's configuration, by discovery (once, and again after a failure, so a provider that is down at
   * start-up does not matter). Throws an OAuthFailure of type 8 when the provider cannot be used.
   */
  async configuration(): Promise<oidc.Configuration> {
    this.ensureEnabled();
    try {
      return await this.discover();
    } catch (error) {
      throw new OAuthFailure(FailureType.OAuthRemoteFailure, messageOf(error));
    }
  }

  /**
   * A sign-in's start: where to land afterwards (through the open-redirect guard), the redirect_uri on this
   * service's own origin as the browser reached it, and the transaction's expiry.
   */
  pendingTransaction(origin: string, returnUrl: unknown): PendingTransaction {
    return {
      returnUrl: localReturnUrl(returnUrl),
      redirectUri: `${origin}${OAUTH_CALLBACK_PATH}`,
      expiresAt: this.clock.now() + OAUTH_TRANSACTION_LIFETIME_MS,
    };
  }

  /** The sealed transaction cookie that goes with the redirect to the provider. */
  transactionSet(tx: OAuthTransaction, secure: boolean): CookieInstruction {
    const cookie = this.transactionCookie(secure);
    return {
      ...cookie,
      value: this.sealer.seal(tx),
      options: { ...cookie.options, maxAge: OAUTH_TRANSACTION_LIFETIME_MS },
    };
  }

  /** The transaction the callback's cookie holds; null if missing, altered, made with another key or expired. */
  openTransaction(sealed: unknown): OAuthTransaction | null {
    return this.sealer.open(sealed, this.clock.now());
  }

  /** The callback must come the way the provider was told to send it (a FailureTypeId 9 otherwise). */
  checkResponseMode(method: string): void {
    const postExpected = this.responseMode === 'form_post';
    if ((method === 'POST') !== postExpected)
      throw new OAuthFailure(
        FailureType.OAuthLocalValidationFailure,
        `The callback came by ${method}, but the response mode is ${this.responseMode}.`,
      );
  }

  /** The callback clears the transaction whatever happens (single use). */
  transactionCleared(secure: boolean): CookieInstruction {
    return this.transactionCookie(secure);
  }

  /**
   * The end of the callback: never throws; the URL to redirect to (the local return URL on success, the
   * Login page on any failure) after the UserLogin row, and the session's cookies on success. The user must
   * exist, be Active and not locked (spec: OAuth 3); the session comes from the one sign-in completion.
   */
  async finish(outcome: OidcOutcome, client: ClientContext): Promise<OAuthAnswer> {
    try {
      if (outcome.kind === 'error') throw strategyFailure(outcome.error);
      if (outcome.kind === 'fail') throw refusalOf(outcome.challenge);
      const { userName, returnUrl } = outcome.user;
      const user = await this.findUser(userName);
      let signedIn: Awaited<ReturnType<SignInService['complete']>>;
      try {
        signedIn = await this.signIn.complete(
          user,
          {
            userGuid: user.guid,
            typedName: userName,
            authenticationType: AuthenticationType.OAuth,
            verifiedHash: null,
          },
          client,
          // Deactivated, locked or deleted between the lookup and now: the completion wrote the row (1–3).
          () => new AlreadyRecorded(),
        );
      } catch (error) {
        if (error instanceof AlreadyRecorded) throw error;
        throw new OAuthFailure(FailureType.OAuthInternalError, messageOf(error), userName, user.tenantId);
      }
      return {
        location: this.settings.OAuthForceRedirect
          ? localReturnUrl(this.settings.OAuthForceRedirect)
          : returnUrl,
        cookies: signedIn.cookies,
      };
    } catch (error) {
      if (!(error instanceof AlreadyRecorded)) await this.recordFailure(client, error);
      return { location: LOGIN_PAGE_FAILED, cookies: [] };
    }
  }

  private discover(): Promise<oidc.Configuration> {
    if (!this.discovered) {
      const authority = new URL(this.settings.OAuthAuthority ?? '');
      const secret = this.settings.OAuthClientSecret;
      // Plain HTTP only for a provider on this machine (development and tests); anywhere else HTTPS.
      const insecure = authority.protocol === 'http:' && loopback(authority);
      this.discovered = oidc
        .discovery(
          authority,
          this.settings.OAuthClientId ?? '',
          undefined,
          secret ? oidc.ClientSecretBasic(secret) : oidc.None(),
          insecure ? { execute: [oidc.allowInsecureRequests] } : undefined,
        )
        .catch((error: unknown) => {
          this.discovered = undefined;
          throw error;
        });
    }
    return this.discovered;
  }

  /**
   * The identity claim of the verified ID token (OidcStrategy's validate): the first usable claim in
   * OAUTH_IDENTITY_CLAIMS order, a non-empty string of at most 256 characters.
   */
  identityOf(claims: oidc.IDToken | undefined): string {
    // The strategy checks an ID token when one came; the scope asks for one (openid), so none is refused.
    if (!claims) throw new OAuthFailure(FailureType.OAuthLocalValidationFailure, 'No ID token returned.');
    for (const name of OAUTH_IDENTITY_CLAIMS) {
      const value = claims[name];
      if (typeof value === 'string' && value.trim() !== '' && value.length <= MAX_CLAIM) return value.trim();
    }
    throw new OAuthFailure(
      FailureType.OAuthNoUsableClaim,
      `The ID token holds none of the claims ${OAUTH_IDENTITY_CLAIMS.join(', ')} (subject ${String(claims.sub)}).`,
    );
  }

  /** spec: OAuth 3 — the user must exist and be Active (and not Password Locked); none is created. */
  private async findUser(userName: string): Promise<SignInUser> {
    let user: SignInUser | null;
    try {
      user = await this.identity.findSignInUser(userName);
    } catch (error) {
      throw new OAuthFailure(FailureType.OAuthInternalError, messageOf(error), userName);
    }
    const refused = accountFailure(user);
    if (refused !== null || !user)
      throw new OAuthFailure(refused ?? FailureType.UnknownUser, '', userName, user?.tenantId);
    return user;
  }

  private async recordFailure(client: ClientContext, error: unknown): Promise<void> {
    const failure =
      error instanceof OAuthFailure
        ? error
        : new OAuthFailure(FailureType.OAuthInternalError, messageOf(error));
    if (!(error instanceof OAuthFailure) || failure.failureType === FailureType.OAuthInternalError)
      this.logger.error(`OpenID Connect sign-in failed: ${failure.message}`);
    // An unreachable or misconfigured provider is the operator's business, not only the audit table's.
    else if (failure.failureType === FailureType.OAuthRemoteFailure)
      this.logger.warn(`OpenID Connect provider failure: ${failure.message}`);
    try {
      await this.logins.record(client, {
        userName: failure.userName,
        tenantId: failure.tenantId,
        authenticationType: AuthenticationType.OAuth,
        failureType: failure.failureType,
        failureMessage: failure.message,
      });
    } catch (recordError) {
      this.logger.error(`UserLogin row could not be written: ${messageOf(recordError)}`);
    }
  }

  /**
   * The transaction cookie: HttpOnly, only sent to the callback. A form_post callback is a cross-site POST,
   * which carries only SameSite=None cookies, and browsers take those only with Secure: so None+Secure over
   * HTTPS, and Lax over plain HTTP (where only a same-site provider or the GET callback can work).
   */
  private transactionCookie(secure: boolean): CookieInstruction {
    return {
      name: OAUTH_TRANSACTION_COOKIE,
      value: null,
      options: { httpOnly: true, path: OAUTH_CALLBACK_PATH, secure, sameSite: secure ? 'none' : 'lax' },
    };
  }
}
