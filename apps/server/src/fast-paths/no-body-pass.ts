import type { NextFunction, Request, Response } from 'express';
import { hasBody } from '@app/input-rules';

export type Middleware = (req: Request, res: Response, next: NextFunction) => void;

/**
 * Fast path (README.md, "no-body pass"): a request without a body (body-parser's own test, type-is's hasBody:
 * most requests, every GET) passes at once, with `req.body` undefined, as both of body-parser's parsers would
 * let it pass, rather than through both of them; every other request goes to `parsers`.
 */
export function noBodyPass(parsers: Middleware): Middleware {
  return (req, res, next) => {
    if (hasBody(req)) {
      parsers(req, res, next);
      return;
    }
    if (!('body' in req)) (req as { body?: unknown }).body = undefined;
    next();
  };
}
