import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { ACTING_REQUEST, type Actor, type AnsweredProblem, type RequestWithActor } from '@app/common';

export type AdminRequest = Request & RequestWithActor & AnsweredProblem;

/** The write request being answered, and whether its AdminEvent row is written already. */
export interface AdminRequestState {
  req: AdminRequest;
  recorded: boolean;
}

/**
 * The write request `actor` acts through (CurrentActor's copy carries it): the services that apply an
 * administrative change take their actor explicitly, and AdminEvents the route, addresses and user agent from
 * here, so no service signature carries HTTP.
 */
export function actingRequest(actor: Actor): AdminRequestState | undefined {
  return actor[ACTING_REQUEST] as AdminRequestState | undefined;
}

/** Told when a write request has been answered (AdminEvents records the refusals). */
export abstract class AnsweredWrites {
  abstract answered(state: AdminRequestState, status: number): void;
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Every write request runs in its own AdminRequestState and is reported when its answer is finished. */
@Injectable()
export class AdminRequestMiddleware implements NestMiddleware {
  constructor(private readonly writes: AnsweredWrites) {}

  use(req: Request, res: Response, next: NextFunction): void {
    // Nest registers a middleware for every method as an Express route (`app.all`), which sets req.route; the
    // route that answers sets it again, and an unknown path must keep none (the request metrics' http.route).
    delete (req as { route?: unknown }).route;
    if (READS.has(req.method)) return next();
    const state: AdminRequestState = { req: req as AdminRequest, recorded: false };
    res.once('finish', () => this.writes.answered(state, res.statusCode));
    (req as AdminRequest)[ACTING_REQUEST] = state;
    next();
  }
}
