import type { IncomingMessage } from 'node:http';
import { readCookies } from './request-cookies';

/** `req.cookies` as the front layer leaves it for a request with this Cookie header. */
function cookiesOf(cookie: string | undefined): Record<string, unknown> {
  const req = { headers: cookie === undefined ? {} : { cookie } } as IncomingMessage & {
    cookies?: Record<string, string | undefined>;
  };
  readCookies(req);
  return req.cookies!;
}

describe('readCookies', () => {
  it('no Cookie header: an empty object', () => {
    expect(cookiesOf(undefined)).toEqual({});
    expect(cookiesOf('')).toEqual({});
  });

  it('the first of a repeated name wins, quotes are removed, spaces trimmed, %-escapes decoded when valid', () => {
    expect(cookiesOf(' x = "quoted" ; x=second;y=a%20b; z=%E0%A4%A; w')).toEqual({
      x: 'quoted',
      y: 'a b',
      z: '%E0%A4%A',
    });
  });

  it('a `j:` value stays a string and no cookie name reaches Object.prototype', () => {
    const cookies = cookiesOf('j=j:{"admin":true}; __proto__=x; constructor=y');
    expect(cookies.j).toBe('j:{"admin":true}');
    // `__proto__` did not become the result's prototype, and `constructor` is only the cookie's value
    expect([Object.prototype, null]).toContain(Object.getPrototypeOf(cookies));
    expect(Object.hasOwn(cookies, 'constructor') && cookies.constructor).toBe('y');
  });
});
