import type { Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';

type Directives = Record<string, string[]>;

/**
 * The policy of every answer of the service, the console's pages included: scripts and styles only from
 * this origin (no inline script or style anywhere), requests only to this origin, no plugins, no framing,
 * and no native form submission (every form of the console is sent by its script as JSON, so a form can
 * never leak a password into a URL, even if the script failed).
 */
export const SERVICE_CSP_DIRECTIVES: Directives = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'"],
  'font-src': ["'self'"],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'none'"],
  'frame-ancestors': ["'none'"],
};

/**
 * The API explorer's own policy (swagger-ui's page carries an inline style block and data: images); still
 * no inline script and no framing.
 */
export const EXPLORER_CSP_DIRECTIVES: Directives = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'script-src-attr': ["'none'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'self'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

/** The header value of a policy; `upgrade-insecure-requests` only for an answer that went out over HTTPS. */
export function contentSecurityPolicy(directives: Directives, secure: boolean): string {
  return [
    ...Object.entries(directives).map(([name, values]) => `${name} ${values.join(' ')}`),
    ...(secure ? ['upgrade-insecure-requests'] : []),
  ].join('; ');
}

// Static directives only: securityHeaders takes helmet's headers once per kind of answer, so a directive
// computed per request (a nonce) would need helmet to run per request again.
export function helmetFor(secure: boolean): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { ...SERVICE_CSP_DIRECTIVES, ...(secure ? { 'upgrade-insecure-requests': [] } : {}) },
    },
    // HSTS tells a browser to use HTTPS for this host from now on: only true when it came over HTTPS.
    strictTransportSecurity: secure ? { maxAge: 31536000, includeSubDomains: false } : false,
    // The same as frame-ancestors 'none', for browsers that only know this header.
    xFrameOptions: { action: 'deny' },
  });
}

/** What helmet does to an answer's headers for one configuration: the headers it sets, and those it removes. */
export interface HeaderEdits {
  set: readonly (readonly [string, string])[];
  removed: readonly string[];
}

/**
 * helmet's edits for one kind of answer, taken once from helmet itself: with static directives they depend
 * only on the configuration and on whether the answer goes out over HTTPS, so replaying them costs a loop of
 * setHeader instead of helmet's dozen nested middleware per request (about 5 µs against 8-12 µs here).
 */
export function headerEditsOf(middleware: RequestHandler, secure: boolean): HeaderEdits {
  const set = new Map<string, string>();
  const removed: string[] = [];
  let finished = false;
  const response = {
    setHeader(name: string, value: unknown) {
      set.set(name, String(value));
      return response;
    },
    removeHeader(name: string) {
      set.delete(name);
      removed.push(name);
    },
  };
  void middleware({ secure } as Request, response as unknown as Response, (err?: unknown) => {
    if (err) throw err instanceof Error ? err : new Error('helmet failed');
    finished = true;
  });
  if (!finished) throw new Error('helmet did not finish synchronously: its edits cannot be taken once');
  return { set: [...set], removed };
}

/**
 * helmet's headers, chosen per request: a browser that reached the service over plain HTTP (a LAN host such
 * as http://ops-host:5001/) must not be told to upgrade its requests to HTTPS or to remember HSTS, or it would
 * fetch the console's scripts over HTTPS and fail. `req.secure` honours X-Forwarded-Proto only with
 * TrustProxy. Both sets are helmet's own, taken at start (headerEditsOf). Applied synchronously: the service's
 * front layer (create-app) calls it with the other per-request steps.
 */
export function securityHeaderWriter(): (req: Request, res: Response) => void {
  const overHttps = headerEditsOf(helmetFor(true), true);
  const overHttp = headerEditsOf(helmetFor(false), false);
  return (req: Request, res: Response) => {
    const { set, removed } = req.secure ? overHttps : overHttp;
    for (const name of removed) res.removeHeader(name);
    for (const [name, value] of set) res.setHeader(name, value);
  };
}
