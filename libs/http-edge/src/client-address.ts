import type { IncomingHttpHeaders } from 'node:http';

/**
 * The few things of an HTTP request read at the edge (the guard, the controllers, the filters), typed by
 * structure so that nothing below a controller needs Express: an Express request is one.
 */
export interface HttpRequestLike {
  method: string;
  headers: IncomingHttpHeaders;
  /** The caller's address: the socket's, or the one the trusted balancer saw (TrustProxy; Express's `req.ip`). */
  ip?: string;
  /** HTTPS, or X-Forwarded-Proto https written by the trusted balancer (`req.secure`). */
  secure?: boolean;
  /** `http` or `https`, with the same rule (Express's `req.protocol`). */
  protocol?: string;
  /** Host, or X-Forwarded-Host written by the trusted balancer (`req.host`). */
  host?: string;
  socket?: { remoteAddress?: string; localAddress?: string };
  /** The Cookie header, parsed by the front layer (readCookies). */
  cookies?: Record<string, unknown>;
}

/**
 * Who is asking, as the services need it: plain values taken from the request once, at the edge, so the
 * sign-in services, the audit recorders and the sessions never see an HTTP object.
 */
export interface ClientContext {
  /** The caller's address (TrustProxy applies). */
  clientIp: string | null;
  /** This node's address the request arrived on. */
  localIp: string | null;
  userAgent: string | null;
  /** The request came over HTTPS (TrustProxy applies): cookies are then Secure. */
  secure: boolean;
}

function clean(address: string | undefined): string | null {
  if (!address) return null;
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

/**
 * The caller's and this node's addresses. `req.ip` is the socket address unless TrustProxy is set (create-app
 * passes it to Express as 'trust proxy'), in which case Express takes it from X-Forwarded-For.
 */
export function clientAddresses(req: HttpRequestLike): { remoteIp: string | null; localIp: string | null } {
  return {
    remoteIp: clean(req.ip ?? req.socket?.remoteAddress),
    localIp: clean(req.socket?.localAddress),
  };
}

/** The User-Agent header, or null. */
export function userAgentOf(req: HttpRequestLike): string | null {
  const ua = req.headers['user-agent'];
  return typeof ua === 'string' ? ua : null;
}

/** The plain description of the caller that services take (see ClientContext). */
export function clientContextOf(req: HttpRequestLike): ClientContext {
  const { remoteIp, localIp } = clientAddresses(req);
  return { clientIp: remoteIp, localIp, userAgent: userAgentOf(req), secure: req.secure === true };
}
