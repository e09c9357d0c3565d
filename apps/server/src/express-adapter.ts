import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import { createServer, IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';

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
export function expressServer(app: ExpressApplication): Server {
  return createServer(
    {
      IncomingMessage: bornWith(IncomingMessage, app.request),
      ServerResponse: bornWith(ServerResponse, app.response),
    },
    app,
  );
}

/**
 * Nest's Express adapter on expressServer. HTTPS options and forceCloseConnections (neither used by the
 * service) keep Nest's own server.
 */
export class ServiceExpressAdapter extends ExpressAdapter {
  override initHttpServer(options: NestApplicationOptions): void {
    if (options?.httpsOptions || options?.forceCloseConnections) return super.initHttpServer(options);
    this.httpServer = expressServer(this.getInstance<ExpressApplication>());
  }
}
