import {
  createServer,
  IncomingMessage,
  RequestListener,
  Server,
  ServerOptions,
  ServerResponse,
} from 'node:http';
import { fastPathOff } from './fast-path-off';

/**
 * Fast path (README.md, "Express prototypes at birth").
 */
/**
 * A constructor of `base` whose instances are born with `prototype` (which must have base.prototype in its
 * chain): `new` runs base's own constructor on an object that has `prototype` from the start. node:http's
 * constructors are plain functions, called on the new object as their own subclasses do (`Reflect.construct`
 * with another new.target was several times slower under load); undefined when one is a class (it cannot be
 * called on an object of another prototype).
 */
export function bornWith<T extends typeof IncomingMessage | typeof ServerResponse>(
  base: T,
  prototype: object,
): T | undefined {
  if (Function.prototype.toString.call(base).startsWith('class')) return undefined;
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
export function expressServer(app: ExpressApplication, options: ServerOptions = {}): Server {
  return createServer({ ...bornConstructors(app), ...options }, app);
}

/** node:http's request and response constructors (a test gives others). */
export const NODE_HTTP_CONSTRUCTORS = { IncomingMessage, ServerResponse };

/**
 * node:http's options that give `app`'s prototypes to every request and response from the start; when a
 * constructor cannot be replaced (it became a class), node:http's own is kept for it, so Express sets the
 * prototype afterwards as it always does, and one warning says that the fast path is off (fastPathOff).
 */
export function bornConstructors(
  app: ExpressApplication,
  bases = NODE_HTTP_CONSTRUCTORS,
  warn: (name: string, why: string) => void = fastPathOff,
): Pick<ServerOptions, 'IncomingMessage' | 'ServerResponse'> {
  const request = bornWith(bases.IncomingMessage, app.request);
  const response = bornWith(bases.ServerResponse, app.response);
  const classes = [request ? [] : ['IncomingMessage'], response ? [] : ['ServerResponse']].flat();
  if (classes.length)
    warn(
      'Express prototypes at birth',
      `node:http's ${classes.join(' and ')} ${classes.length > 1 ? 'are classes' : 'is a class'}: requests and responses get Express's prototypes afterwards, as in bare Express`,
    );
  return {
    ...(request ? { IncomingMessage: request } : {}),
    ...(response ? { ServerResponse: response } : {}),
  };
}
