import fc from 'fast-check';
import { expectStatisticsClose } from '../../../test/support/statistics';
import { numberList } from './dialects/statistics-parsing';
import { medianOf, referenceStatistics, typedStatistics } from './statistics';

describe('typedStatistics (the compact-fetch path)', () => {
  const value = fc.oneof(
    fc.integer({ min: 0, max: 2_000_000_000 }),
    fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }).map((i) => i / 1024),
    fc.constantFrom(0, 1, 7), // many duplicates
  );

  it('equals the TypeScript reference on random data (property)', () => {
    fc.assert(
      fc.property(fc.array(value, { minLength: 0, maxLength: 500 }), (values) => {
        expectStatisticsClose(typedStatistics(Float64Array.from(values)), referenceStatistics(values));
      }),
      { numRuns: 500 },
    );
  });

  it('equals the reference on sorted, reversed and constant inputs, and leaves its input as it was', () => {
    const n = 10_001;
    const sorted = Array.from({ length: n }, (_, i) => i * 3);
    for (const values of [
      sorted,
      [...sorted].reverse(),
      new Array<number>(n).fill(5),
      [...sorted, ...sorted],
    ]) {
      const input = Float64Array.from(values);
      expectStatisticsClose(typedStatistics(input), referenceStatistics(values));
      expect(Array.from(input)).toEqual(values);
    }
  });

  it('median of even and odd counts', () => {
    expect(medianOf(Float64Array.from([3, 1, 2]))).toBe(2);
    expect(medianOf(Float64Array.from([4, 1, 3, 2]))).toBe(2.5);
    expect(medianOf(Float64Array.from([9]))).toBe(9);
    expect(medianOf(Float64Array.from([2, 2, 1, 1]))).toBe(1.5);
  });
});

describe('numberList (SQLite group_concat text)', () => {
  it('reads integers, negatives, long integers, fractions and exponents exactly', () => {
    const values = [
      0, 7, -7, 999_999_999_999_999, 9_007_199_254_740_992, -1_234_567_890_123_456, 0.1, -2.5e-7, 1e21,
    ];
    const text = values
      .map((v) => (Number.isInteger(v) && Math.abs(v) < 1e21 ? String(v) : v.toPrecision(17)))
      .join(',');
    expect(Array.from(numberList(text))).toEqual(
      values.map((v) => Number(Number.isInteger(v) ? String(v) : v.toPrecision(17))),
    );
    expect(Array.from(numberList('42'))).toEqual([42]);
    expect(numberList(null)).toHaveLength(0);
  });

  it('round-trips any double written with 17 significant digits (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { minLength: 1, maxLength: 50 }),
        (values) => {
          const text = values.map((v) => (Object.is(v, -0) ? '0' : v.toPrecision(17))).join(',');
          expect(Array.from(numberList(text))).toEqual(values.map((v) => (Object.is(v, -0) ? 0 : v)));
        },
      ),
    );
  });
});
