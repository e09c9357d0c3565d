import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Actor } from './actor';
import { clientContextOf, type ClientContext, type HttpRequestLike } from '@app/http-edge';

/** Where the global guard leaves the resolved caller. */
export interface RequestWithActor extends HttpRequestLike {
  actor?: Actor;
}

/**
 * Injects the authenticated caller; only valid on @Authenticated routes. On an administrative write
 * (@AdminAction) the guard's Actor carries the plain values its AdminEvent row needs (Actor.adminWrite).
 */
export const CurrentActor = createParamDecorator((_data: unknown, ctx: ExecutionContext): Actor => {
  const req = ctx.switchToHttp().getRequest<RequestWithActor>();
  if (!req.actor) throw new Error('CurrentActor used on a route without an authenticated caller');
  return req.actor;
});

/** Injects the plain ClientContext of the request (addresses, user agent, HTTPS): what services take. */
export const Client = createParamDecorator((_data: unknown, ctx: ExecutionContext): ClientContext =>
  clientContextOf(ctx.switchToHttp().getRequest<HttpRequestLike>()),
);
