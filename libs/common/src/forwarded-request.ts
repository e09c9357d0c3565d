import type { IncomingMessage } from 'node:http';

/**
 * With TrustProxy, Express itself reads the forwarded headers once the socket's peer is trusted (`trust proxy`):
 * the client address from X-Forwarded-For hop by hop (`req.ip`, proxy-addr), the scheme and host from the FIRST
 * X-Forwarded-Proto and X-Forwarded-Host value (`req.protocol`, `req.secure`, `req.host`, `req.hostname`); so
 * the balancer must overwrite those two (docker/haproxy.cfg: `http-request set-header`), never append to what
 * the client wrote. A balancer that does not set them (TrustProxyHeaders without them) would pass the client's
 * own values through: the step returned here clears them on each request before anything reads them, so Express
 * falls back to the socket's scheme and the Host header. Null when every forwarded header is trusted.
 */
export function ignoreUntrustedForwardedHeaders(trusted: {
  proto: boolean;
  host: boolean;
}): ((req: IncomingMessage) => void) | null {
  if (trusted.proto && trusted.host) return null;
  const names = [
    ...(trusted.proto ? [] : ['x-forwarded-proto']),
    ...(trusted.host ? [] : ['x-forwarded-host']),
  ];
  return (req) => {
    for (const name of names) if (req.headers[name] !== undefined) req.headers[name] = undefined;
  };
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
  return `TrustProxy: trusting ${hops} for ${headers.join(', ')} (the balancer must overwrite each)${
    ignored.length ? `; ${ignored.join(' and ')} ignored` : ''
  }`;
}
