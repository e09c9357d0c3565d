import { ArgumentsHost, Catch, HttpException, HttpStatus } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ProblemFilter } from '@app/problems';
import { localReturnUrl } from '@app/declarations';

/** The console's Login page (spec: the Login page; the console owns the path). */
export const LOGIN_PAGE_PATH = '/Account/Login';

/**
 * A browser asking for a page, as opposed to a script or an API client: a GET (or HEAD) that is a top-level
 * navigation. Browsers say so with `Sec-Fetch-Mode: navigate`; a request carrying another Sec-Fetch-Mode
 * (a page's own fetch) is not one. Clients that send no Sec-Fetch headers count as browsers only when their
 * Accept prefers HTML to JSON (curl's `*\/*` does not).
 */
export function isPageNavigation(req: Request): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const mode = req.get('sec-fetch-mode');
  if (mode !== undefined) return mode === 'navigate';
  return req.accepts(['application/json', 'application/problem+json', 'text/html']) === 'text/html';
}

/** The Login page, coming back to where the browser was going (a local path only: the open-redirect guard). */
export function loginPageLocation(req: Request): string {
  return `${LOGIN_PAGE_PATH}?returnUrl=${encodeURIComponent(localReturnUrl(req.originalUrl))}`;
}

/** Answers an anonymous browser navigation with the redirect to the Login page; true when it did. */
export function challengeBrowser(req: Request, res: Response, status: number): boolean {
  if (status !== (HttpStatus.UNAUTHORIZED as number) || !isPageNavigation(req)) return false;
  res.setHeader('Cache-Control', 'no-store');
  res.redirect(302, loginPageLocation(req));
  return true;
}

/**
 * Protected pages are challenged like any protected page of a web application: a browser without a valid
 * session is sent to the Login page (with returnUrl); every other caller keeps the 401 problem, and every
 * other error is the problem the global filter would answer.
 */
@Catch()
export class BrowserChallengeFilter extends ProblemFilter {
  override catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const status = exception instanceof HttpException ? exception.getStatus() : 500;
    const response = ctx.getResponse<Response>();
    if (!response.headersSent && challengeBrowser(ctx.getRequest<Request>(), response, status)) return;
    super.catch(exception, host);
  }
}
