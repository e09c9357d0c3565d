import {
  type CallHandler,
  type ExecutionContext,
  HttpStatus,
  Injectable,
  type NestInterceptor,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { catchError, from, map, mergeMap, type Observable, of, throwError } from 'rxjs';
import { ProblemException, type RequestWithActor } from '@app/common';
import { IDEMPOTENT_REPLAYED_HEADER, requestFingerprint } from './idempotency-key';
import type { StoredAnswer } from './idempotency-store';
import { IdempotencyService } from './idempotency.service';

/** The headers of an answer that name its result, kept with it and replayed. */
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

/** A refusal's answer when it is one worth keeping (a final 4xx problem), else undefined. */
function keptRefusal(error: unknown): StoredAnswer | undefined {
  if (!(error instanceof ProblemException)) return undefined;
  const status = error.getStatus();
  if (status < 400 || status >= 500 || RETRYABLE.has(status)) return undefined;
  return { status, body: error.toProblem(), headers: error.headers };
}

/** The kept answer again: the route's own status for a 2xx, the problem itself for a refusal. */
function replay(res: Response, answer: StoredAnswer): Observable<unknown> {
  res.setHeader(IDEMPOTENT_REPLAYED_HEADER, 'true');
  if (answer.status !== undefined) {
    const {
      type,
      title,
      detail,
      status,
      instance: _instance,
      ...extensions
    } = answer.body as Record<string, unknown>;
    return throwError(
      () =>
        new ProblemException(
          Number(status),
          String(title),
          typeof detail === 'string' ? detail : undefined,
          String(type),
          extensions,
          answer.headers ?? {},
        ),
    );
  }
  for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
  return of(answer.body);
}

/**
 * The HTTP side of Idempotency-Key on a route (the `@Idempotent()` decorator): reads the header, the caller, the
 * route and the request's fingerprint, and hands those plain values to IdempotencyService. Without the header
 * the route runs as it always has. It runs after the guard (the caller is known) and before the pipes.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(private readonly idempotency: IdempotencyService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request & RequestWithActor>();
    const key = req.headers['idempotency-key'];
    if (key === undefined || !req.actor) return next.handle();
    const res = http.getResponse<Response>();
    const routePath = (req as { route?: { path?: unknown } }).route?.path;
    const route = `${req.method} ${typeof routePath === 'string' ? routePath : req.path}`;
    const fingerprint = requestFingerprint(req.originalUrl, req.body);
    return from(this.idempotency.begin(req.actor.userId, route, String(key), fingerprint)).pipe(
      mergeMap((start) => {
        if (start.kind === 'replay') return replay(res, start.answer);
        const { id } = start;
        return next.handle().pipe(
          mergeMap((body: unknown) =>
            from(this.idempotency.finish(id, fingerprint, { headers: keptHeaders(res), body })).pipe(
              map(() => body),
            ),
          ),
          catchError((error: unknown) => {
            const kept = keptRefusal(error);
            const settle = kept
              ? this.idempotency.finish(id, fingerprint, kept)
              : this.idempotency.abandon(id);
            return from(settle).pipe(mergeMap(() => throwError(() => error)));
          }),
        );
      }),
    );
  }
}
