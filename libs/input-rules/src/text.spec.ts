import { inertText } from './text';

describe('inertText', () => {
  it('replaces CR, LF, NUL, ESC and other controls', () => {
    expect(inertText('a\r\nb\u0000c\u001b[31md\u007f\u0085', 100)).toBe(
      'a\uFFFD\uFFFDb\uFFFDc\uFFFD[31md\uFFFD\uFFFD',
    );
  });
  it('bounds the length without splitting a surrogate pair', () => {
    expect(inertText('x'.repeat(10_000), 512)).toHaveLength(512);
    const s = inertText('ab😀', 3);
    expect(s).toBe('ab');
  });
  it('replaces a lone surrogate (not storable as UTF-8) and keeps a pair', () => {
    expect(inertText('a\ud800b\udc00c😀', 100)).toBe('a\uFFFDb\uFFFDc😀');
  });
  it('keeps null as null', () => expect(inertText(null, 5)).toBeNull());
});
