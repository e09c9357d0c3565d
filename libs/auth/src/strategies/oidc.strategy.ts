import { PassportStrategy } from '@nestjs/passport';
import * as oidc from 'openid-client';
import { type AuthenticateOptions, Strategy } from 'openid-client/passport';

export const OIDC_STRATEGY = 'oidc';
/** The request as the strategy's hooks receive it (Express's, typed by the package). */
type StrategyRequest = Parameters<Strategy['currentUrl']>[0];
/** The property of `req.session` the strategy keeps its transaction under (oauth-transaction.ts). */
export const OIDC_SESSION_KEY = 'oidc';

/** The options OAuthController runs the strategy with (AppPassport.run). */
export interface OidcRunOptions extends AuthenticateOptions {
  /** The redirect_uri: sent with the authorization request, repeated to the token endpoint. */
  callbackURL: string;
  /** True on GET …/OAuth/Login (redirect to the provider), false on the callback. */
  initiate: boolean;
}

/** How the identity claim is read from a verified ID token (OAuthSignInService.identityOf). */
export type IdentityOf = (claims: oidc.IDToken | undefined) => string;

/**
 * OpenID Connect sign-in: openid-client's own Passport strategy (authorization code, PKCE S256, ID-token
 * signature, issuer, nonce and state checks), on the Configuration discovery produced. It keeps its
 * transaction in `req.session`, which OAuthController backs with the sealed `oauth-transaction` cookie.
 * Only the strategy's documented extension points are used: the extra authorization request parameters and
 * the choice between starting a sign-in and taking its callback.
 */
export class OidcStrategy extends PassportStrategy(Strategy, OIDC_STRATEGY) {
  constructor(
    config: oidc.Configuration,
    scope: string,
    private readonly responseMode: 'query' | 'form_post',
    private readonly identityOf: IdentityOf,
  ) {
    super({ config, name: OIDC_STRATEGY, sessionKey: OIDC_SESSION_KEY, scope });
  }

  /** spec: OAuth 3 — the identity claim, several likely claims tried in order (FailureTypeId 7 without). */
  validate(tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers): string {
    return this.identityOf(tokens.claims());
  }

  /**
   * The response mode (form_post, or query with OAuthForceGet), and a state and nonce on every request: the
   * strategy adds a state only for providers without PKCE and a nonce only for hybrid flows, while this
   * service binds every callback to its browser by state and every ID token to its request by nonce.
   */
  override authorizationRequestParams<TOptions extends AuthenticateOptions>(
    req: StrategyRequest,
    options: TOptions,
  ): URLSearchParams {
    const params = new URLSearchParams(super.authorizationRequestParams(req, options));
    params.set('response_mode', this.responseMode);
    params.set('state', oidc.randomState());
    params.set('nonce', oidc.randomNonce());
    return params;
  }

  /**
   * Decided by the route, not guessed from the query string: a Login URL carrying `code` must not become a
   * callback, nor a bare GET callback a new sign-in.
   */
  override shouldInitiateAuthRequest<TOptions extends AuthenticateOptions>(
    _req: StrategyRequest,
    _currentUrl: URL,
    options: TOptions,
  ): boolean {
    return (options as Partial<OidcRunOptions>).initiate === true;
  }
}
