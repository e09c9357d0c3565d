import type { Application, NextFunction, Request, Response } from 'express';
import { ProblemException } from '@app/problems';

/** The API's route paths: only there does a known path answer 405 (the console's paths are pages). */
const API_PATH = /^\/api(\/|$)/i;

/** Where the methods of the routes a request's path matched are gathered (a symbol: nothing a client can set). */
const ALLOWED = Symbol('allowed methods');

type Gathering = Request & { [ALLOWED]?: Set<string> };

/** A route as Express's router lists it (`Router#listRoutes`, router 2.3). */
interface ListedRoute {
  path: unknown;
  methods?: string[];
}

/** The methods of each /api route path the application registered, from Express's own router. */
function apiRouteMethods(app: Application): Map<string, string[]> {
  const router = app.router as unknown as { listRoutes?: () => ListedRoute[] };
  if (typeof router.listRoutes !== 'function')
    throw new Error("Express's router lists no routes (listRoutes needs router 2.3 or later)");
  const byPath = new Map<string, string[]>();
  for (const { path, methods } of router.listRoutes()) {
    if (typeof path !== 'string' || !methods || !API_PATH.test(path)) continue;
    const known = byPath.get(path) ?? [];
    for (const method of methods) if (method !== '*' && !known.includes(method)) known.push(method);
    byPath.set(path, known);
  }
  return byPath;
}

/**
 * The last steps before the 404 of a request no route answered (ServiceExpressAdapter adds them once every route
 * is registered): each /api route path is registered again with `app.all`, so that Express's router itself
 * matches a request's path against it (letter case, parameters, trailing slash, as for the route), gathering the
 * methods of every path the request matched; then, on a path some route takes with other methods, OPTIONS is
 * answered 204 with Allow (a CORS preflight's headers were set by then), and any other method 405 Method Not
 * Allowed with Allow (RFC 9110 §15.5.6), as a problem. Every other request goes on to the 404.
 */
export function useMethodNotAllowed(app: Application): void {
  for (const [path, methods] of apiRouteMethods(app))
    app.all(path, (req: Gathering, _res: Response, next: NextFunction) => {
      const allowed = (req[ALLOWED] ??= new Set<string>());
      for (const method of methods) allowed.add(method);
      next();
    });
  app.use((req: Gathering, res: Response, next: NextFunction) => {
    const allowed = req[ALLOWED];
    if (!allowed) return next();
    // No route answered: the gathering routes leave no route template behind (the request metrics' http.route).
    (req as { route?: unknown }).route = undefined;
    // HEAD (Express answers it with GET) and OPTIONS last
    const methods = [...allowed].filter((m) => m !== 'HEAD' && m !== 'OPTIONS');
    if (allowed.has('HEAD')) methods.push('HEAD');
    const allow = [...methods, 'OPTIONS'].join(', ');
    if (req.method === 'OPTIONS') {
      res.setHeader('Allow', allow);
      res.status(204).end();
      return;
    }
    next(
      new ProblemException(
        405,
        'Method Not Allowed',
        `${req.method} is not a method of this path; it takes ${allow}.`,
        undefined,
        {},
        { Allow: allow },
      ),
    );
  });
}
