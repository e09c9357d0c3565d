import type { IncomingMessage } from 'node:http';

/** Express's request, as far as the forwarded headers' rule reads it. */
interface ForwardedRequest extends IncomingMessage {
  app: { get(setting: 'trust proxy fn'): (address: string, hop: number) => boolean };
}

function headerValues(req: IncomingMessage, name: string): string[] | undefined {
  const value = req.headers[name];
  if (value === undefined) return undefined;
  const values = (Array.isArray(value) ? value.join(',') : value)
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  return values.length ? values : undefined;
}

/**
 * How many proxies between the client and this node are trusted: the socket's peer, then each X-Forwarded-For
 * address from the right, as long as Express's own trust function (from TrustProxy) accepts them, as for the
 * client address Express gives (`req.ip`, the first address after them). The left-most address is the
 * client's, never a proxy (more hops configured than there are cannot reach past it); the socket's peer alone
 * may be a trusted proxy that wrote no X-Forwarded-For.
 */
function trustedHops(req: ForwardedRequest): number {
  const trust = req.app.get('trust proxy fn');
  const chain = [req.socket.remoteAddress ?? '', ...(headerValues(req, 'x-forwarded-for') ?? []).reverse()];
  const most = Math.max(1, chain.length - 1);
  let hops = 0;
  while (hops < most && trust(chain[hops], hops)) hops++;
  return hops;
}

/**
 * The value of a forwarded header (X-Forwarded-Proto, X-Forwarded-Host) written by the farthest trusted proxy:
 * each trusted hop sets or appends one value, so it is the one `hops` from the right (the left-most when a
 * proxy overwrote the header). What the client wrote itself lies to the left of it and is never read. Undefined
 * without the header or without a trusted hop.
 */
function forwardedValue(req: ForwardedRequest, name: string): string | undefined {
  const values = headerValues(req, name);
  if (!values) return undefined;
  const hops = trustedHops(req);
  return hops ? values[Math.max(0, values.length - hops)] : undefined;
}

/**
 * `req.protocol` and `req.host` (so `req.secure` and `req.hostname`, which Express derives from them) on an
 * Express application's requests, by the same rule as the client address (security issue 37): Express itself
 * takes the FIRST X-Forwarded-Proto and X-Forwarded-Host value once the socket's peer is trusted, which is
 * what the client wrote when the balancer appends (HAProxy's `option forwardfor`, `add-header`). Here each is
 * the value the farthest trusted hop wrote (forwardedValue); the client address stays Express's (`req.ip`,
 * from the same trust function). Every reader (the Secure cookie, the security headers, the CSRF and login-CSRF
 * origin checks, OpenID Connect's redirect URI) reads these properties.
 */
export function readForwardedHeadersByTrustedHops(
  requestPrototype: object,
  trusted: { proto: boolean; host: boolean } = { proto: true, host: true },
): void {
  Object.defineProperty(requestPrototype, 'protocol', {
    configurable: true,
    enumerable: true,
    get(this: ForwardedRequest): string {
      const own = (this.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
      return (trusted.proto ? forwardedValue(this, 'x-forwarded-proto')?.toLowerCase() : undefined) ?? own;
    },
  });
  Object.defineProperty(requestPrototype, 'host', {
    configurable: true,
    enumerable: true,
    get(this: ForwardedRequest): string | undefined {
      return (
        (trusted.host ? forwardedValue(this, 'x-forwarded-host') : undefined) ??
        this.headers.host ??
        undefined
      );
    },
  });
}

/**
 * The start-up line saying whom the node believes about the client (TrustProxy) and for which headers
 * (TrustProxyHeaders): a balancer that does not set a header it is trusted for lets the client's own value through.
 */
export function trustedProxyStartLine(
  trustProxy: false | number | readonly string[],
  trusted: { proto: boolean; host: boolean },
): string {
  if (trustProxy === false)
    return "TrustProxy=False: no X-Forwarded-* header is read; client address, scheme and host are the socket's";
  const hops =
    typeof trustProxy === 'number'
      ? `${trustProxy} hop${trustProxy === 1 ? '' : 's'}`
      : `the balancers at ${trustProxy.join(', ')}`;
  const headers = [
    'X-Forwarded-For',
    ...(trusted.proto ? ['X-Forwarded-Proto'] : []),
    ...(trusted.host ? ['X-Forwarded-Host'] : []),
  ];
  const ignored = [
    ...(trusted.proto ? [] : ['X-Forwarded-Proto']),
    ...(trusted.host ? [] : ['X-Forwarded-Host']),
  ];
  return `TrustProxy: trusting ${hops} for ${headers.join(', ')} (the balancer must set each)${
    ignored.length ? `; ${ignored.join(' and ')} ignored` : ''
  }`;
}
