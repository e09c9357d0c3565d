import type { CorsOptions } from '@nestjs/common/interfaces/external/cors-options.interface';

/** What another origin's script may send: the two explicit credentials, JSON, the conditional headers. */
const ALLOWED_HEADERS = [
  'Authorization',
  'x-api-key',
  'Content-Type',
  'If-Match',
  'If-None-Match',
  'X-Request-Id',
  // a retry's key: the same answer, never a second run
  'Idempotency-Key',
];

/** What it may read of an answer besides the CORS-safelisted headers. */
export const EXPOSED_HEADERS = [
  'ETag',
  'Location',
  'Retry-After',
  'X-Request-Id',
  'WWW-Authenticate',
  'X-Service-Logout-Warning',
  // the list paging: the total and the next page
  'X-Total-Count',
  'Link',
  // a replayed answer says so
  'Idempotent-Replayed',
  // the sign-in routes' quota (the IETF httpapi draft's fields)
  'RateLimit-Policy',
  'RateLimit',
];

/**
 * CORS for the origins CorsAllowedOrigins lists (a browser integration on another origin), through Nest's `enableCors` (the `cors`
 * package), or null when none is listed: then no CORS header is ever written, as before (same-origin only).
 *
 * Listed origins may send Authorization (a bearer token) and x-api-key; credentials (cookies) are not allowed
 * (no Access-Control-Allow-Credentials), so a script of another origin never reads an answer that the session
 * cookie authorised, and a cookie-authenticated write from another origin is refused by the same-origin check
 * as before (spec: cookie-authenticated POSTs must be provably same-origin). A preflight goes on to the route
 * table (`preflightContinue`): a known /api path answers 204 with Allow, an unknown one 404.
 */
export function corsOptions(setting: string | undefined): CorsOptions | null {
  const origins = (setting ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean)
    .map((o) => new URL(o).origin);
  if (!origins.length) return null;
  return {
    origin: origins,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    credentials: false,
    maxAge: 600,
    preflightContinue: true,
  };
}
