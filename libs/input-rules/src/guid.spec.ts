import { GUID_PATTERN, timeOrderedGuid } from './guid';

/** The instant a version 7 GUID carries: its first 48 bits, in Unix milliseconds. */
const instantOf = (guid: string) => parseInt(guid.replace(/-/g, '').slice(0, 12), 16);

describe('timeOrderedGuid (RFC 9562 version 7)', () => {
  it('is a GUID of version 7 and variant 10 carrying the instant it was given', () => {
    for (const now of [0, 1, 2 ** 32 - 1, 2 ** 32, 1_795_000_000_123, 2 ** 48 - 1]) {
      const guid = timeOrderedGuid(now);
      expect(guid).toMatch(GUID_PATTERN);
      expect(guid).toBe(guid.toLowerCase());
      expect(guid[14]).toBe('7');
      expect('89ab').toContain(guid[19]);
      expect(instantOf(guid)).toBe(now);
    }
  });

  it('takes the current time by default', () => {
    const before = Date.now();
    const at = instantOf(timeOrderedGuid());
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(Date.now());
  });

  it('sorts by instant, as text, which is what keeps index inserts at the right edge', () => {
    const instants = [
      1_700_000_000_000, 1_700_000_000_001, 1_700_000_000_256, 1_700_000_065_536, 1_800_000_000_000,
    ];
    const guids = instants.map((t) => timeOrderedGuid(t));
    expect([...guids].reverse().sort()).toEqual(guids);
  });

  it('never repeats, within one millisecond and across refills of its random pool', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 100_000; i++) seen.add(timeOrderedGuid(1_795_000_000_000));
    expect(seen.size).toBe(100_000);
    // the 74 random bits are not constant: every hexadecimal digit of them takes many values
    const guids = [...seen].slice(0, 4096).map((g) => g.replace(/-/g, ''));
    for (const position of [13, 14, 15, 17, 20, 25, 31]) {
      expect(new Set(guids.map((g) => g[position])).size).toBe(16);
    }
  });

  it('holds the millisecond of a fractional instant, and refuses an instant it cannot hold', () => {
    expect(instantOf(timeOrderedGuid(1_795_000_000_000.75))).toBe(1_795_000_000_000);
    for (const bad of [-1, 2 ** 48, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect(() => timeOrderedGuid(bad)).toThrow(RangeError);
    }
  });
});
