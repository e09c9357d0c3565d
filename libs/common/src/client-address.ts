import type { Request } from 'express';

function clean(address: string | undefined): string | null {
  if (!address) return null;
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

/**
 * The caller's and this node's addresses. `req.ip` is the socket address unless TrustProxy is set (create-app
 * passes it to Express as 'trust proxy'), in which case Express takes it from X-Forwarded-For.
 */
export function clientAddresses(req: Request): { remoteIp: string | null; localIp: string | null } {
  return {
    remoteIp: clean(req.ip ?? req.socket?.remoteAddress),
    localIp: clean(req.socket?.localAddress),
  };
}

/** The User-Agent header, or null. */
export function userAgentOf(req: Request): string | null {
  const ua = req.headers['user-agent'];
  return typeof ua === 'string' ? ua : null;
}
