import express from 'express';
import type { IncomingMessage } from 'node:http';
import { parseTrustProxy, parseTrustProxyHeaders } from '@app/config';
import { ignoreUntrustedForwardedHeaders, trustedProxyStartLine } from './forwarded-request';

/**
 * An Express request of an app trusting `trustProxy`, from `socket`, with these headers, after the front layer's
 * step for the forwarded headers the balancer does not set (TrustProxyHeaders).
 */
function request(
  trustProxy: string,
  socket: string,
  headers: Record<string, string>,
  trustProxyHeaders = 'X-Forwarded-For, X-Forwarded-Proto, X-Forwarded-Host',
) {
  const app = express();
  app.set('trust proxy', parseTrustProxy(trustProxy));
  const req = Object.create(app.request) as IncomingMessage & {
    app: express.Express;
    ip: string;
    protocol: string;
    host: string | undefined;
    secure: boolean;
  };
  Object.assign(req, {
    app,
    headers: { host: 'node.internal:5001', ...headers },
    socket: { remoteAddress: socket, encrypted: false },
    connection: { remoteAddress: socket },
  });
  ignoreUntrustedForwardedHeaders(parseTrustProxyHeaders(trustProxyHeaders)!)(req);
  return req;
}

/**
 * The client's address, scheme and host as Express's `trust proxy` gives them: the address hop by hop from
 * X-Forwarded-For (what the client wrote to the left of the trusted hops is never its address), scheme and host
 * from what the trusted balancer wrote in X-Forwarded-Proto and -Host (it overwrites them: docs/production.md).
 */
describe('X-Forwarded-* by Express trust proxy', () => {
  const forged = { 'x-forwarded-for': '203.0.113.66, 198.51.100.7' };
  const overwritten = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'public.example' };

  it.each([
    // [TrustProxy, socket, ip, protocol, host]
    ['False', '10.0.0.5', '10.0.0.5', 'http', 'node.internal:5001'],
    ['True', '10.0.0.5', '198.51.100.7', 'https', 'public.example'],
    ['1', '10.0.0.5', '198.51.100.7', 'https', 'public.example'],
    ['10.0.0.5', '10.0.0.5', '198.51.100.7', 'https', 'public.example'],
    ['10.0.0.0/8', '10.0.0.5', '198.51.100.7', 'https', 'public.example'],
    ['10.0.0.0/8', '192.0.2.1', '192.0.2.1', 'http', 'node.internal:5001'],
    ['2', '10.0.0.5', '203.0.113.66', 'https', 'public.example'],
  ])('TrustProxy=%s, from %s: ip %s, %s://%s', (trust, socket, ip, protocol, host) => {
    const req = request(trust, socket, { ...forged, ...overwritten });
    expect({ ip: req.ip, protocol: req.protocol, host: req.host, secure: req.secure }).toEqual({
      ip,
      protocol,
      host,
      secure: protocol === 'https',
    });
  });

  it('more hops trusted than there are: the left-most address is still the client address', () => {
    expect(request('5', '10.0.0.5', { 'x-forwarded-for': '198.51.100.7' }).ip).toBe('198.51.100.7');
  });

  it('a trusted peer that writes no X-Forwarded-For: its scheme and host are read', () => {
    const req = request('True', '10.0.0.5', overwritten);
    expect([req.ip, req.protocol, req.host]).toEqual(['10.0.0.5', 'https', 'public.example']);
  });

  it("TrustProxyHeaders without -Proto or -Host: the socket's scheme and the Host header, whatever was forwarded", () => {
    const headers = { ...forged, ...overwritten };
    const req = request('True', '10.0.0.5', headers, 'x-forwarded-for');
    expect([req.ip, req.protocol, req.host]).toEqual(['198.51.100.7', 'http', 'node.internal:5001']);
    const onlyProto = request('True', '10.0.0.5', headers, 'X-Forwarded-For,X-Forwarded-Proto');
    expect([onlyProto.protocol, onlyProto.host]).toEqual(['https', 'node.internal:5001']);
    const withHost = request('True', '10.0.0.5', headers, 'X-Forwarded-For, X-Forwarded-Host');
    expect([withHost.protocol, withHost.host]).toEqual(['http', 'public.example']);
  });

  it("a trusted -Proto or -Host with several values (a hop appended to the client's): neither is believed", () => {
    const appended = {
      'x-forwarded-proto': 'https, http',
      'x-forwarded-host': 'evil.example, public.example',
    };
    const req = request('True', '10.0.0.5', { ...forged, ...appended });
    expect([req.ip, req.protocol, req.host]).toEqual(['198.51.100.7', 'http', 'node.internal:5001']);
    // one value (the balancer overwrote it) is read as it is
    const overwrote = request('True', '10.0.0.5', { ...forged, ...overwritten });
    expect([overwrote.protocol, overwrote.host]).toEqual(['https', 'public.example']);
  });

  it('TrustProxyHeaders must name X-Forwarded-For, and only the three forwarded headers', () => {
    expect(parseTrustProxyHeaders('X-Forwarded-Proto')).toBeNull();
    expect(parseTrustProxyHeaders('X-Forwarded-For, Forwarded')).toBeNull();
    expect(parseTrustProxyHeaders('x-forwarded-for')).toEqual({ proto: false, host: false });
  });

  it('the start-up line names the trusted hops and headers, and those ignored', () => {
    expect(trustedProxyStartLine(false, { proto: true, host: true })).toMatch(
      /no X-Forwarded-\* header is read/,
    );
    expect(trustedProxyStartLine(1, { proto: true, host: true })).toBe(
      'TrustProxy: trusting 1 hop for X-Forwarded-For, X-Forwarded-Proto, X-Forwarded-Host (the balancer must overwrite each)',
    );
    expect(trustedProxyStartLine(['10.0.0.0/8'], { proto: false, host: false })).toBe(
      'TrustProxy: trusting the balancers at 10.0.0.0/8 for X-Forwarded-For (the balancer must overwrite each); X-Forwarded-Proto and X-Forwarded-Host ignored',
    );
  });
});
