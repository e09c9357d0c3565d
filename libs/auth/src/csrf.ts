import type { HttpRequestLike } from '@app/http-edge';

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function isUnsafeMethod(method: string): boolean {
  return UNSAFE.has(method.toUpperCase());
}

function originOf(value: string): string | null {
  if (value === 'null') return null;
  try {
    const u = new URL(value);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    return u.origin;
  } catch {
    return null;
  }
}

function header(req: HttpRequestLike, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * The request's own origin: its scheme and host as the service reads them (`req.protocol`, `req.host`: Host and
 * the socket, or what the trusted balancer wrote in X-Forwarded-Proto/-Host: Express's `trust proxy`).
 */
export function ownOrigin(req: HttpRequestLike): string | null {
  const host = req.host ?? header(req, 'host');
  if (!host) return null;
  return originOf(`${req.protocol ?? 'http'}://${host}`);
}

/**
 * spec: JWT and cookie 7. A cookie-authenticated change is same-origin when Sec-Fetch-Site says
 * same-origin or none (a user typing or bookmarking); without that header, when Origin, else Referer, names
 * the request's own origin. Anything else (cross-site, same-site, `Origin: null`, no header) is refused.
 */
export function isProvablySameOrigin(req: HttpRequestLike): boolean {
  const site = header(req, 'sec-fetch-site');
  if (site !== undefined) return site === 'same-origin' || site === 'none';
  const own = ownOrigin(req);
  if (!own) return false;
  const origin = header(req, 'origin');
  if (origin !== undefined) return originOf(origin) === own;
  const referer = header(req, 'referer');
  if (referer !== undefined) return originOf(referer) === own;
  return false;
}
