import { Inject, Injectable, Logger } from '@nestjs/common';
import * as oidc from 'openid-client';
import { OAUTH_SETTINGS, type OAuthSettings } from '@app/config';
import { ClientContext, Clock } from '@app/common';
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

/** The callback as the strategy read it from the request. */
export interface OidcCallbackInput {
  /** The transaction cookie's value as it came. */
  sealed: unknown;
  method: string;
  /** form_post body, or the query string with OAuthForceGet. */
  params: Record<string, unknown>;
}

/** How the strategy's run ended, including a thrown failure. */
export type OidcOutcome =
  | { kind: 'success'; user: OidcIdentity }
  | { kind: 'fail' }
  | { kind: 'error'; error: unknown };

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
  private configuration: Promise<oidc.Configuration> | undefined;

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

  /**
   * Starts a sign-in: the provider's authorization URL to redirect to and the sealed transaction cookie.
   * `origin`: this service's own origin as the browser reached it (the redirect_uri is built on it).
   */
  async begin(input: { origin: string; returnUrl: unknown; client: ClientContext }): Promise<OAuthAnswer> {
    this.ensureEnabled();
    let config: oidc.Configuration;
    try {
      config = await this.discover();
    } catch (error) {
      // The provider cannot be reached or is misconfigured: this attempt fails here (one row, type 8).
      await this.recordFailure(
        input.client,
        new OAuthFailure(FailureType.OAuthRemoteFailure, messageOf(error)),
      );
      return { location: LOGIN_PAGE_FAILED, cookies: [] };
    }
    const tx: OAuthTransaction = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      codeVerifier: oidc.randomPKCECodeVerifier(),
      returnUrl: localReturnUrl(input.returnUrl),
      redirectUri: `${input.origin}${OAUTH_CALLBACK_PATH}`,
      expiresAt: this.clock.now() + OAUTH_TRANSACTION_LIFETIME_MS,
    };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: tx.redirectUri,
      response_type: 'code',
      scope: OAUTH_SCOPE,
      code_challenge: await oidc.calculatePKCECodeChallenge(tx.codeVerifier),
      code_challenge_method: 'S256',
      state: tx.state,
      nonce: tx.nonce,
      response_mode: this.settings.OAuthForceGet ? 'query' : 'form_post',
    });
    const cookie = this.transactionCookie(input.client.secure);
    return {
      location: url.href,
      cookies: [
        {
          ...cookie,
          value: this.sealer.seal(tx),
          options: { ...cookie.options, maxAge: OAUTH_TRANSACTION_LIFETIME_MS },
        },
      ],
    };
  }

  /** The callback clears the transaction whatever happens (single use). */
  transactionCleared(secure: boolean): CookieInstruction {
    return this.transactionCookie(secure);
  }

  /**
   * The authorization response (run by OidcStrategy): the sealed transaction, the response mode, then the
   * code and PKCE verifier at the token endpoint and the ID token against the provider's keys. Throws an
   * OAuthFailure (FailureTypeId 8, 9 or 10 with its message).
   */
  async exchange(input: OidcCallbackInput): Promise<{ claims: oidc.IDToken; returnUrl: string }> {
    this.ensureEnabled();
    const tx = this.sealer.open(input.sealed, this.clock.now());
    if (!tx)
      throw new OAuthFailure(
        FailureType.OAuthLocalValidationFailure,
        'No valid sign-in transaction (the transaction cookie is missing, expired or was altered).',
      );
    const postExpected = !this.settings.OAuthForceGet;
    if ((input.method === 'POST') !== postExpected)
      throw new OAuthFailure(
        FailureType.OAuthLocalValidationFailure,
        `The callback came by ${input.method}, but the response mode is ${postExpected ? 'form_post' : 'query'}.`,
      );
    return { claims: await this.tokenExchange(tx, input.params), returnUrl: tx.returnUrl };
  }

  /**
   * The end of the callback: never throws; the URL to redirect to (the local return URL on success, the
   * Login page on any failure) after the UserLogin row, and the session's cookies on success. The user must
   * exist, be Active and not locked (spec: OAuth 3); the session comes from the one sign-in completion.
   */
  async finish(outcome: OidcOutcome, client: ClientContext): Promise<OAuthAnswer> {
    try {
      if (outcome.kind === 'error') throw outcome.error;
      if (outcome.kind !== 'success')
        throw new OAuthFailure(FailureType.OAuthLocalValidationFailure, 'The sign-in was not completed.');
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
        location: this.settings.OAuthForceRedirect ? localReturnUrl(this.settings.OAuthForceRedirect) : returnUrl,
        cookies: signedIn.cookies,
      };
    } catch (error) {
      if (!(error instanceof AlreadyRecorded)) await this.recordFailure(client, error);
      return { location: LOGIN_PAGE_FAILED, cookies: [] };
    }
  }

  /** Discovery once (and again after a failure), so a provider that is down at start-up does not matter. */
  private discover(): Promise<oidc.Configuration> {
    if (!this.configuration) {
      const authority = new URL(this.settings.OAuthAuthority ?? '');
      const secret = this.settings.OAuthClientSecret;
      // Plain HTTP only for a provider on this machine (development and tests); anywhere else HTTPS.
      const insecure = authority.protocol === 'http:' && loopback(authority);
      this.configuration = oidc
        .discovery(
          authority,
          this.settings.OAuthClientId ?? '',
          undefined,
          secret ? oidc.ClientSecretBasic(secret) : oidc.None(),
          insecure ? { execute: [oidc.allowInsecureRequests] } : undefined,
        )
        .catch((error: unknown) => {
          this.configuration = undefined;
          throw error;
        });
    }
    return this.configuration;
  }

  private async tokenExchange(tx: OAuthTransaction, params: Record<string, unknown>): Promise<oidc.IDToken> {
    let config: oidc.Configuration;
    try {
      config = await this.discover();
    } catch (error) {
      throw new OAuthFailure(FailureType.OAuthRemoteFailure, messageOf(error));
    }
    const current = new URL(tx.redirectUri);
    for (const [name, value] of Object.entries(params)) {
      if (typeof value === 'string') current.searchParams.append(name, value);
    }
    try {
      const tokens = await oidc.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: tx.codeVerifier,
        expectedState: tx.state,
        expectedNonce: tx.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) throw new OAuthFailure(FailureType.OAuthLocalValidationFailure, 'No ID token returned.');
      return claims;
    } catch (error) {
      if (error instanceof OAuthFailure) throw error;
      throw new OAuthFailure(failureTypeOf(error), messageOf(error));
    }
  }

  /** The first usable claim in OAUTH_IDENTITY_CLAIMS order: a non-empty string of at most 256 characters. */
  identityClaim(claims: oidc.IDToken): string {
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
