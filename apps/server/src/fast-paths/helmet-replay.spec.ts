import type { Request, Response } from 'express';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { helmetFor } from '../security-headers.middleware';
import { securityHeaderWriter } from './helmet-replay';

/** A real response of node:http, with a header helmet removes already set. */
function answer(secure: boolean): { req: Request; res: Response } {
  const req = new IncomingMessage(new Socket()) as unknown as Request;
  Object.defineProperty(req, 'secure', { value: secure });
  const res = new ServerResponse(req) as unknown as Response;
  res.setHeader('X-Powered-By', 'Express');
  res.setHeader('Content-Type', 'application/json');
  return { req, res };
}

describe('securityHeaderWriter', () => {
  it.each([true, false])('leaves exactly the headers helmet itself leaves (over HTTPS: %s)', (secure) => {
    const byHelmet = answer(secure);
    let next = 0;
    void helmetFor(secure)(byHelmet.req, byHelmet.res, () => next++);
    const byUs = answer(secure);
    securityHeaderWriter()(byUs.req, byUs.res);
    expect(next).toBe(1);
    expect(byUs.res.getHeaders()).toEqual(byHelmet.res.getHeaders());
    expect(byUs.res.getHeader('x-powered-by')).toBeUndefined();
    expect(byUs.res.getHeader('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(byUs.res.getHeader('content-type')).toBe('application/json');
    // HSTS and upgrade-insecure-requests only for an answer that went out over HTTPS
    expect(byUs.res.getHeader('strict-transport-security') !== undefined).toBe(secure);
    expect(String(byUs.res.getHeader('content-security-policy')).includes('upgrade-insecure-requests')).toBe(
      secure,
    );
  });

  it('gives each request its own answer: a plain request after a secure one gets no HSTS', () => {
    const write = securityHeaderWriter();
    const first = answer(true);
    write(first.req, first.res);
    const second = answer(false);
    write(second.req, second.res);
    expect(first.res.getHeader('strict-transport-security')).toBeDefined();
    expect(second.res.getHeader('strict-transport-security')).toBeUndefined();
  });
});
