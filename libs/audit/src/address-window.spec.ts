import { ManualClock } from '@app/runtime';
import { AddressWindow } from './address-window';

describe('AddressWindow (at most once a minute per address, bounded memory)', () => {
  it('admits an address once per window, each address on its own', () => {
    const clock = new ManualClock(1_000_000);
    const w = new AddressWindow(60_000, 100);
    expect(w.admit('a', clock.now())).toBe(true);
    expect(w.admit('a', clock.now())).toBe(false);
    expect(w.admit('b', clock.now())).toBe(true);
    clock.advance(59_999);
    expect(w.admit('a', clock.now())).toBe(false);
    clock.advance(1);
    expect(w.admit('a', clock.now())).toBe(true);
    expect(w.admit('a', clock.now())).toBe(false);
  });

  it('never holds more than its capacity, whatever a caller rotating addresses sends', () => {
    const clock = new ManualClock(0);
    const w = new AddressWindow(60_000, 10_000);
    let admitted = 0;
    for (let i = 0; i < 50_000; i++) {
      if (w.admit(`2001:db8::${i.toString(16)}`, clock.now())) admitted++;
      expect(w.size).toBeLessThanOrEqual(10_000);
      if (i % 1000 === 0) clock.advance(1); // the flood lasts 50 ms
    }
    expect(w.size).toBe(10_000);
    expect(admitted).toBe(10_000); // no more rows per window than the capacity
    expect(w.refusedForCapacity).toBe(40_000);
  });

  it('when full, refuses a new address rather than forget a remembered one (which would record it twice)', () => {
    const clock = new ManualClock(0);
    const w = new AddressWindow(60_000, 3);
    for (const a of ['a', 'b', 'c']) expect(w.admit(a, clock.now())).toBe(true);
    expect(w.admit('d', clock.now())).toBe(false);
    expect(w.admit('a', clock.now())).toBe(false); // still remembered
    clock.advance(60_000); // every entry expired: room again, and the old ones are admitted again
    expect(w.admit('d', clock.now())).toBe(true);
    expect(w.size).toBe(1);
    expect(w.admit('a', clock.now())).toBe(true);
  });

  it('drops expired entries from the front as time passes, so memory follows the active addresses', () => {
    const clock = new ManualClock(0);
    const w = new AddressWindow(1_000, 1_000);
    for (let i = 0; i < 500; i++) {
      w.admit(`x${i}`, clock.now());
      clock.advance(10);
    }
    // entries older than one second (100 admissions at 10 ms apart) are gone at the next call
    w.admit('probe', clock.now());
    expect(w.size).toBeLessThanOrEqual(101);
  });

  it('refuses a nonsensical configuration', () => {
    expect(() => new AddressWindow(0, 10)).toThrow();
    expect(() => new AddressWindow(10, 0)).toThrow();
  });
});
