import type { NextFunction, Request, Response } from 'express';
import { isPageNavigation } from '@app/auth';
import type { ConsoleBuild } from './console-build';

/** Paths that are never console pages: the API, the console's files and the API explorer. */
const NOT_PAGES = /^\/(api|assets|swagger)(\/|$)/i;

/**
 * The console's Not Found page: a browser navigating to a path that names nothing (no route, no file) gets
 * the console (index.html, which shows its "This page does not exist" page inside the signed-in shell, or
 * the Login page first) with status 404, instead of the JSON problem. Everything else — the API, assets, the
 * explorer, a script's fetch, curl — keeps the 404 problem. Mounted after every route and the static files,
 * before Nest's own not-found handler.
 */
export function consoleNotFoundPage(build: ConsoleBuild) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (build.indexHtml === null || !isPageNavigation(req) || NOT_PAGES.test(req.path)) return next();
    res.status(404).setHeader('Cache-Control', 'no-store');
    res.type('html').send(build.indexHtml);
  };
}
