import type { RequestHandler } from 'express';
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

// Static directives only: the helmet replay (fast-paths/helmet-replay.ts) takes helmet's headers once per kind of answer, so a directive
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
