import { metrics } from '@opentelemetry/api';
import { json, urlencoded } from 'express';
import type { NextFunction, Request, Response } from 'express';
import {
  bodyParserProblem,
  hasBody,
  isForm,
  isJson,
  markSuspectBody,
  ProblemException,
  scanJsonBody,
} from '@app/common';
import { SERVICE_NAME } from '@app/telemetry';

type Middleware = (req: Request, res: Response, next: NextFunction) => void;

/** Largest request body accepted (Invoke: any JSON up to 1 MiB); form bodies 64 KiB. */
export const BODY_LIMIT = 1024 * 1024;
export const FORM_BODY_LIMIT = 64 * 1024;

function jsonCharsetProblem(): ProblemException {
  return new ProblemException(415, 'Unsupported Media Type', 'A JSON body must be UTF-8 (charset=utf-8).');
}

/**
 * The raw bytes of every JSON body, before parsing (issue 14): nesting deeper than MAX_JSON_DEPTH and bytes that
 * are not UTF-8 are refused here; an escape of U+0000 or of a surrogate marks the request, and RequestInputGuard
 * names the field once the route is known (after the credential guard).
 */
function verifyJson(req: Request, body: Buffer, encoding: string): void {
  // RFC 8259 8.1: JSON exchanged between systems is UTF-8 (body-parser would also take UTF-16 and 32).
  if (!/^utf-?8$/i.test(encoding)) throw jsonCharsetProblem();
  if (scanJsonBody(body)) markSuspectBody(req);
}

/** An error shaped as body-parser gives it (http-errors' fields), so problemOf answers it as it answers theirs. */
function readError(message: string, type: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(message), { expose: true, status: 400, statusCode: 400, type, ...extra });
}

/** The Content-Type values (lower case) of the direct path: application/json, plain or with charset utf-8. */
const PLAIN_JSON = new Set([
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset=utf-8',
]);
const CONTENT_LENGTH = /^[1-9][0-9]{0,9}$/;
/** body-parser's strict mode: the first character that is not JSON whitespace ('' when there is none). */
const FIRST_NON_WHITESPACE = /^[ \t\n\r]*([^ \t\n\r]|$)/;

/**
 * The common JSON body read directly, with body-parser's outcome: `application/json` (or with `charset=utf-8`),
 * a Content-Length of at most `limit`, no Content-Encoding or Transfer-Encoding, a request stream no one has read.
 * Answers whether it took the request; every other request goes to body-parser, as before, so compressed,
 * chunked, oversized and other charsets are answered exactly as they were. Here the bytes are collected as they come, checked by verifyJson,
 * decoded as UTF-8 with a leading BOM dropped (iconv-lite's decode, which body-parser uses, drops it), held to
 * body-parser's strict rule (an object or an array), and parsed; a failure is reported with body-parser's error
 * type and status, and the caller turns both kinds into the same problems. Why: body-parser's read (type-is, the
 * content-type parse, raw-body's listeners and limits, iconv-lite's decoder) cost about 9 µs of every JSON
 * request on bare Express on this machine, against about 1 for this (docs/decisions.md, Performance).
 */
function directJson(limit: number): (req: Request, done: (err?: unknown) => void) => boolean {
  return (req, next) => {
    const headers = req.headers;
    const type = headers['content-type'];
    const declared = headers['content-length'];
    const length = declared !== undefined && CONTENT_LENGTH.test(declared) ? Number(declared) : 0;
    if (
      type === undefined ||
      length === 0 ||
      length > limit ||
      headers['transfer-encoding'] !== undefined ||
      headers['content-encoding'] !== undefined ||
      !PLAIN_JSON.has(type.toLowerCase()) ||
      req.readableFlowing !== null ||
      req.readableEnded ||
      req.destroyed
    )
      return false;
    if (!('body' in req)) (req as { body?: unknown }).body = undefined;
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      chunks.push(chunk);
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('aborted', onAborted);
      req.off('error', onError);
      req.off('close', cleanup);
    };
    // as raw-body reports them (body-parser passes them on with status 400)
    const onAborted = () => {
      cleanup();
      next(
        readError('request aborted', 'request.aborted', {
          code: 'ECONNABORTED',
          expected: length,
          length,
          received,
        }),
      );
    };
    const onError = (err: Error & { status?: unknown; statusCode?: unknown }) => {
      cleanup();
      const status = Number(err.status ?? err.statusCode) || 400;
      next(Object.assign(err, { expose: status < 500, status, statusCode: status }));
    };
    const onEnd = () => {
      cleanup();
      if (received !== length) {
        next(
          readError('request size did not match content length', 'request.size.invalid', {
            expected: length,
            length,
            received,
          }),
        );
        return;
      }
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received);
      try {
        verifyJson(req, body, 'utf-8');
      } catch (err) {
        // body-parser hands a verify error on as it is, with status 403 when it has none
        next(
          err instanceof ProblemException
            ? err
            : readError('verify failed', 'entity.verify.failed', { status: 403, statusCode: 403 }),
        );
        return;
      }
      // verifyJson refused bytes that are not UTF-8, so this decodes exactly what iconv-lite would
      let text = body.toString('utf8');
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (text.length === 0) {
        (req as { body?: unknown }).body = {}; // body-parser's special case of an empty JSON body
        next();
        return;
      }
      const first = text[0] === '{' || text[0] === '[' ? text[0] : FIRST_NON_WHITESPACE.exec(text)?.[1];
      let parsed: unknown;
      try {
        if (first !== '{' && first !== '[') throw new SyntaxError('strict violation');
        parsed = JSON.parse(text);
      } catch {
        next(readError('The request body is not valid JSON.', 'entity.parse.failed'));
        return;
      }
      (req as { body?: unknown }).body = parsed;
      next();
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('aborted', onAborted);
    req.on('error', onError);
    req.on('close', cleanup);
    return true;
  };
}

/** Why a body never arrived whole: the client left, or it was too slow (RequestBodyTimeoutMilliseconds). */
export type IncompleteBody = 'client-left' | 'body-timeout';

/**
 * Whether a parser's error means that the body stopped arriving: the request was aborted (raw-body's
 * `request.aborted`, the direct reader's too) or its connection is gone (an undecodable body is not: its
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
 * A body that never arrived whole (security issue 37), wherever it was being read: nobody is left to answer, so
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

/**
 * JSON, then form bodies. Our own parsers, so their errors become problems with our wording before Nest rewraps
 * them; every JSON body's raw bytes are checked by verifyJson before parsing. The common JSON body is read
 * directly (directJson), every other one by body-parser; `direct: false` sends every one to body-parser (the
 * tests compare the two). A request without a body (body-parser's own test, hasBody) passes untouched, here at
 * once rather than through both of body-parser's parsers. Both parsers end in `done`, where a body that never
 * arrived whole is ended quietly (endIncomplete) and every other error becomes its problem.
 */
export function bodyParsers(options: { direct?: boolean } = {}): Middleware {
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
  const parsers: Middleware = (req, res, next) =>
    jsonParser(req, res, (err?: unknown) =>
      err ? done(req, res, next)(err) : formParser(req, res, done(req, res, next)),
    );
  if (options.direct === false) return parsers;
  const direct = directJson(BODY_LIMIT);
  return (req, res, next) => {
    if (!hasBody(req)) {
      // what both of body-parser's parsers do with a request that has no body (most of them: every GET)
      if (!('body' in req)) (req as { body?: unknown }).body = undefined;
      next();
      return;
    }
    if (!direct(req, done(req, res, next))) parsers(req, res, next);
  };
}
