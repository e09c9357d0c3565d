import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy as JwtStrategy, type StrategyOptionsWithRequest } from 'passport-jwt';
import type { Actor, CredentialKind } from '@app/access';
import type { HttpRequestLike } from '@app/http-edge';
import type { SessionUser } from '@app/identity';
import { Clock } from '@app/runtime';
import { AuthProblems } from '../auth-problems';
import { isProvablySameOrigin, isUnsafeMethod } from '../csrf';
import { SESSION_TOKEN_SETTINGS, type SessionTokenSettings } from '@app/config';
import { IssuedToken, type SessionClaims, SessionTokens } from '../session-tokens';
import { SessionUserReader } from '../session-user-reader';
import {
  BEARER_JWT_STRATEGY,
  bearerTokenOf,
  COOKIE_JWT_STRATEGY,
  cookieTokenOf,
} from './credential-carriers';

/** What a credential strategy proves: the caller, and for the cookie the session's next token. */
export interface ResolvedCredential {
  actor: Actor;
  /** The cookie's sliding refresh (spec: Session (JWT)): a fresh 15-minute token of the same session. */
  renew?: () => IssuedToken;
}

/** passport-jwt's options for one carrier: HS256 only, the prepared key object, expiry on our clock. */
function sessionJwtOptions(
  tokens: SessionTokens,
  extract: (request: HttpRequestLike) => string | null | undefined,
): StrategyOptionsWithRequest {
  return {
    jwtFromRequest: ExtractJwt.fromExtractors([(request: HttpRequestLike) => extract(request) ?? null]),
    // The KeyObject built once (a string secret would be imported on every request: ~0.7 ms against 25 µs).
    secretOrKeyProvider: (_request: unknown, _token: unknown, done: (err: unknown, key?: unknown) => void) =>
      done(null, tokens.verificationKey),
    algorithms: SessionTokens.algorithms,
    // Expiry (30 s tolerance) is judged in validate against the service's clock (SessionTokens.claimsOf).
    ignoreExpiration: true,
    passReqToCallback: true,
  } as unknown as StrategyOptionsWithRequest;
}

/**
 * What the bearer and the cookie strategy both do once the signature is good: the claims (expiry, absolute
 * lifetime), then the user from the database on EVERY request (TokensValidFrom, state, permissions; the
 * single-flight rule of SessionUserReader). A database that cannot answer throws (503), never a pass.
 */
@Injectable()
export class SessionJwtValidation {
  constructor(
    private readonly tokens: SessionTokens,
    private readonly users: SessionUserReader,
  ) {}

  async actorOf(payload: unknown, credential: CredentialKind): Promise<Actor> {
    // validate runs in the same tick as the guard that started the strategy: this is the request's arrival.
    const arrivedAt = this.users.arrival();
    const claims = this.tokens.claimsOf(payload);
    if (!claims) throw AuthProblems.invalidSession();
    return actorFrom(await this.users.read(claims.sub, arrivedAt), claims, credential);
  }
}

/** The actor of a session whose claims are good, once its user is read; the session's end is a problem. */
function actorFrom(user: SessionUser | null, claims: SessionClaims, credential: CredentialKind): Actor {
  // The automatic password lock is not here: it stops new password sign-ins only (anybody who knows a name can
  // cause it, and must not log anyone out: docs/SECURITY.md).
  if (!user || !user.active) throw AuthProblems.invalidSession();
  if (user.tokensValidFrom !== null && claims.sst < user.tokensValidFrom) throw AuthProblems.invalidSession();
  return {
    userId: user.id,
    userGuid: user.guid,
    userName: user.name,
    tenantId: user.tenantId,
    tenantGuid: user.tenantGuid,
    landlord: user.landlord,
    permissions: user.permissions,
    credential,
    sessionStartedAt: claims.sst,
    tokenExpiresAt: claims.exp * 1000,
  };
}

/**
 * `Authorization: Bearer <session JWT>`: passport-jwt verifies the signature, `validate` judges the claims
 * and the user (TokensValidFrom, state, permissions) on every request. Never refreshed: API clients manage
 * their token.
 */
@Injectable()
export class BearerJwtStrategy extends PassportStrategy(JwtStrategy, BEARER_JWT_STRATEGY) {
  constructor(
    tokens: SessionTokens,
    private readonly sessions: SessionJwtValidation,
  ) {
    super(sessionJwtOptions(tokens, bearerTokenOf));
  }

  /** passport-jwt's verify callback: the signature was good. */
  async validate(_request: HttpRequestLike, payload: unknown): Promise<ResolvedCredential> {
    return { actor: await this.sessions.actorOf(payload, 'bearer') };
  }
}

/**
 * The `authentication-jwt` cookie: the session, then the CSRF origin check of a change (spec: JWT and cookie
 * 7; after the token, so a bad cookie is still a 401), and the sliding refresh the guard applies.
 */
@Injectable()
export class CookieJwtStrategy extends PassportStrategy(JwtStrategy, COOKIE_JWT_STRATEGY) {
  constructor(
    private readonly tokens: SessionTokens,
    private readonly sessions: SessionJwtValidation,
    @Inject(SESSION_TOKEN_SETTINGS.token) private readonly settings: SessionTokenSettings,
    private readonly clock: Clock,
  ) {
    super(sessionJwtOptions(tokens, cookieTokenOf));
  }

  async validate(request: HttpRequestLike, payload: unknown): Promise<ResolvedCredential> {
    const actor = await this.sessions.actorOf(payload, 'cookie');
    if (this.settings.CsrfOriginCheck && isUnsafeMethod(request.method) && !isProvablySameOrigin(request))
      throw AuthProblems.csrf();
    return {
      actor,
      renew: () => this.tokens.issue(actor.userGuid, actor.sessionStartedAt ?? this.clock.now()),
    };
  }
}
