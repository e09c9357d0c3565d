import { hashedETagOf, ifNoneMatchHolds } from './conditional-get';

type Fresh = (req: Record<string, string | undefined>, res: Record<string, string | undefined>) => boolean;
// Express's own freshness check (a dependency of Express), the reference the step must agree with
// eslint-disable-next-line @typescript-eslint/no-require-imports
const fresh = require('fresh') as Fresh;

/** If-None-Match, the answer's ETag, and whether the answer is a 304. */
const CASES: [string | undefined, string | undefined, boolean][] = [
  [undefined, '"3"', false],
  ['"3"', '"3"', true],
  ['"3"', '"4"', false],
  ['"2", "3"', '"3"', true],
  ['"2","3"', '"3"', true],
  ['"2" ,  "3"', '"3"', true],
  ['W/"3"', '"3"', true],
  ['"3"', 'W/"3"', true],
  ['W/"3"', 'W/"3"', true],
  ['W/"a1b2"', 'W/"a1b3"', false],
  ['*', '"3"', true],
  ['*', undefined, true],
  ['"3"', undefined, false],
  ['"30"', '"3"', false],
  ['""', '""', true],
  ['"", "3"', '"3"', true],
];

describe('the conditional GET step (ifNoneMatchHolds)', () => {
  it.each(CASES)('If-None-Match %s against ETag %s: 304 %s', (ifNoneMatch, etag, expected) => {
    expect(ifNoneMatchHolds(ifNoneMatch, etag)).toBe(expected);
  });

  it.each(CASES)("agrees with Express's fresh (no Cache-Control): %s against %s", (ifNoneMatch, etag) => {
    expect(ifNoneMatchHolds(ifNoneMatch, etag)).toBe(fresh({ 'if-none-match': ifNoneMatch }, { etag }));
  });

  it.each(['no-cache', 'max-age=0', 'no-cache, no-store', 'max-age=0, no-cache'])(
    "holds whatever the request's Cache-Control (%s), where fresh never does with no-cache",
    (cacheControl) => {
      const req = { 'if-none-match': '"3"', 'cache-control': cacheControl };
      expect(ifNoneMatchHolds(req['if-none-match'], '"3"')).toBe(true);
      expect(fresh(req, { etag: '"3"' })).toBe(!cacheControl.includes('no-cache'));
    },
  );

  it('takes a header repeated on several lines as one list', () => {
    expect(ifNoneMatchHolds(['"1"', '"3"'], '"3"')).toBe(true);
    expect(ifNoneMatchHolds(['"1"', '"2"'], '"3"')).toBe(false);
  });

  it('finds nothing in a malformed list, and never matches a malformed ETag', () => {
    expect(ifNoneMatchHolds('3', '"3"')).toBe(false);
    expect(ifNoneMatchHolds('"3', '"3"')).toBe(false);
    expect(ifNoneMatchHolds('"3" junk', '"3"')).toBe(false);
    expect(ifNoneMatchHolds('"3"', '3')).toBe(false);
  });

  it('hashes a JSON text to a weak entity-tag that changes with the text', () => {
    const a = hashedETagOf('[{"a":1}]');
    expect(a).toMatch(/^W\/"[A-Za-z0-9_-]{22}"$/);
    expect(hashedETagOf('[{"a":1}]')).toBe(a);
    expect(hashedETagOf('[{"a":2}]')).not.toBe(a);
    expect(ifNoneMatchHolds(a, a)).toBe(true);
  });
});
