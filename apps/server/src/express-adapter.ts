import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Response } from 'express';
import { type ExpressApplication, expressServer } from './fast-paths/express-prototypes';
import { isPlainJsonAnswer, jsonAnswer } from './fast-paths/json-reply';
import { methodNotAllowed, RouteMethods } from './route-methods.middleware';

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

/** The route methods Nest registers through the adapter (each: a path, then its handler). */
const ROUTE_METHODS = ['get', 'post', 'put', 'delete', 'patch', 'head', 'options'] as const;

/**
 * Nest's Express adapter on expressServer (fast path: Express prototypes at birth), writing handlers' plain JSON
 * answers itself (fast path: the direct JSON reply, jsonAnswer; fast-paths/README.md). HTTPS
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
