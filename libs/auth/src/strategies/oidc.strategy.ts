import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { IDToken } from 'openid-client';
import { Strategy } from 'passport-strategy';
import type { HttpRequestLike } from '@app/common';
import { OAUTH_TRANSACTION_COOKIE } from '../oauth/oauth-transaction';
import { OAuthSignInService, OidcCallbackInput, OidcIdentity } from '../oauth/oauth-sign-in.service';

export const OIDC_STRATEGY = 'oidc';

/** The request as the callback arrives: Express's parsed body and query string. */
type CallbackRequest = HttpRequestLike & { body?: unknown; query?: unknown };

interface Exchanged {
  claims: IDToken;
  returnUrl: string;
}

type Verify = (exchanged: Exchanged, done: (err: unknown, user?: OidcIdentity | false) => void) => void;

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};

/**
 * A small Passport strategy for the authorization response of an OpenID Connect code flow with PKCE, around
 * openid-client (docs/decisions.md: why not openid-client/passport). The transaction (state, nonce, PKCE
 * verifier, returnUrl) lives in the sealed, stateless `oauth-transaction` cookie, not in a session store.
 * The authorization request itself is built by OAuthSignInService.begin (GET …/OAuth/Login).
 */
export class OidcCodeStrategy extends Strategy {
  name = OIDC_STRATEGY;

  constructor(
    private readonly flow: { exchange(input: OidcCallbackInput): Promise<Exchanged> },
    private readonly verify: Verify,
  ) {
    super();
  }

  override authenticate(req: CallbackRequest): void {
    const input: OidcCallbackInput = {
      sealed: req.cookies?.[OAUTH_TRANSACTION_COOKIE],
      method: req.method,
      // form_post (the default response mode) or the query string (OAuthForceGet).
      params: req.method === 'POST' ? record(req.body) : record(req.query),
    };
    this.flow.exchange(input).then(
      (exchanged) =>
        this.verify(exchanged, (err, user) => {
          if (err) this.error(err as Error);
          else if (!user) this.fail(401);
          else this.success(user);
        }),
      (err: unknown) => this.error(err as Error),
    );
  }
}

/** OpenID Connect sign-in's callback, run by OAuthController. */
@Injectable()
export class OidcStrategy extends PassportStrategy(OidcCodeStrategy, OIDC_STRATEGY) {
  constructor(private readonly oauth: OAuthSignInService) {
    super({ exchange: (input: OidcCallbackInput) => oauth.exchange(input) });
  }

  /** spec: OAuth 3 — the identity claim, several likely claims tried in order (FailureTypeId 7 without). */
  validate(exchanged: Exchanged): OidcIdentity {
    return { userName: this.oauth.identityClaim(exchanged.claims), returnUrl: exchanged.returnUrl };
  }
}
