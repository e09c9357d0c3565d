import { metrics } from '@opentelemetry/api';
import { json, urlencoded } from 'express';
import type { NextFunction, Request, Response } from 'express';
import { bodyParserProblem, ProblemException } from '@app/problems';
import { isForm, isJson, markSuspectBody, scanJsonBody } from '@app/input-rules';
import { SERVICE_NAME } from '@app/telemetry';
import { type Middleware, noBodyPass } from './fast-paths/no-body-pass';

/** Largest request body accepted (Invoke: any JSON up to 1 MiB); form bodies 64 KiB. */
export const BODY_LIMIT = 1024 * 1024;
export const FORM_BODY_LIMIT = 64 * 1024;

function jsonCharsetProblem(): ProblemException {
  return new ProblemException(415, 'Unsupported Media Type', 'A JSON body must be UTF-8 (charset=utf-8).');
}

/**
 * The raw bytes of every JSON body, before parsing (the input limits, docs/SECURITY.md): nesting deeper than MAX_JSON_DEPTH and bytes that
 * are not UTF-8 are refused here; an escape of U+0000 or of a surrogate marks the request, and RequestInputGuard
 * names the field once the route is known (after the credential guard).
 */
function verifyJson(req: Request, body: Buffer, encoding: string): void {
  // RFC 8259 8.1: JSON exchanged between systems is UTF-8 (body-parser would also take UTF-16 and 32).
  if (!/^utf-?8$/i.test(encoding)) throw jsonCharsetProblem();
  if (scanJsonBody(body)) markSuspectBody(req);
}

/** Why a body never arrived whole: the client left, or it was too slow (RequestBodyTimeoutMilliseconds). */
export type IncompleteBody = 'client-left' | 'body-timeout';

/**
 * Whether a parser's error means that the body stopped arriving: the request was aborted (raw-body's
 * `request.aborted`) or its connection is gone (an undecodable body is not: its
 * connection is still there for the 400). node:http ends a request that outlived its requestTimeout by
 * destroying the socket with ERR_HTTP_REQUEST_TIMEOUT, after writing its own 408.
 */
export function incompleteBody(req: Request, err: unknown): IncompleteBody | undefined {
  const e = (err ?? {}) as { type?: unknown; code?: unknown };
  const socket = req.socket as (typeof req.socket & { errored?: { code?: unknown } | null }) | null;
  const gone = e.type === 'request.aborted' || e.code === 'ECONNRESET' || socket?.destroyed === true;
  if (!gone) return undefined;
  return socket?.errored?.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'body-timeout' : 'client-left';
}

/**
 * A body that never arrived whole (a client that hangs up mid-body), wherever it was being read: nobody is left to answer, so
 * it is no error of the service's. The request's status is set for its one request line (400 when the client
 * left, 408 when it was cut: node:http has sent that answer), it is counted in service.http.request.incomplete
 * (the process's meter provider: the service's once it started), and the request goes no further.
 */
function endIncomplete(res: Response, reason: IncompleteBody): void {
  res.statusCode = reason === 'body-timeout' ? 408 : 400;
  // Looked up each time (it is rare): the process's provider is the service's once it has started.
  metrics
    .getMeter(SERVICE_NAME)
    .createCounter('service.http.request.incomplete', {
      description:
        'Request bodies that never arrived whole: the client left, or RequestBodyTimeoutMilliseconds ran out.',
    })
    .add(1, { reason });
  if (!res.writableEnded) res.end();
}

/** body-parser's JSON parser, then its form parser, both ending in `done`. */
export function libraryParsers(): Middleware {
  const jsonParser = json({
    type: (req) => isJson(req as Request),
    limit: BODY_LIMIT,
    verify: (req: Request, _res: Response, body: Buffer, encoding: string) => verifyJson(req, body, encoding),
  });
  const formParser = urlencoded({
    type: (req) => isForm(req as Request),
    limit: FORM_BODY_LIMIT,
    extended: false,
  });
  const done = (req: Request, res: Response, next: NextFunction) => (err?: unknown) => {
    if (!err) return next();
    const incomplete = incompleteBody(req, err);
    if (incomplete) endIncomplete(res, incomplete);
    else next(bodyParserProblem(err, true) ?? err);
  };
  return (req, res, next) =>
    jsonParser(req, res, (err?: unknown) =>
      err ? done(req, res, next)(err) : formParser(req, res, done(req, res, next)),
    );
}

/**
 * JSON, then form bodies, by body-parser (libraryParsers). Our own parsers, so their errors become problems with
 * our wording before Nest rewraps them; every JSON body's raw bytes are checked by verifyJson before parsing. A
 * body that never arrived whole is ended quietly (endIncomplete); every other error becomes its problem. A
 * request without a body passes at once (fast path: noBodyPass).
 */
export function bodyParsers(): Middleware {
  return noBodyPass(libraryParsers());
}
