import { ProblemException } from '@app/problems';
import { MAX_JSON_DEPTH, refusedText, scanJsonBody, undecodableQueryParameter } from './request-input';

const bytes = (text: string) => Buffer.from(text);
const nested = (levels: number, open = '[', close = ']') => `${open.repeat(levels)}${close.repeat(levels)}`;

function problemField(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(ProblemException);
    return ((err as ProblemException).extensions.errors as { field: string }[])[0].field;
  }
}

describe('scanJsonBody: one pass over the raw bytes', () => {
  it(`accepts ${MAX_JSON_DEPTH} levels of nesting and refuses one more, objects and arrays alike`, () => {
    expect(scanJsonBody(bytes(nested(MAX_JSON_DEPTH)))).toBe(false);
    expect(problemField(() => scanJsonBody(bytes(nested(MAX_JSON_DEPTH + 1))))).toBe('$');
    const objects = `${'{"a":'.repeat(MAX_JSON_DEPTH + 1)}1${'}'.repeat(MAX_JSON_DEPTH + 1)}`;
    expect(problemField(() => scanJsonBody(bytes(objects)))).toBe('$');
    expect(problemField(() => scanJsonBody(bytes(nested(50_000))))).toBe('$');
  });

  it('counts depth, not brackets: siblings and brackets inside strings do not add up', () => {
    expect(scanJsonBody(bytes(JSON.stringify(Array.from({ length: 1000 }, () => [[1]]))))).toBe(false);
    expect(scanJsonBody(bytes(JSON.stringify({ text: '['.repeat(500), quote: '"[[[' })))).toBe(false);
  });

  it('reports escapes that can hide U+0000 or a surrogate, and only those', () => {
    expect(scanJsonBody(bytes(JSON.stringify({ a: 'x\u0000y' })))).toBe(true);
    expect(scanJsonBody(bytes('{"a":"\\uD800"}'))).toBe(true);
    expect(scanJsonBody(bytes('{"a":"\\udfff"}'))).toBe(true);
    expect(scanJsonBody(bytes('{"a":"\\uD83D\\uDE00"}'))).toBe(true); // a pair: refusedText decides
    expect(scanJsonBody(bytes('{"a":"\\u0001 \\u00e9 \\uC000 tab\\t nl\\n"}'))).toBe(false);
    // An escaped backslash followed by the text u0000 is no escape of U+0000.
    expect(scanJsonBody(bytes('{"a":"\\\\u0000"}'))).toBe(false);
    expect(scanJsonBody(bytes(JSON.stringify({ emoji: '😀', accents: 'café' })))).toBe(false);
  });

  it('refuses bytes that are not UTF-8 (they would become U+FFFD without a word), raw surrogates included', () => {
    expect(
      problemField(() => scanJsonBody(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]))),
    ).toBe('$');
    expect(problemField(() => scanJsonBody(Buffer.from('{"a":"\xed\xa0\x80"}', 'latin1')))).toBe('$');
  });
});

describe('refusedText: the first text holding U+0000 or a lone surrogate, by its path', () => {
  it('names member values, array items, member names and the body itself', () => {
    const field = (v: unknown) =>
      (refusedText(v)?.extensions.errors as { field: string }[] | undefined)?.[0].field;
    expect(field({ a: 'ok', account: { id: 'x\u0000' } })).toBe('account.id');
    expect(field({ items: [{ sku: 'a' }, { sku: '\ud800' }] })).toBe('items[1].sku');
    expect(field({ ['k\u0000ey']: 1 })).toBe('k\uFFFDey');
    expect(field('\udc00')).toBe('$');
    expect(field({ emoji: '😀', tab: 'a\tb\nc', nested: [[['fine']]] })).toBeUndefined();
  });
});

describe('undecodableQueryParameter', () => {
  it('names a parameter whose percent-encoding is not UTF-8 (a lone surrogate in a URL arrives so)', () => {
    expect(undecodableQueryParameter('search=a%ED%A0%80b&take=1')).toBe('search');
    expect(undecodableQueryParameter('take=1&search=%FF')).toBe('search');
    expect(undecodableQueryParameter('search=caf%C3%A9&x=%F0%9F%98%80&y=a+b')).toBeUndefined();
    expect(undecodableQueryParameter('plain=1')).toBeUndefined();
  });
});
