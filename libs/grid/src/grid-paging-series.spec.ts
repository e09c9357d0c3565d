import 'reflect-metadata';
import fc from 'fast-check';
import type { DataSource } from 'typeorm';
import { ProblemException } from '@app/problems';
import { SQLITE_AND_POSTGRES } from '../../../test/support/databases';
import { BASE, def, gridTableFixture, insert, type TestRow } from '../../../test/support/grid-test-table';
import { GridEngine } from './grid-engine';
import { parseGridQuery } from './grid-query';
import { seriesOrigin, seriesWidth } from './grid-series';

/** Rows in the newest-first order of the grid: time descending, then id descending. */
const newestFirst = (rows: { id: number; createdDate: string }[]) =>
  [...rows].sort((a, b) => b.createdDate.localeCompare(a.createdDate) || b.id - a.id).map((r) => r.id);

/** `n` rows over ten minutes, many sharing one millisecond (several nodes flush in the same instant). */
function rowsOver(n: number, seed: number): TestRow[] {
  return Array.from({ length: n }, (_, i) => ({
    createdDate: new Date(BASE - 600_000 + ((i * 7919 + seed) % 300) * 2_000),
    stageId: 1 + ((i + seed) % 4),
    name: `row ${i}`,
    value: (i * 37 + seed) % 1_000,
    other: i / 3,
  }));
}

