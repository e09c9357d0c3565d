import type { Request, Response } from 'express';
import type { Actor, RequestWithActor } from '@app/access';
import type { AnsweredProblem } from '@app/problems';

/** Told when a write request has been answered (AdminEvents records the refusals). */
export abstract class AnsweredWrites {
  /**
   * `actor` is the request's caller (undefined: none was accepted); `message` the detail of the problem it was
   * answered with, if any.
   */
  abstract answered(actor: Actor | undefined, status: number, message: string | null): void;
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Every write request is reported to `writes` when its answer is finished, with the plain values the guard
 * left: its caller (an administrative route's Actor carries its AdminWriteContext) and the answered problem's
 * detail. A step of the service's one middleware layer (useHttpMiddleware), not a Nest middleware: that would
 * be one more Express route walked, its path matched, for every request.
 */
export function watchWrites(writes: AnsweredWrites): (req: Request, res: Response) => void {
  return (req, res) => {
    if (READS.has(req.method)) return;
    const answered = req as Request & RequestWithActor & AnsweredProblem;
    res.once('finish', () =>
      writes.answered(answered.actor, res.statusCode, answered.answeredProblem?.detail ?? null),
    );
  };
}
