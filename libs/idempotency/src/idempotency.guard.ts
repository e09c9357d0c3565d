import { type CanActivate, type ExecutionContext, HttpStatus, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ProblemException, setBeforeAnswer } from '@app/problems';
import { type RequestWithActor } from '@app/access';
import { IDEMPOTENT_REPLAYED_HEADER, requestFingerprint } from './idempotency-key';
import type { StoredAnswer } from './idempotency-store';
import { IdempotencyService } from './idempotency.service';

/** The headers of a success that name its result, kept with it and replayed. */
const KEPT_HEADERS = ['Location', 'ETag'];

/**
 * Refusals a retry may succeed past (the request itself was fine): the key is given up rather than the
 * refusal kept. 409: a conflict of the moment (an entry being reprocessed); 429 and 5xx: overload, faults.
 */
const RETRYABLE = new Set<number>([
  HttpStatus.REQUEST_TIMEOUT,
  HttpStatus.CONFLICT,
  425,
  HttpStatus.TOO_MANY_REQUESTS,
]);

function keptHeaders(res: Response): Record<string, string> | undefined {
  let headers: Record<string, string> | undefined;
  for (const name of KEPT_HEADERS) {
    const value = res.getHeader(name);
    if (typeof value === 'string') (headers ??= {})[name] = value;
  }
  return headers;
}

/** Whether an answer of this status is kept: a success, or a final refusal of the request itself. */
function kept(status: number): boolean {
  return status < 400 || (status < 500 && !RETRYABLE.has(status));
}

/** A kept first answer, thrown by the guard so the handler does not run; IdempotentReplayFilter writes it. */
export class IdempotentReplay extends Error {
  constructor(readonly answer: StoredAnswer) {
    super('A kept first answer, replayed');
  }
}

/** A kept refusal as the problem it was (ProblemFilter writes it again). */
function refusalOf(answer: StoredAnswer): ProblemException {
  const {
    type,
    title,
    detail,
    status,
    instance: _instance,
    ...extensions
  } = answer.body as Record<string, unknown>;
  return new ProblemException(
    Number(status),
    String(title),
    typeof detail === 'string' ? detail : undefined,
    String(type),
    extensions,
    answer.headers ?? {},
  );
}

/**
 * The HTTP side of Idempotency-Key on a route (the `@Idempotent()` decorator). Without the header it returns at
 * its first line: the route runs as it always has, with no step added around it. With it, it reads the caller,
 * the route and the request's fingerprint and hands those plain values to IdempotencyService: the first request
 * runs, and its answer is kept by the wait it sets before the answer is written (answer-hook.ts: the adapter's
 * reply for a value, ProblemFilter for a refusal); a retry is answered from the kept answer. It runs after the
 * global guards (the caller is known) and before the pipes.
 */
@Injectable()
export class IdempotencyGuard implements CanActivate {
  constructor(private readonly idempotency: IdempotencyService) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request & RequestWithActor>();
    const key = req.headers['idempotency-key'];
    if (key === undefined || !req.actor) return true;
    return this.claim(req, http.getResponse<Response>(), req.actor.userId, String(key));
  }

  private async claim(req: Request, res: Response, userId: number, key: string): Promise<boolean> {
    const routePath = (req as { route?: { path?: unknown } }).route?.path;
    const route = `${req.method} ${typeof routePath === 'string' ? routePath : req.path}`;
    const fingerprint = requestFingerprint(req.originalUrl, req.body);
    const start = await this.idempotency.begin(userId, route, key, fingerprint);
    if (start.kind === 'replay') {
      res.setHeader(IDEMPOTENT_REPLAYED_HEADER, 'true');
      const { answer } = start;
      if (answer.status !== undefined && answer.status >= 400) throw refusalOf(answer);
      throw new IdempotentReplay(answer);
    }
    const { id } = start;
    let settled = false;
    setBeforeAnswer(res, (status, body, headers) => {
      settled = true;
      if (!kept(status)) return this.idempotency.abandon(id);
      const answer: StoredAnswer =
        status >= 400
          ? { status, body, headers: headers && Object.keys(headers).length > 0 ? headers : undefined }
          : { status: status === 200 ? undefined : status, headers: keptHeaders(res), body };
      return this.idempotency.finish(id, fingerprint, answer);
    });
    // An answer written by neither (another filter's, a closed connection): the key is given up after it.
    res.once('close', () => {
      if (!settled) void this.idempotency.abandon(id);
    });
    return true;
  }
}
