import { request as expressRequest, type Request } from 'express';
import { mediaTypeIs } from './media-type';

/** An Express request with this Content-Type, with a body (a Content-Length) unless told otherwise. */
function withBody(contentType: string | undefined, body = true): Request {
  const req = Object.create(expressRequest) as Request;
  Object.defineProperty(req, 'headers', {
    value: {
      ...(body ? { 'content-length': '2' } : {}),
      ...(contentType === undefined ? {} : { 'content-type': contentType }),
    },
  });
  return req;
}

const CONTENT_TYPES = [
  undefined,
  '',
  'application/json',
  'APPLICATION/JSON',
  'application/json; charset=utf-8',
  'application/json;charset=UTF-16',
  'application/json ; charset=utf-8',
  'application/jsonx',
  'application/json-patch+json',
  'application/problem+json',
  'text/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=utf-8',
  'multipart/form-data; boundary=x',
  'application/json; charset',
  'application/json; =x',
  'application/',
  '/json',
  'application/json, text/plain',
  'json',
];

describe('mediaTypeIs: type-is’s verdict on a request with a body, remembered per Content-Type', () => {
  it.each(['application/json', 'application/x-www-form-urlencoded'])(
    'decides %s exactly as req.is does, asked again and again',
    (type) => {
      const check = mediaTypeIs(type);
      for (let round = 0; round < 3; round++)
        for (const contentType of CONTENT_TYPES)
          for (const body of [true, false])
            expect([contentType, body, check(withBody(contentType, body))]).toEqual([
              contentType,
              body,
              Boolean(withBody(contentType, body).is(type)),
            ]);
    },
  );

  it('keeps deciding right past the number of values it remembers', () => {
    const check = mediaTypeIs('application/json');
    for (let i = 0; i < 500; i++) {
      expect(check(withBody(`application/json; v=${i}`))).toBe(true);
      expect(check(withBody(`text/plain; v=${i}`))).toBe(false);
      expect(check(withBody(i % 2 ? 'application/json' : 'text/json'))).toBe(i % 2 === 1);
    }
  });

  it('answers false for a request without a body, and that teaches it nothing about the type', () => {
    const check = mediaTypeIs('application/x-www-form-urlencoded');
    for (let i = 0; i < 3; i++) {
      expect(check(withBody('application/x-www-form-urlencoded', false))).toBe(false);
      expect(check(withBody('application/x-www-form-urlencoded'))).toBe(true);
    }
  });
});
