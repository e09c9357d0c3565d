import { CanActivate, ExecutionContext, Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import {
  Actor,
  adminRouteOf,
  type AdminRoute,
  RequestWithActor,
  ROUTE_ACCESS,
  RouteAccess,
} from '@app/access';
import { clientContextOf } from '@app/http-edge';
import { perRoute } from '@app/input-rules';
import { Problems } from '@app/problems';
import { authorize } from './authorize';
import { writeCookies } from './http/session-response';
import { SessionCookies } from './session-cookies';
import { AppPassport } from './strategies/app-passport';
import { CREDENTIAL_CARRIERS, CredentialCarrier } from './strategies/credential-carriers';
import type { ResolvedCredential } from './strategies/session-jwt.strategies';

const NO_STORE = 'no-store';

export interface ResolveOptions {
  /** Refresh the cookie of a cookie-authenticated request (default true; false on the Invoke routes). */
  maintainCookie?: boolean;
}

/**
 * The one global guard (APP_GUARD). Every route needs a credential unless it is explicitly @Public(); a
 * route with no access metadata at all is treated as authenticated (deny by default).
 *
 * Credential precedence (spec: Credentials and precedence 1) is the ordered carrier list
 * (CREDENTIAL_CARRIERS): the FIRST carrier the request presents picks the ONE Passport strategy that runs. A
 * refusal is that carrier's 401 (or the strategy's own problem: 403 CSRF, 503 database) and never falls
 * through to the next carrier: no `AuthGuard(['a', 'b'])` chain, which would try the next on failure. The
 * strategy runs through passport.authenticate (AppPassport.run), this application's own Passport.
 */
@Injectable()
export class PrecedenceGuard implements CanActivate, OnModuleInit {
  constructor(
    private readonly reflector: Reflector,
    private readonly moduleRef: ModuleRef,
    @Inject(CREDENTIAL_CARRIERS) private readonly carriers: readonly CredentialCarrier[],
    private readonly cookies: SessionCookies,
    private readonly passport: AppPassport,
  ) {}

  /** Each carrier's strategy, this application's own instance (whatever module registered it), by its name. */
  onModuleInit(): void {
    for (const carrier of this.carriers)
      this.passport.use(carrier.name, this.moduleRef.get(carrier.strategy, { strict: false }));
  }

  /** Each route's access, read from its metadata once. */
  private readonly accessOf = perRoute(
    (controller, handler): RouteAccess =>
      this.reflector.getAllAndOverride<RouteAccess | undefined>(ROUTE_ACCESS, [handler, controller]) ?? {
        kind: 'authenticated' as const,
      },
  );

  /** Each route's administrative write (@AdminAction), read from its metadata once; undefined: none. */
  private readonly adminRoute = perRoute((_controller, handler) => adminRouteOf(handler));

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const http = context.switchToHttp();
    const response = http.getResponse<Response>();
    // No answer of the API is kept by a browser or a shared cache. Nearly every one depends on
    // a credential (and the public ones carry or decide one: sign-in, WirePasswordHash, logout, readiness), so
    // every route's answer says so, its refusals included; a handler may still say otherwise.
    response.setHeader('Cache-Control', NO_STORE);
    const access = this.accessOf(context);
    if (access.kind === 'public') return true;
    const request = http.getRequest<Request & RequestWithActor>();
    if (access.kind === 'optional') {
      // A credential that cannot be accepted, for whatever reason (a database that is down included),
      // makes the caller anonymous.
      return this.resolve(request, response).then(
        (actor) => ((request.actor = actor), true),
        () => ((request.actor = undefined), true),
      );
    }
    const adminRoute = this.adminRoute(context);
    return this.credentialOf(request, response, { maintainCookie: access.maintainCookie !== false }).then((a) => {
      request.actor = adminRoute ? withAdminWrite(a, adminRoute, request) : a;
      authorize(a, access);
      return true;
    });
  }

  /**
   * The request's credential as an Actor, or the problem that refuses it. Also the API explorer's gate
   * (create-app). A cookie-authenticated request is answered with the session's next token (spec: Session
   * (JWT)), unless `maintainCookie` is false (spec: Credentials 5, the Invoke routes).
   */
  async resolve(request: Request, response: Response, options: ResolveOptions = {}): Promise<Actor> {
    response.setHeader('Cache-Control', NO_STORE);
    return this.credentialOf(request, response, options);
  }

  /** The one strategy of the first carrier present, run through Passport; its refusal never falls through. */
  private async credentialOf(request: Request, response: Response, options: ResolveOptions): Promise<Actor> {
    const carrier = this.carriers.find((c) => c.present(request));
    if (!carrier) throw Problems.unauthenticated();
    const ended = await this.passport.run<ResolvedCredential>(carrier.name, request, response);
    if (ended.kind !== 'success') throw carrier.refusal();
    const { actor, renew } = ended.user;
    if (renew && options.maintainCookie !== false) {
      const fresh = renew();
      writeCookies(response, this.cookies.forSession(fresh, request.secure));
      actor.tokenExpiresAt = fresh.expiresAt;
    }
    return actor;
  }
}

/**
 * A copy of `actor` (an API key's Actor is shared by concurrent requests) carrying what the AdminEvent row of
 * an administrative write needs, as plain values: the route's action, its target, the client, the API key's
 * identifier. Stamped before the permission check, so a refused write is recorded too.
 */
function withAdminWrite(actor: Actor, route: AdminRoute, request: Request): Actor {
  const key = request.headers['x-api-key'];
  const param = route.targetParam === null ? undefined : request.params[route.targetParam ?? 'guid'];
  return {
    ...actor,
    adminWrite: {
      route,
      targetGuid: typeof param === 'string' ? param : null,
      client: clientContextOf(request),
      apiKeyIdentifier: actor.credential === 'api-key' && typeof key === 'string' ? key.slice(0, 8) : null,
      recorded: false,
    },
  };
}
