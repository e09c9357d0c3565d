import type { NextFunction, Request, Response } from 'express';
import { ProblemException } from '@app/common';

/** The API's paths: only there does a known path answer 405 (the console's paths are pages). */
const API_PATH = /^\/api(\/|$)/i;

interface RouteEntry {
  pattern: RegExp;
  method: string;
}

/**
 * The methods each route path of the application takes, recorded as Nest registers its routes
 * (ServiceExpressAdapter), so that a request no route answers can be told which methods its path takes. A path
 * template is matched the way Express matches it: literal segments in any letter case, `:name` one segment, an
 * optional trailing slash.
 */
export class RouteMethods {
  private readonly routes: RouteEntry[] = [];

  add(method: string, path: unknown): void {
    if (typeof path !== 'string') return;
    const source = path
      .replace(/\/+$/, '')
      .split('/')
      .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    this.routes.push({ pattern: new RegExp(`^${source}/?$`, 'i'), method: method.toUpperCase() });
  }

  /** The methods the path takes (HEAD with GET, as Express answers it, and OPTIONS), or [] for an unknown path. */
  allowed(path: string): string[] {
    const methods = new Set<string>();
    for (const r of this.routes) if (r.pattern.test(path)) methods.add(r.method);
    if (!methods.size) return [];
    if (methods.has('GET')) methods.add('HEAD');
    methods.add('OPTIONS');
    return [...methods];
  }
}

/**
 * The last step before the 404 of a request no route answered (ServiceExpressAdapter puts it in front of Nest's
 * not-found handler): on an /api path that routes take with other methods, OPTIONS is answered 204 with Allow
 * (a CORS preflight's headers were set by then), and any other method 405 Method Not Allowed with Allow (RFC 9110
 * §15.5.6), as a problem. Every other request goes on to the 404.
 */
export function methodNotAllowed(routes: RouteMethods) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!API_PATH.test(req.path)) return next();
    const allowed = routes.allowed(req.path);
    if (!allowed.length) return next();
    const allow = allowed.join(', ');
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
  };
}
