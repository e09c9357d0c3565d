import type { IncomingMessage } from 'node:http';

/**
 * With TrustProxy, Express itself reads the forwarded headers once the socket's peer is trusted (`trust proxy`):
 * the client address from X-Forwarded-For hop by hop (`req.ip`, proxy-addr), the scheme and host from the FIRST
 * X-Forwarded-Proto and X-Forwarded-Host value (`req.protocol`, `req.secure`, `req.host`, `req.hostname`); so
 * the balancer must overwrite those two (docker/haproxy.cfg: `http-request set-header`), never append to what
 * the client wrote. The step returned here runs on each request before anything reads them:
 * - a header the balancer does not set (TrustProxyHeaders without it) is cleared: the client's own value would
 *   pass through;
 * - a trusted -Proto or -Host holding more than one value is cleared too: a hop appended to what the client wrote,
 *   and the first value, the one Express would read, is the client's. Express then falls back to the socket's
 *   scheme and the Host header: a balancer misconfigured to append loses the forwarded scheme and host, and a
 *   client can never choose them.
 */
export function ignoreUntrustedForwardedHeaders(trusted: {
  proto: boolean;
  host: boolean;
}): (req: IncomingMessage) => void {
  const cleared = [
    ...(trusted.proto ? [] : ['x-forwarded-proto']),
    ...(trusted.host ? [] : ['x-forwarded-host']),
  ];
  const single = [
    ...(trusted.proto ? ['x-forwarded-proto'] : []),
    ...(trusted.host ? ['x-forwarded-host'] : []),
  ];
  return (req) => {
    const headers = req.headers;
    for (const name of cleared) if (headers[name] !== undefined) headers[name] = undefined;
    for (const name of single) {
      const value = headers[name];
      // Node joins a repeated X-Forwarded-* header with ", ", so one comma test covers both ways of appending
      if (value !== undefined && (Array.isArray(value) || value.includes(','))) headers[name] = undefined;
    }
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
