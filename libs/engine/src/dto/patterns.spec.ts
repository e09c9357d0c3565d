import fc from 'fast-check';
import { JSON_PATH_PATTERN, parseJsonPath } from '../model/json-path';
import { URL_TEMPLATE_PATTERN } from './configuration.dto';

/** Characters a JSON path is made of, and some it is not, so that both verdicts come up often. */
const pathText = fc.string({
  unit: fc.constantFrom('$', '.', '[', ']', '0', '7', 'a', 'Z', '_', '@', '-', ' ', '\u00a0', 'é', '/'),
  maxLength: 12,
});
const prototypeNames = fc
  .tuple(
    fc.constantFrom('', '$', '$.', 'a.'),
    fc.constantFrom('__proto__', 'constructor', 'prototype'),
    fc.constantFrom('', 'x', '.b', '[1]'),
  )
  .map((parts) => parts.join(''));

/**
 * The request DTOs validate with these patterns (and the OpenAPI document states them): each must say what the
 * code that uses the value accepts, exactly (a JSON path) or at least (a URL template is then a URL).
 */
describe('the patterns the document states', () => {
  it('a JSON path matches JSON_PATH_PATTERN exactly when parseJsonPath takes it', () => {
    fc.assert(
      fc.property(fc.oneof(pathText, prototypeNames), (text) => {
        expect({ text, matches: JSON_PATH_PATTERN.test(text) }).toEqual({
          text,
          matches: typeof parseJsonPath(text) !== 'string',
        });
      }),
      { numRuns: 5000 },
    );
  });

  it('every URL template the pattern takes is an http(s) URL once its {tokens} are filled', () => {
    const url = fc.stringMatching(URL_TEMPLATE_PATTERN);
    fc.assert(
      fc.property(url, (template) => {
        const filled = template.replace(/\{[A-Za-z_][A-Za-z0-9_]*\}/g, 'x');
        const parsed = new URL(filled);
        expect(['http:', 'https:']).toContain(parsed.protocol);
      }),
      { numRuns: 5000 },
    );
    for (const refused of [
      'http:x',
      'ftp://a',
      'http://a.999/',
      'http://user@a/',
      'http://[::1]/',
      'http://xn--a.com',
    ])
      expect({ refused, matches: URL_TEMPLATE_PATTERN.test(refused) }).toEqual({ refused, matches: false });
  });
});
