import { type NestApplicationOptions, StreamableFile } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Response } from 'express';
import { createServer, IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { methodNotAllowed, RouteMethods } from './route-methods.middleware';

/**
 * A constructor of `base` whose instances are born with `prototype` (which must have base.prototype in its
 * chain): `new` runs base's own constructor on an object that has `prototype` from the start. node:http's
 * constructors are plain functions, called on the new object as their own subclasses do (`Reflect.construct`
 * with another new.target was several times slower under load); were one a class, it is kept as it is.
 */
export function bornWith<T extends typeof IncomingMessage | typeof ServerResponse>(
  base: T,
  prototype: object,
): T {
  if (Function.prototype.toString.call(base).startsWith('class')) return base;
  const construct = base as unknown as (this: object, ...args: unknown[]) => void;
  // named as node:http's own, so stack traces still read IncomingMessage.onEnd, ServerResponse.end
  const Born =
    base === IncomingMessage
      ? function IncomingMessage(this: object, ...args: unknown[]): void {
          construct.apply(this, args);
        }
      : function ServerResponse(this: object, ...args: unknown[]): void {
          construct.apply(this, args);
        };
  Born.prototype = prototype;
  return Born as unknown as T;
}

/** An Express application as node:http sees it, with the prototypes it gives its requests and responses. */
export type ExpressApplication = RequestListener & { request: IncomingMessage; response: ServerResponse };

/**
 * An HTTP server for an Express application that builds every request and response on the application's own
 * prototypes (`app.request`, `app.response`) from the start, through node:http's documented
 * `IncomingMessage`/`ServerResponse` options.
 *
 * Why: Express gives every request and response its prototypes afterwards (`Object.setPrototypeOf` in
 * `app.handle`), so every one of them changes its hidden class once it is in flight, and V8's inline caches
 * in node:http, the streams, Express, Nest and the service keep missing: under load about a fifth of the
 * process's CPU went to those misses (`perf`: Runtime_LoadIC_Miss and StoreIC_Miss), and a bare Express
 * hello-world took about 140 µs of CPU per answer against about 45 µs with its objects born right
 * (docs/performance.md). With the prototype already in place Express's own `setPrototypeOf` changes nothing;
 * every object is the same, with the same methods, as before.
 */
export function expressServer(app: ExpressApplication, timeouts: RequestTimeouts = {}): Server {
  return createServer(
    {
      IncomingMessage: bornWith(IncomingMessage, app.request),
      ServerResponse: bornWith(ServerResponse, app.response),
      ...timeouts,
    },
    app,
  );
}

/** node:http's own limits on receiving a request (unset: Node's defaults, 300 s and 60 s, checked every 30 s). */
export interface RequestTimeouts {
  requestTimeout?: number;
  headersTimeout?: number;
  connectionsCheckingInterval?: number;
}

/**
 * RequestBodyTimeoutMilliseconds as node:http's limits (security issue 37): a request whose head and body have
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

/**
 * Whether `body` is an answer `jsonAnswer` writes as Express's `res.json` would: a plain JSON value of a handler
 * (an object or an array) on a response with no Content-Type or Transfer-Encoding of its own, in an
 * application with none of Express's JSON or ETag settings. Everything else (strings, files, errors, null, a
 * problem whose filter chose its media type) is Nest's and Express's own path.
 */
function isPlainJsonAnswer(response: Response, body: unknown): body is object {
  if (typeof body !== 'object' || body === null) return false;
  if (body instanceof StreamableFile || body instanceof Error) return false;
  if (
    response.getHeader('content-type') !== undefined ||
    response.getHeader('transfer-encoding') !== undefined
  )
    return false;
  const app = response.app;
  return (
    !app.get('json replacer') &&
    !app.get('json spaces') &&
    !app.get('json escape') &&
    typeof app.get('etag fn') !== 'function'
  );
}

/**
 * A handler's JSON answer, byte for byte and header for header what `res.json` then `res.send` write in that case
 * (express-adapter.spec compares the two): the text, `application/json; charset=utf-8`, its length in bytes, a
 * 304 for a fresh conditional GET (Express's own rule, `req.fresh`), no body or content headers on 204 and 304, an
 * empty one (typed) on 205. Why: Express reaches the same headers through its generic steps (the media
 * type looked up by name, then parsed and formatted again to add the charset, each header set through `res.set`),
 * which cost about a sixth of the CPU of an answer of `GET /api/Live` (docs/decisions.md, Performance).
 * Returns false, having written nothing, when the value has no JSON text (a toJSON that returns undefined).
 */
function jsonAnswer(response: Response, body: object): boolean {
  const text = JSON.stringify(body) as string | undefined;
  if (text === undefined) return false;
  let status = response.statusCode;
  if (response.req.fresh) response.statusCode = status = 304;
  if (status === 204 || status === 304) {
    response.removeHeader('content-length');
    response.end();
    return true;
  }
  response.setHeader('Content-Type', 'application/json; charset=utf-8');
  if (status === 205) {
    response.setHeader('Content-Length', '0');
    response.end();
    return true;
  }
  response.setHeader('Content-Length', String(Buffer.byteLength(text)));
  response.end(text, 'utf8'); // node:http sends no body to a HEAD request
  return true;
}

/** The route methods Nest registers through the adapter (each: a path, then its handler). */
const ROUTE_METHODS = ['get', 'post', 'put', 'delete', 'patch', 'head', 'options'] as const;

/**
 * Nest's Express adapter on expressServer, writing handlers' plain JSON answers itself (jsonAnswer). HTTPS
 * options and forceCloseConnections (neither used by the service) keep Nest's own server. It also keeps the
 * methods of every route path as Nest registers them (`routes`), so that a request to an /api path with another
 * method is answered 405 with Allow (or OPTIONS 204) instead of Nest's 404 (methodNotAllowed).
 */
export class ServiceExpressAdapter extends ExpressAdapter {
  readonly routes = new RouteMethods();

  constructor(private readonly timeouts: RequestTimeouts = {}) {
    super();
    for (const method of ROUTE_METHODS) {
      const register = this[method].bind(this) as (...args: unknown[]) => unknown;
      this[method] = (...args: unknown[]) => {
        if (args.length >= 2 && typeof args[args.length - 1] === 'function') this.routes.add(method, args[0]);
        return register(...args);
      };
    }
  }

  override setNotFoundHandler(
    handler: Parameters<ExpressAdapter['setNotFoundHandler']>[0],
    prefix?: string,
  ): void {
    // after every route (Nest registers the 404 last), before the 404
    this.use(methodNotAllowed(this.routes));
    super.setNotFoundHandler(handler, prefix);
  }

  override initHttpServer(options: NestApplicationOptions): void {
    if (options?.httpsOptions || options?.forceCloseConnections) return super.initHttpServer(options);
    this.httpServer = expressServer(this.getInstance<ExpressApplication>(), this.timeouts);
  }

  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    if (!isPlainJsonAnswer(response, body)) return super.reply(response, body, statusCode);
    if (statusCode) response.status(statusCode);
    // a value without JSON text: Express's own answer (the status is set already)
    return jsonAnswer(response, body) ? response : super.reply(response, body);
  }
}
