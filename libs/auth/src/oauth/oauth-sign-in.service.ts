import { Inject, Injectable, Logger } from '@nestjs/common';
import type { CookieOptions, Request, Response } from 'express';
import * as oidc from 'openid-client';
import { SETTINGS, Settings } from '@app/config';
import { Clock } from '@app/common';
import { AuthenticationType, FailureType, LoginRecorder } from '@app/audit';
import { IdentityAuthService, SignInUser } from '@app/identity';
import { AuthProblems } from '../auth-problems';
import { ownOrigin } from '../csrf';
import { SessionCookies } from '../session-cookies';
import { SessionTokens } from '../session-tokens';
import { accountFailure } from '../sign-in.service';
import { localReturnUrl } from './local-return-url';
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
class OAuthFailure extends Error {
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
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly identity: IdentityAuthService,
    private readonly tokens: SessionTokens,
    private readonly cookies: SessionCookies,
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

  /** Starts a sign-in: the transaction cookie, and the provider's authorization URL to redirect to. */
  async begin(req: Request, res: Response, returnUrl: unknown): Promise<string> {
    this.ensureEnabled();
    let config: oidc.Configuration;
    try {
      config = await this.discover();
    } catch (error) {
      // The provider cannot be reached or is misconfigured: this attempt fails here (one row, type 8).
      await this.recordFailure(req, new OAuthFailure(FailureType.OAuthRemoteFailure, messageOf(error)));
      return LOGIN_PAGE_FAILED;
    }
    const origin = ownOrigin(req, this.settings.TrustProxy) ?? `${req.protocol}://127.0.0.1`;
    const tx: OAuthTransaction = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      codeVerifier: oidc.randomPKCECodeVerifier(),
      returnUrl: localReturnUrl(returnUrl),
      redirectUri: `${origin}${OAUTH_CALLBACK_PATH}`,
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
    res.cookie(OAUTH_TRANSACTION_COOKIE, this.sealer.seal(tx), {
      ...this.transactionCookie(req),
      maxAge: OAUTH_TRANSACTION_LIFETIME_MS,
    });
    return url.href;
  }

  /**
   * The callback: never throws; answers the URL to redirect to (the local return URL on success, the
   * Login page on any failure) after writing the UserLogin row.
   */
  async complete(req: Request, res: Response, params: Record<string, unknown>): Promise<string> {
    this.ensureEnabled();
    const sealed: unknown = (req.cookies as Record<string, unknown> | undefined)?.[OAUTH_TRANSACTION_COOKIE];
    // Single use: whatever happens, this transaction is over.
    res.clearCookie(OAUTH_TRANSACTION_COOKIE, this.transactionCookie(req));
    try {
      const tx = this.sealer.open(sealed, this.clock.now());
      if (!tx)
        throw new OAuthFailure(
          FailureType.OAuthLocalValidationFailure,
          'No valid sign-in transaction (the transaction cookie is missing, expired or was altered).',
        );
      const postExpected = !this.settings.OAuthForceGet;
      if ((req.method === 'POST') !== postExpected)
        throw new OAuthFailure(
          FailureType.OAuthLocalValidationFailure,
          `The callback came by ${req.method}, but the response mode is ${postExpected ? 'form_post' : 'query'}.`,
        );
      const claims = await this.exchange(tx, params);
      const userName = this.identityClaim(claims);
      const user = await this.findUser(userName);
      const now = this.clock.now();
      let completed: boolean;
      try {
        completed = await this.identity.completeExternalSignIn(user.id, now);
      } catch (error) {
        throw new OAuthFailure(FailureType.OAuthInternalError, messageOf(error), userName, user.tenantId);
      }
      // Deactivated, locked or deleted between the lookup and now.
      if (!completed) throw await this.stateFailure(userName, user);
      const issued = this.tokens.issue(user.guid, now);
      await this.logins.record(req, {
        userName,
        tenantId: user.tenantId,
        authenticationType: AuthenticationType.OAuth,
      });
      this.cookies.set(req, res, issued);
      return this.settings.OAuthForceRedirect
        ? localReturnUrl(this.settings.OAuthForceRedirect)
        : tx.returnUrl;
    } catch (error) {
      await this.recordFailure(req, error);
      return LOGIN_PAGE_FAILED;
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

  private async exchange(tx: OAuthTransaction, params: Record<string, unknown>): Promise<oidc.IDToken> {
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
  private identityClaim(claims: oidc.IDToken): string {
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

  private async stateFailure(userName: string, before: SignInUser): Promise<OAuthFailure> {
    const now = await this.identity.findSignInUser(userName).catch(() => before);
    if (!now) return new OAuthFailure(FailureType.UnknownUser, '', userName);
    return new OAuthFailure(
      !now.active ? FailureType.NotActive : FailureType.PasswordLocked,
      '',
      userName,
      now.tenantId,
    );
  }

  private async recordFailure(req: Request, error: unknown): Promise<void> {
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
      await this.logins.record(req, {
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
  private transactionCookie(req: Request): CookieOptions {
    return {
      httpOnly: true,
      path: OAUTH_CALLBACK_PATH,
      secure: req.secure,
      sameSite: req.secure ? 'none' : 'lax',
    };
  }
}
