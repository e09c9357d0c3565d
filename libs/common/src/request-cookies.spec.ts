import express from 'express';
import request from 'supertest';
import { parseCookiesOnRead } from './request-cookies';

/** A request object as Express makes them: its prototype carries the getter. */
function requestWith(cookie: string | undefined): {
  headers: { cookie?: string };
  cookies: Record<string, unknown>;
} {
  const prototype = {};
  parseCookiesOnRead(prototype);
  const req = Object.create(prototype) as { headers: { cookie?: string }; cookies: Record<string, unknown> };
  req.headers = cookie === undefined ? {} : { cookie };
  return req;
}

describe('parseCookiesOnRead', () => {
  it('parses nothing until cookies are read, then keeps the result on the request', () => {
    const req = requestWith('a=1; b=2');
    expect(Object.keys(req)).toEqual(['headers']);
    const first = req.cookies;
    expect(first).toEqual({ a: '1', b: '2' });
    expect(Object.keys(req)).toEqual(['headers', 'cookies']);
    req.headers.cookie = 'a=changed';
    expect(req.cookies).toBe(first);
  });

  it('no Cookie header: an empty object', () => {
    expect(requestWith(undefined).cookies).toEqual({});
    expect(requestWith('').cookies).toEqual({});
  });

  it('the first of a repeated name wins, quotes are removed, spaces trimmed, %-escapes decoded when valid', () => {
    expect(requestWith(' x = "quoted" ; x=second;y=a%20b; z=%E0%A4%A; w').cookies).toEqual({
      x: 'quoted',
      y: 'a b',
      z: '%E0%A4%A',
    });
  });

  it('a `j:` value stays a string and no cookie name reaches Object.prototype', () => {
    const cookies = requestWith('j=j:{"admin":true}; __proto__=x; constructor=y').cookies;
    expect(cookies.j).toBe('j:{"admin":true}');
    // `__proto__` did not become the result's prototype, and `constructor` is only the cookie's value
    expect(Object.getPrototypeOf(cookies)).toBe(Object.prototype);
    expect(Object.hasOwn(cookies, 'constructor') && cookies.constructor).toBe('y');
  });

  it('an assignment replaces the value', () => {
    const req = requestWith('a=1');
    req.cookies = { b: '2' };
    expect(req.cookies).toEqual({ b: '2' });
  });

  it("on an Express application's request prototype, every request reads its own header", async () => {
    const app = express();
    parseCookiesOnRead(app.request);
    app.get('/', (req, res) => void res.json(req.cookies));
    await request(app).get('/').set('Cookie', 'session=one').expect(200, { session: 'one' });
    await request(app)
      .get('/')
      .set('Cookie', 'session=two; other=3')
      .expect(200, { session: 'two', other: '3' });
    await request(app).get('/').expect(200, {});
  });
});
