import type { Request } from 'express';
import { isProvablySameOrigin, isUnsafeMethod, ownOrigin } from './csrf';

/** A request as the service reads it: scheme and host already decided (Express's `trust proxy`). */
function req(headers: Record<string, string>, protocol = 'http', host?: string): Request {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return { headers: { host: 'app.example:8443', ...lower }, protocol, host } as unknown as Request;
}

describe('CSRF origin rule', () => {
  it('knows the unsafe methods', () => {
    expect(['POST', 'put', 'PATCH', 'delete'].every(isUnsafeMethod)).toBe(true);
    expect(['GET', 'HEAD', 'OPTIONS'].some(isUnsafeMethod)).toBe(false);
  });

  it('takes the own origin from the scheme and host the service reads (req.protocol, req.host)', () => {
    const r = req({ 'x-forwarded-host': 'evil.example' }, 'https');
    expect(ownOrigin(r)).toBe('https://app.example:8443');
    expect(ownOrigin(req({}, 'https', 'public.example'))).toBe('https://public.example');
    expect(ownOrigin(req({ host: '' }))).toBeNull();
  });

  it.each([
    [{ 'sec-fetch-site': 'same-origin' }, true],
    [{ 'sec-fetch-site': 'none' }, true],
    [{ 'sec-fetch-site': 'same-site', origin: 'http://app.example:8443' }, false],
    [{ 'sec-fetch-site': 'cross-site' }, false],
    [{ origin: 'http://app.example:8443' }, true],
    [{ origin: 'HTTP://APP.EXAMPLE:8443' }, true],
    [{ origin: 'https://app.example:8443' }, false],
    [{ origin: 'http://app.example' }, false],
    [{ origin: 'null' }, false],
    [{ origin: 'javascript:alert(1)' }, false],
    [{ referer: 'http://app.example:8443/some/page' }, true],
    [{ referer: 'http://app.example:8443.evil.example/' }, false],
    [{ referer: '/relative' }, false],
    [{}, false],
  ])('%j -> %s', (headers, expected) => {
    expect(isProvablySameOrigin(req(headers))).toBe(expected);
  });
});