/** The grid engine's optional extensions: paging by keyset, and the time series, on both databases. */
describe.each(SQLITE_AND_POSTGRES)('grid paging and series on %s', (provider) => {
  let ds: DataSource;
  let engine: GridEngine;
  const wide = { from: '2026-11-22T00:00:00Z', to: '2026-11-23T00:00:00Z' };
  const q = (extra: Record<string, string> = {}) => parseGridQuery(def, { ...wide, ...extra }, BASE);

  gridTableFixture(provider, (d, e) => ([ds, engine] = [d, e]));

  it('pages a 1 000-row window 100 at a time to its oldest row; total and statistics stay the window’s', async () => {
    await insert(ds, rowsOver(1_000, 3));
    const whole = await engine.query(def, q({ take: '100000' }));
    const expected = newestFirst(whole.rows as { id: number; createdDate: string }[]);
    const seen: number[] = [];
    let before: Record<string, string> = {};
    for (let page = 0; page < 10; page++) {
      const r = await engine.query(def, q({ take: '100', ...before }));
      expect(r.total).toBe(1_000);
      expect(r.statistics).toEqual(whole.statistics);
      expect(r.rows.length).toBe(100);
      seen.push(...r.rows.map((row) => row.id as number));
      const last = r.rows.at(-1)!;
      before = { beforeTime: last.createdDate as string, beforeId: String(last.id) };
    }
    expect(seen).toEqual(expected);
    expect((await engine.query(def, q({ take: '100', ...before }))).rows).toEqual([]);
  });

  it('a page stays right while newer rows arrive, and under a stage filter (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 1_000 }),
        fc.integer({ min: 1, max: 40 }),
        async (seed, take) => {
          await ds.query('DELETE FROM "GridTest"');
          engine.clearCache();
          await insert(ds, rowsOver(120, seed));
          const all = newestFirst(
            (await engine.query(def, q({ take: '100000', stageId: '2' }))).rows as never,
          );
          const first = await engine.query(def, q({ take: String(take), stageId: '2' }));
          // newer rows arrive between the pages
          await insert(
            ds,
            rowsOver(30, seed + 1).map((r) => ({ ...r, createdDate: new Date(BASE + 1_000) })),
          );
          const last = first.rows.at(-1);
          if (!last) return;
          const next = await engine.query(
            def,
            q({
              take: '100000',
              stageId: '2',
              beforeTime: last.createdDate as string,
              beforeId: String(last.id),
            }),
          );
          expect([...first.rows, ...next.rows].map((r) => r.id)).toEqual(all);
        },
      ),
      { numRuns: 12 },
    );
  });

  it('beforeTime alone bounds by time; beforeId without beforeTime is a 422 naming both', async () => {
    await insert(ds, rowsOver(50, 1));
    const cut = new Date(BASE - 300_000).toISOString();
    const r = await engine.query(def, q({ take: '1000', beforeTime: cut }));
    expect(r.rows.length).toBeGreaterThan(0);
    for (const row of r.rows) expect(Date.parse(row.createdDate as string)).toBeLessThan(Date.parse(cut));
    expect(r.total).toBe(50);
    expect(() => q({ beforeId: '3' })).toThrow(ProblemException);
    try {
      q({ beforeId: '3' });
    } catch (err) {
      expect((err as ProblemException).getStatus()).toBe(422);
      expect((err as ProblemException).toProblem('/x').errors).toEqual(
        ['beforeId', 'beforeTime'].map((field) => ({
          field,
          message: expect.stringContaining('beforeId needs beforeTime'),
          code: 'conflicting_parameters',
        })),
      );
    }
    expect(() => q({ beforeTime: 'yesterday' })).toThrow(ProblemException);
    expect(() => q({ beforeTime: cut, beforeId: '-1' })).toThrow(ProblemException);
  });

  it('the series equals the rows bucketed in TypeScript: count, min, max and sum per bucket and stage', async () => {
    await insert(ds, rowsOver(700, 5));
    for (const buckets of [1, 7, 60, 200, 1_000]) {
      const query = q({ from: new Date(BASE - 700_000).toISOString(), to: new Date(BASE).toISOString() });
      const answer = await engine.series(def, query, buckets);
      const width = seriesWidth(query.to.getTime() - query.from.getTime(), buckets);
      const origin = seriesOrigin(query.from, width).getTime();
      expect(answer.bucketMilliseconds).toBe(width);
      expect(origin % width).toBe(0);
      const expected = new Map<string, { count: number; min: number; max: number; sum: number }>();
      for (const row of (await engine.query(def, q({ ...wide, take: '100000' }))).rows) {
        const key = `${String(row.stageId)} ${new Date(origin + Math.floor((Date.parse(row.createdDate as string) - origin) / width) * width).toISOString()}`;
        const v = row.value as number;
        const e = expected.get(key) ?? { count: 0, min: Infinity, max: -Infinity, sum: 0 };
        expected.set(key, {
          count: e.count + 1,
          min: Math.min(e.min, v),
          max: Math.max(e.max, v),
          sum: e.sum + v,
        });
      }
      const got = new Map<string, unknown>();
      for (const line of answer.series) {
        expect(line.name).toBe(`Stage${line.key}`);
        for (const p of line.points)
          got.set(`${line.key} ${p.time}`, { count: p.count, min: p.min, max: p.max, sum: p.sum });
        const times = line.points.map((p) => p.time);
        expect(times).toEqual([...times].sort());
      }
      expect(Object.fromEntries(got)).toEqual(Object.fromEntries(expected));
    }
  });

  it('the series covers the filtered window only, and an empty window has no lines', async () => {
    await insert(ds, rowsOver(200, 9));
    const s = await engine.series(def, q({ stageId: '3', search: 'row 1' }), 50);
    expect(s.series.map((l) => l.key)).toEqual([3]);
    const rows = await engine.query(def, q({ stageId: '3', search: 'row 1', take: '100000' }));
    expect(s.series[0].points.reduce((n, p) => n + p.count, 0)).toBe(rows.total);
    const empty = await engine.series(
      def,
      q({ from: '2020-01-01T00:00:00Z', to: '2020-01-02T00:00:00Z' }),
      10,
    );
    expect(empty.series).toEqual([]);
    expect(empty.from).toBe('2020-01-01T00:00:00.000Z');
  });

  it('count is the filtered window’s total', async () => {
    await insert(ds, rowsOver(90, 2));
    expect(await engine.count(def, q({ stageId: '1' }), [])).toBe(
      (await engine.query(def, q({ stageId: '1' }))).total,
    );
  });
});
