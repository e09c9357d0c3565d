import { describe, expect, it } from '@jest/globals';
import { chartSeries, type SeriesAnswer } from './charts/series-data';
import { columnUnits, durationUnit, inUnit } from './units';

describe('one unit per quantity, chosen from its range', () => {
  it.each([
    [0, 'µs'],
    [999, 'µs'],
    [1_000, 'ms'],
    [317_852, 'ms'],
    [1_875_529, 's'],
    [59_999_999, 's'],
    [60_000_000, 'min'],
    [-2_500, 'ms'],
  ])('the largest value %p µs chooses %s', (largest, symbol) => {
    expect(durationUnit(largest).symbol).toBe(symbol);
  });

  it('writes every value of the range in that unit: no "0 µs" under "20 s"', () => {
    const unit = durationUnit(20_000_000);
    expect([0, 200_000, 1_875_529, 20_000_000].map((v) => inUnit(v, unit))).toEqual([
      '0 s',
      '0.2 s',
      '1.88 s',
      '20 s',
    ]);
    expect(inUnit(1_875_529, unit, true)).toBe('1.876 s');
    expect(inUnit(850, durationUnit(999))).toBe('850 µs');
  });

  it('chooses a unit per duration column from the largest value the page has', () => {
    const units = columnUnits(
      [
        { key: 'durationMicroseconds', format: 'micros' },
        { key: 'batchSize', format: 'number' },
      ],
      (key) => ({ durationMicroseconds: 1_875_529 })[key] ?? 0,
    );
    expect(Object.keys(units)).toEqual(['durationMicroseconds']);
    expect(units.durationMicroseconds.symbol).toBe('s');
  });
});

describe('a chart series: gaps are gaps', () => {
  const minute = 60_000;
  const at = (m: number) => new Date(Date.UTC(2026, 10, 29, 12, m)).toISOString();
  const point = (m: number, max: number) => ({ time: at(m), count: 2, min: 0, max, sum: max });

  it('a 10-minute silence of one line is a null (a gap); minutes only the other line has are joined', () => {
    const answer: SeriesAnswer = {
      from: at(0),
      to: at(30),
      bucketMilliseconds: minute / 2,
      measure: 'queueDepth',
      series: [
        { key: 1, name: 'A', points: [0, 1, 2, 12, 13].map((m) => point(m, m)) },
        { key: 2, name: 'B', points: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13].map((m) => point(m, 1)) },
      ],
    };
    const s = chartSeries(answer);
    const [xs, a, b] = s.data as [number[], (number | null | undefined)[], (number | null | undefined)[]];
    const valueAt = (line: (number | null | undefined)[], m: number) =>
      line[xs.indexOf(Date.parse(at(0)) / 1000 + m * 60)];
    expect(valueAt(a, 2)).toBe(2);
    for (const m of [3, 6, 11]) expect(valueAt(a, m)).toBeNull();
    expect(valueAt(a, 12)).toBe(12);
    expect(b.includes(null)).toBe(false);
    expect(b.filter((v) => v !== undefined)).toEqual(Array(14).fill(1));
    expect(s.max).toBe(13);
  });

  it('a gap no other line covers still gets a point to break at; counts instead of the largest value', () => {
    const answer: SeriesAnswer = {
      from: at(0),
      to: at(30),
      bucketMilliseconds: minute,
      measure: 'durationMicroseconds',
      series: [{ key: null, name: 'durationMicroseconds', points: [point(0, 5), point(20, 7)] }],
    };
    const s = chartSeries(answer, () => 'Duration', 'count');
    expect(s.names).toEqual(['Duration']);
    expect(s.data[1]).toEqual([2, null, 2]);
  });
});
