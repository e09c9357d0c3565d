import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { RequestWithActor, ROUTE_ACCESS, RouteAccess } from '@app/common';
import { authorize } from './authorize';
import { CredentialResolver } from './credential-resolver';

/**
 * The one global guard (APP_GUARD). Every route needs a credential unless it is explicitly @Public();
 * a route with no access metadata at all is treated as authenticated (deny by default).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly resolver: CredentialResolver,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = this.reflector.getAllAndOverride<RouteAccess | undefined>(ROUTE_ACCESS, [
      context.getHandler(),
      context.getClass(),
    ]) ?? { kind: 'authenticated' as const };
    if (access.kind === 'public') return true;
    const http = context.switchToHttp();
    const request = http.getRequest<RequestWithActor>();
    if (access.kind === 'optional') {
      // A credential that cannot be accepted, for whatever reason (a database that is down included),
      // makes the caller anonymous.
      request.actor = await this.resolver
        .resolve(request, http.getResponse<Response>())
        .catch(() => undefined);
      return true;
    }
    const actor = await this.resolver.resolve(request, http.getResponse<Response>(), {
      maintainCookie: access.maintainCookie !== false,
    });
    request.actor = actor;
    authorize(actor, access);
    return true;
  }
}
