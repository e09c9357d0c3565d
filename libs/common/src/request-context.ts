import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { ACTING_REQUEST, type Actor } from './actor';
import { ADMIN_ACTION } from './admin-action';
import { clientContextOf, type ClientContext, type HttpRequestLike } from './client-address';

/** Where the global guard leaves the resolved caller. */
export interface RequestWithActor extends HttpRequestLike {
  actor?: Actor;
  /** The write request's state for AdminEvents (the admin-request middleware). */
  [ACTING_REQUEST]?: object;
}

/** Whether a handler is an administrative write (@AdminAction), remembered per handler. */
const administrative = new WeakMap<object, boolean>();
function isAdministrative(handler: object): boolean {
  let known = administrative.get(handler);
  if (known === undefined) administrative.set(handler, (known = Reflect.hasMetadata(ADMIN_ACTION, handler)));
  return known;
}

/**
 * Injects the authenticated caller; only valid on @Authenticated routes. For an administrative write
 * (@AdminAction), a copy that carries the request (ACTING_REQUEST) for AdminEvents: the guard's Actor may be
 * shared by concurrent requests of one credential. Any other route gets the guard's Actor itself (an Invoke
 * pays for no copy).
 */
export const CurrentActor = createParamDecorator((_data: unknown, ctx: ExecutionContext): Actor => {
  const req = ctx.switchToHttp().getRequest<RequestWithActor>();
  if (!req.actor) throw new Error('CurrentActor used on a route without an authenticated caller');
  const acting = req[ACTING_REQUEST];
  return acting === undefined || !isAdministrative(ctx.getHandler())
    ? req.actor
    : { ...req.actor, [ACTING_REQUEST]: acting };
});

/** Injects the plain ClientContext of the request (addresses, user agent, HTTPS): what services take. */
export const Client = createParamDecorator((_data: unknown, ctx: ExecutionContext): ClientContext =>
  clientContextOf(ctx.switchToHttp().getRequest<HttpRequestLike>()),
);
