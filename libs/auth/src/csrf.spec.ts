import type { Request } from 'express';
import { isProvablySameOrigin, isUnsafeMethod, ownOrigin } from './csrf';

function req(headers: Record<string, string>, protocol = 'http'): Request {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return { headers: { host: 'app.example:8443', ...lower }, protocol } as unknown as Request;
}

describe('CSRF origin rule', () => {
  it('knows the unsafe methods', () => {
    expect(['POST', 'put', 'PATCH', 'delete'].every(isUnsafeMethod)).toBe(true);
    expect(['GET', 'HEAD', 'OPTIONS'].some(isUnsafeMethod)).toBe(false);
  });

  it('takes the own origin from Host, and X-Forwarded-Host only when trusted', () => {
    const r = req({ 'x-forwarded-host': 'public.example, inner.example' }, 'https');
    expect(ownOrigin(r, false)).toBe('https://app.example:8443');
    expect(ownOrigin(r, true)).toBe('https://public.example');
    expect(ownOrigin(req({ host: '' }), false)).toBeNull();
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
    expect(isProvablySameOrigin(req(headers), false)).toBe(expected);
  });
});
