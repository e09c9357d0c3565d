import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { SETTINGS, Settings } from '@app/config';
import { Actor, Clock, CredentialKind, Problems } from '@app/common';
import { ApiKeyValidator } from './api-key-validator';
import { AuthProblems } from './auth-problems';
import { CredentialResolver, ResolveOptions } from './credential-resolver';
import { isProvablySameOrigin, isUnsafeMethod } from './csrf';
import { JWT_COOKIE, SessionCookies } from './session-cookies';
import { SessionTokens } from './session-tokens';
import { SessionUserReader } from './session-user-reader';

/** The credential carriers, in the one order of precedence (spec: Credentials and precedence 1). */
type Carrier =
  | { kind: 'api-key'; value: string }
  | { kind: 'bearer'; value: string | null }
  | { kind: 'cookie'; value: string }
  | { kind: 'none' };

const BEARER_TOKEN = /^[ ]+([A-Za-z0-9_.~+/=-]+)[ ]*$/;
const BEARER_SCHEME = /^bearer(?=[ ]|$)/i;

/**
 * THE ordered function: the first carrier present is the only one evaluated. A present but bad credential
 * is a 401 even when a later carrier would have been good.
 */
export function presentedCredential(request: Request): Carrier {
  const apiKey = request.headers['x-api-key']; // Node lower-cases header names
  if (apiKey !== undefined) return { kind: 'api-key', value: Array.isArray(apiKey) ? '' : apiKey };
  // An Authorization header is the bearer carrier only when its scheme is Bearer (any letter case), even with
  // a malformed token (a 401); any other scheme (Basic from a reverse proxy, Negotiate) is not a credential
  // of this API and does not hide the cookie.
  const authorization = request.headers.authorization;
  if (authorization !== undefined && BEARER_SCHEME.test(authorization))
    return { kind: 'bearer', value: BEARER_TOKEN.exec(authorization.slice(6))?.[1] ?? null };
  const cookies = request.cookies as Record<string, unknown> | undefined;
  const cookie = cookies?.[JWT_COOKIE];
  if (cookie !== undefined) return { kind: 'cookie', value: typeof cookie === 'string' ? cookie : '' };
  return { kind: 'none' };
}

/** The real resolver: API key (validator), then bearer JWT, then cookie JWT. Deny by default. */
@Injectable()
export class SessionCredentialResolver extends CredentialResolver {
  constructor(
    @Inject(SETTINGS) private readonly settings: Settings,
    private readonly apiKeys: ApiKeyValidator,
    private readonly tokens: SessionTokens,
    private readonly users: SessionUserReader,
    private readonly cookies: SessionCookies,
    private readonly clock: Clock,
  ) {
    super();
  }

  async resolve(request: Request, response: Response, options: ResolveOptions = {}): Promise<Actor> {
    const arrivedAt = this.users.arrival();
    const carrier = presentedCredential(request);
    switch (carrier.kind) {
      case 'api-key':
        return this.apiKeys.validate(carrier.value, request);
      case 'bearer':
        if (!carrier.value) throw AuthProblems.invalidSession();
        return this.jwt(carrier.value, 'bearer', arrivedAt);
      case 'cookie': {
        const actor = await this.jwt(carrier.value, 'cookie', arrivedAt);
        // spec: JWT and cookie 7 — bearer and API-key requests are exempt (no ambient credential).
        if (
          this.settings.CsrfOriginCheck &&
          isUnsafeMethod(request.method) &&
          !isProvablySameOrigin(request, this.settings.TrustProxy)
        ) {
          throw AuthProblems.csrf();
        }
        // spec: Session (JWT) — every user-interface request replaces the token, keeping the session start;
        // spec: Credentials 5 — not on the real-time integration routes.
        if (options.maintainCookie === false) return actor;
        const fresh = this.tokens.issue(actor.userGuid, actor.sessionStartedAt ?? this.clock.now());
        this.cookies.set(request, response, fresh);
        actor.tokenExpiresAt = fresh.expiresAt;
        return actor;
      }
      case 'none':
        throw Problems.unauthenticated();
    }
  }

  private async jwt(token: string, credential: CredentialKind, arrivedAt: number): Promise<Actor> {
    const claims = this.tokens.verify(token);
    if (!claims) throw AuthProblems.invalidSession();
    // TokensValidFrom, state and permissions from the database on every request; a database that cannot
    // answer throws, and the problem filter turns that into a 503: never let through.
    const user = await this.users.read(claims.sub, arrivedAt);
    if (!user || !user.active || user.passwordLocked) throw AuthProblems.invalidSession();
    if (user.tokensValidFrom !== null && claims.sst < user.tokensValidFrom)
      throw AuthProblems.invalidSession();
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
}
