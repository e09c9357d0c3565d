import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Response } from 'express';
import { takeBeforeAnswer } from '@app/problems';
import { type ExpressApplication, expressServer } from './fast-paths/express-prototypes';
import { hashedETagOf, ifNoneMatchHolds, takesHashedETag } from '@app/http-edge';
import { isPlainJsonAnswer, jsonAnswer, writeJsonText } from './fast-paths/json-reply';
import { useMethodNotAllowed } from './route-methods.middleware';
import { answerClientErrors } from './client-errors';

/** node:http's own limits on receiving a request (unset: Node's defaults, 300 s and 60 s, checked every 30 s). */
export interface RequestTimeouts {
  requestTimeout?: number;
  headersTimeout?: number;
  connectionsCheckingInterval?: number;
}

/**
 * RequestBodyTimeoutMilliseconds as node:http's limits (a slow sender must not hold a connection open): a request whose head and body have
 * not all arrived by then is answered 408 by node:http itself and its connection closed. The headers' limit is
 * node:http's 60 s or the request's, whichever is shorter (node:http requires it to be), and the connections are
 * checked often enough for the limit to hold within about a quarter of it (node:http checks every 30 s).
 */
export function requestTimeouts(requestBodyTimeoutMilliseconds: number): RequestTimeouts {
  return {
    requestTimeout: requestBodyTimeoutMilliseconds,
    headersTimeout: Math.min(60_000, requestBodyTimeoutMilliseconds),
    connectionsCheckingInterval: Math.min(
      30_000,
      Math.max(250, Math.floor(requestBodyTimeoutMilliseconds / 4)),
    ),
  };
}

/** The headers of a full answer that a 304 does not carry (RFC 9110 §15.4.5): it has no content. */
const CONTENT_HEADERS = ['Content-Type', 'Content-Length', 'Transfer-Encoding'] as const;

/**
 * THE conditional-GET step, where a handler's answer is written (ServiceExpressAdapter.reply): a list's or a
 * grid's JSON answer gets the hash of its text as a weak ETag (the text made once: hashed, then written), and
 * a GET whose If-None-Match holds against the answer's ETag (a record's version, that hash) or is `*` is
 * answered 304 with the ETag and no body, whatever the request's Cache-Control (ifNoneMatchHolds; why not
 * Express's `fresh`: docs/decisions.md). Answers true when it has answered, false to let the reply go on.
 */
export function answerConditionally(response: Response, body: unknown): boolean {
  const { method, headers } = response.req;
  const status = response.statusCode;
  if ((method !== 'GET' && method !== 'HEAD') || status < 200 || status > 299 || response.headersSent)
    return false;
  let text: string | undefined;
  if (
    response.getHeader('etag') === undefined &&
    response.getHeader('content-type') === undefined &&
    takesHashedETag(response, body)
  ) {
    text = JSON.stringify(body);
    if (text !== undefined) response.setHeader('ETag', hashedETagOf(text));
  }
  if (ifNoneMatchHolds(headers['if-none-match'], response.getHeader('etag'))) {
    response.status(304);
    for (const name of CONTENT_HEADERS) response.removeHeader(name);
    response.end();
    return true;
  }
  if (text === undefined) return false;
  writeJsonText(response, text);
  return true;
}

/**
 * Nest's Express adapter on expressServer (fast path: Express prototypes at birth), writing handlers' plain JSON
 * answers itself (fast path: the direct JSON reply, jsonAnswer; fast-paths/README.md). HTTPS
 * options and forceCloseConnections (neither used by the service) keep Nest's own server. Once every route is
 * registered, a request to an /api path with another method is answered 405 with Allow (or OPTIONS 204) instead
 * of Nest's 404 (useMethodNotAllowed, from Express's own list of routes).
 */
export class ServiceExpressAdapter extends ExpressAdapter {
  constructor(private readonly timeouts: RequestTimeouts = {}) {
    super();
  }

  override setNotFoundHandler(
    handler: Parameters<ExpressAdapter['setNotFoundHandler']>[0],
    prefix?: string,
  ): void {
    // after every route (Nest registers the 404 last), before the 404
    useMethodNotAllowed(this.getInstance());
    super.setNotFoundHandler(handler, prefix);
  }

  override initHttpServer(options: NestApplicationOptions): void {
    if (options?.httpsOptions || options?.forceCloseConnections) return super.initHttpServer(options);
    this.httpServer = expressServer(this.getInstance<ExpressApplication>(), this.timeouts);
    answerClientErrors(this.httpServer);
  }

  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    // A step that must see the answer before it goes out (Idempotency-Key keeps it): Nest awaits the reply.
    const before = takeBeforeAnswer(response);
    if (before)
      return before(statusCode ?? response.statusCode, body, undefined).then(() =>
        this.write(response, body, statusCode),
      );
    return this.write(response, body, statusCode);
  }

  private write(response: Response, body: unknown, statusCode?: number): unknown {
    // the status first: it decides whether the answer has a body (isPlainJsonAnswer); Nest's own reply is
    // given it too, as it reads it
    if (statusCode) response.status(statusCode);
    // a list's or grid's hashed ETag, and the 304 of a conditional GET, whatever its Cache-Control
    if (answerConditionally(response, body)) return response;
    if (!isPlainJsonAnswer(response, body)) return super.reply(response, body, statusCode);
    // a value without JSON text: Express's own answer
    return jsonAnswer(response, body) ? response : super.reply(response, body, statusCode);
  }
}
