import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { Actor } from './actor';

/** Where the global guard leaves the resolved caller. */
export interface RequestWithActor extends Request {
  actor?: Actor;
}

/** Injects the authenticated caller; only valid on @Authenticated routes. */
export const CurrentActor = createParamDecorator((_data: unknown, ctx: ExecutionContext): Actor => {
  const req = ctx.switchToHttp().getRequest<RequestWithActor>();
  if (!req.actor) throw new Error('CurrentActor used on a route without an authenticated caller');
  return req.actor;
});
