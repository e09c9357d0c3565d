import type { Request, Response } from 'express';
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

/**
 * Every write request gets its own AdminRequestState (on the request, for CurrentActor) and is reported to
 * `writes` when its answer is finished. A step of the service's one middleware layer (useHttpMiddleware), not a
 * Nest middleware: that would be one more Express route walked, its path matched, for every request.
 */
export function watchWrites(writes: AnsweredWrites): (req: Request, res: Response) => void {
  return (req, res) => {
    if (READS.has(req.method)) return;
    const state: AdminRequestState = { req: req as AdminRequest, recorded: false };
    res.once('finish', () => writes.answered(state, res.statusCode));
    (req as AdminRequest)[ACTING_REQUEST] = state;
  };
}
