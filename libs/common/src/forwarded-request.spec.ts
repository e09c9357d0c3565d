import express from 'express';
import type { IncomingMessage } from 'node:http';
import { parseTrustProxy, parseTrustProxyHeaders } from '@app/config';
import { readForwardedHeadersByTrustedHops, trustedProxyStartLine } from './forwarded-request';

/** An Express request of an app trusting `trustProxy`, from `socket`, with these headers. */
function request(
  trustProxy: string,
  socket: string,
  headers: Record<string, string>,
  trustProxyHeaders = 'X-Forwarded-For, X-Forwarded-Proto, X-Forwarded-Host',
) {
  const app = express();
  app.set('trust proxy', parseTrustProxy(trustProxy));
  readForwardedHeadersByTrustedHops(app.request, parseTrustProxyHeaders(trustProxyHeaders) ?? undefined);
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
  return req;
}

/**
 * Security issue 37, item 4: the client's address, scheme and host follow one rule. Each trusted proxy appends
 * (or sets) one value; what the client wrote lies to the left of the values the trusted hops wrote.
 */
describe('X-Forwarded-* read by trusted hops', () => {
  const forged = {
    'x-forwarded-for': '203.0.113.66, 198.51.100.7',
    'x-forwarded-proto': 'https, http',
    'x-forwarded-host': 'evil.example, public.example',
  };

  it.each([
    // [TrustProxy, socket, ip, protocol, host]
    ['False', '10.0.0.5', '10.0.0.5', 'http', 'node.internal:5001'],
    ['True', '10.0.0.5', '198.51.100.7', 'http', 'public.example'],
    ['1', '10.0.0.5', '198.51.100.7', 'http', 'public.example'],
    ['10.0.0.5', '10.0.0.5', '198.51.100.7', 'http', 'public.example'],
    ['10.0.0.0/8', '10.0.0.5', '198.51.100.7', 'http', 'public.example'],
    ['10.0.0.0/8', '192.0.2.1', '192.0.2.1', 'http', 'node.internal:5001'],
    ['2', '10.0.0.5', '203.0.113.66', 'https', 'evil.example'],
  ])('TrustProxy=%s, from %s: ip %s, %s://%s', (trust, socket, ip, protocol, host) => {
    const req = request(trust, socket, forged);
    expect({ ip: req.ip, protocol: req.protocol, host: req.host, secure: req.secure }).toEqual({
      ip,
      protocol,
      host,
      secure: protocol === 'https',
    });
  });

  it('a balancer that overwrites: its values are the only ones', () => {
    const req = request('True', '10.0.0.5', {
      'x-forwarded-for': '198.51.100.7',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'public.example',
    });
    expect([req.ip, req.protocol, req.host]).toEqual(['198.51.100.7', 'https', 'public.example']);
  });

  it('more hops trusted than there are: the left-most value is still the client address, never a proxy value', () => {
    const req = request('5', '10.0.0.5', {
      'x-forwarded-for': '198.51.100.7',
      'x-forwarded-proto': 'https, http',
    });
    expect([req.ip, req.protocol]).toEqual(['198.51.100.7', 'http']);
  });

  it('a trusted peer that writes no X-Forwarded-For: its scheme and host are read', () => {
    const req = request('True', '10.0.0.5', {
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'public.example',
    });
    expect([req.ip, req.protocol, req.host]).toEqual(['10.0.0.5', 'https', 'public.example']);
  });

  it("TrustProxyHeaders=X-Forwarded-For: the scheme and host are the socket's and the Host header, whatever was forwarded", () => {
    const req = request('True', '10.0.0.5', forged, 'x-forwarded-for');
    expect([req.ip, req.protocol, req.host]).toEqual(['198.51.100.7', 'http', 'node.internal:5001']);
    const onlyProto = request('True', '10.0.0.5', forged, 'X-Forwarded-For,X-Forwarded-Proto');
    expect([onlyProto.protocol, onlyProto.host]).toEqual(['http', 'node.internal:5001']);
    const withHost = request('True', '10.0.0.5', forged, 'X-Forwarded-For, X-Forwarded-Host');
    expect([withHost.protocol, withHost.host]).toEqual(['http', 'public.example']);
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
      'TrustProxy: trusting 1 hop for X-Forwarded-For, X-Forwarded-Proto, X-Forwarded-Host (the balancer must set each)',
    );
    expect(trustedProxyStartLine(['10.0.0.0/8'], { proto: false, host: false })).toBe(
      'TrustProxy: trusting the balancers at 10.0.0.0/8 for X-Forwarded-For (the balancer must set each); X-Forwarded-Proto and X-Forwarded-Host ignored',
    );
  });
});
