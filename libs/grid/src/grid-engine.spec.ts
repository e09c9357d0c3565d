import 'reflect-metadata';
import { expectStatisticsClose } from '../../../test/support/statistics';
import fc from 'fast-check';
import type { DataSource } from 'typeorm';
import { SQLITE_AND_POSTGRES } from '../../../test/support/databases';
import { GridEngine } from './grid-engine';
import { parseGridQuery } from './grid-query';
import { inSample } from './sampling';
import { referenceStatistics } from './statistics';
import { BASE, def, gridTableFixture, insert } from '../../../test/support/grid-test-table';

// SQLite and PostgreSQL only: the test table is written with each dialect's own SQL, and the slow-writer case
// relies on how they isolate; SQL Server's grid SQL is checked offline
// (test/sql-server-statements/grids.spec.ts).
describe.each(SQLITE_AND_POSTGRES)('grid engine on %s', (provider) => {
  let ds: DataSource;
  let engine: GridEngine;
  const wide = { from: '2026-11-22T00:00:00Z', to: '2026-11-23T00:00:00Z', take: '100000' };
  const q = (extra: Record<string, string> = {}) => parseGridQuery(def, { ...wide, ...extra }, BASE);

  gridTableFixture(provider, (d, e) => ([ds, engine] = [d, e]));

  it('empty set: zero total, null statistics and ten empty buckets', async () => {
    const r = await engine.query(def, q());
    expect(r.rows).toEqual([]);
    expect(r.total).toBe(0);
    expect(r.statistics.value).toMatchObject({
      count: 0,
      min: null,
      max: null,
      mean: null,
      median: null,
      standardDeviation: null,
    });
    expect(r.statistics.value.histogram).toHaveLength(10);
  });

  it('statistics in the database equal the TypeScript reference on random data (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 2_000_000_000 }),
            fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }).map((i) => i / 1024),
          ),
          { minLength: 1, maxLength: 200 },
        ),
        async (values) => {
          await ds.query('DELETE FROM "GridTest"');
          engine.clearCache();
          await insert(
            ds,
            values.map(([v, o], i) => ({
              createdDate: new Date(BASE + i),
              stageId: 1,
              name: 'n',
              value: v,
              other: o,
            })),
          );
          const r = await engine.query(def, q());
          expectStatisticsClose(r.statistics.value, referenceStatistics(values.map(([v]) => v)));
          expectStatisticsClose(r.statistics.other, referenceStatistics(values.map(([, o]) => o)));
        },
      ),
      { numRuns: 25 },
    );
  });

  it('over the cap, statistics cover the newest rows by time then id, ties included (property)', async () => {
    const CAP = 30;
    const capped = new GridEngine(ds, CAP);
    await fc.assert(
      fc.asyncProperty(
        // [ms after BASE (few values: many rows share an instant), value, other], inserted in this order
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 12 }),
            fc.integer({ min: -1_000_000, max: 1_000_000 }),
            fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }).map((i) => i / 1024),
          ),
          { minLength: 1, maxLength: 80, size: 'max' },
        ),
        async (rows) => {
          await ds.query('DELETE FROM "GridTest"');
          capped.clearCache();
          await insert(
            ds,
            rows.map(([ms, v, o]) => ({
              createdDate: new Date(BASE + ms),
              stageId: 1,
              name: 'n',
              value: v,
              other: o,
            })),
          );
          // ids follow the insert order: the newest rows are the latest instants, then the highest ids
          const newest = rows
            .map((row, id) => ({ row, id }))
            .sort((a, b) => b.row[0] - a.row[0] || b.id - a.id)
            .slice(0, CAP)
            .map(({ row }) => row);
          const r = await capped.query(def, q());
          expect(r.total).toBe(rows.length);
          expect(r.statistics.value.count).toBe(Math.min(CAP, rows.length));
          expectStatisticsClose(r.statistics.value, referenceStatistics(newest.map(([, v]) => v)));
          expectStatisticsClose(r.statistics.other, referenceStatistics(newest.map(([, , o]) => o)));
        },
      ),
      { numRuns: 25 },
    );
  });

  it('one value: deviation 0 and the value in the last bucket', async () => {
    await insert(ds, [{ createdDate: new Date(BASE), stageId: 1, name: 'a', value: 7, other: 7 }]);
    const s = (await engine.query(def, q())).statistics.value;
    expect(s).toMatchObject({ count: 1, min: 7, max: 7, mean: 7, median: 7, standardDeviation: 0 });
    expect(s.histogram[9].count).toBe(1);
  });

  it('filters, search (wildcards match themselves), sort and take', async () => {
    await insert(ds, [
      { createdDate: new Date(BASE + 1), stageId: 1, name: 'alpha%beta', value: 10, other: 0 },
      { createdDate: new Date(BASE + 2), stageId: 2, name: 'ALPHAxbeta', value: 30, other: 0 },
      { createdDate: new Date(BASE + 3), stageId: 2, name: 'under_score', value: 20, other: 0 },
      { createdDate: new Date(BASE + 4), stageId: 3, name: "it's", value: 5, other: 0 },
    ]);
    expect((await engine.query(def, q({ stageId: '2' }))).rows.map((r) => r.value)).toEqual([20, 30]);
    expect((await engine.query(def, q({ search: 'A%B' }))).rows.map((r) => r.name)).toEqual(['alpha%beta']);
    expect((await engine.query(def, q({ search: '_' }))).rows.map((r) => r.name)).toEqual(['under_score']);
    expect((await engine.query(def, q({ search: "' OR '1'='1" }))).total).toBe(0);
    expect((await engine.query(def, q({ search: "'" }))).rows.map((r) => r.name)).toEqual(["it's"]);
    // Case-insensitive beyond ASCII, on a C-locale PostgreSQL cluster too.
    await insert(ds, [
      { createdDate: new Date(BASE + 5), stageId: 3, name: 'ÉCOLE Ünïcødé Straße', value: 1, other: 0 },
    ]);
    for (const search of ['école', 'ÉCOLE', 'ünïcødé', 'ÜNÏCØDÉ'])
      expect((await engine.query(def, q({ search }))).rows.map((r) => r.name)).toEqual([
        'ÉCOLE Ünïcødé Straße',
      ]);
    await ds.query(`DELETE FROM "GridTest" WHERE "Value" = 1`);
    engine.clearCache();
    expect(
      (await engine.query(def, q({ sortField: 'Value', sortDirection: 'asc' }))).rows.map((r) => r.value),
    ).toEqual([5, 10, 20, 30]);
    const top = await engine.query(def, q({ take: '2' }));
    expect(top.rows.map((r) => r.value)).toEqual([5, 20]); // newest first
    expect(top.total).toBe(4);
    expect(top.rows[0]).toMatchObject({ stageName: 'Stage3', createdDate: new Date(BASE + 4).toISOString() });
    // hostile sort fields are ignored, not executed
    expect((await engine.query(def, q({ sortField: 'name;DROP TABLE GridTest' }))).total).toBe(4);
    expect(
      (
        await engine.query(
          def,
          q({ from: new Date(BASE + 2).toISOString(), to: new Date(BASE + 3).toISOString() }),
        )
      ).total,
    ).toBe(2);
  });

  it('a sample is ONE sample: rows, total and statistics agree, and the seed repeats it', async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => ({
      createdDate: new Date(BASE + i),
      stageId: 1 + (i % 4),
      name: `n${i}`,
      value: (i * 7919) % 10007,
      other: i,
    }));
    await insert(ds, rows);
    const a = await engine.query(def, q({ samplePercentage: '10', sampleSeed: '12345' }));
    expect(a.sample).toEqual({ percentage: 10, seed: 12345 });
    expect(a.rows.length).toBe(a.total);
    expect(a.total).toBeGreaterThan(200);
    expect(a.total).toBeLessThan(400);
    expectStatisticsClose(a.statistics.value, referenceStatistics(a.rows.map((r) => r.value as number)));
    // the same predicate in TypeScript picks the same ids
    const expectedIds = a.rows.map((r) => r.id as number).filter((id) => inSample(id, 12345, 10));
    expect(expectedIds).toHaveLength(a.rows.length);
    const b = await engine.query(def, q({ samplePercentage: '10', sampleSeed: '12345' }));
    expect(b.rows.map((r) => r.id)).toEqual(a.rows.map((r) => r.id));
    const c = await engine.query(def, q({ samplePercentage: '10', sampleSeed: '999' }));
    expect(c.rows.map((r) => r.id)).not.toEqual(a.rows.map((r) => r.id));
    // without a seed one is chosen and echoed
    const d = await engine.query(def, q({ samplePercentage: '10' }));
    expect(d.sample?.seed).toEqual(expect.any(Number));
    expect((await engine.query(def, q({ samplePercentage: '0' }))).total).toBe(0);
    expect((await engine.query(def, q({ samplePercentage: '100' }))).total).toBe(3000);
  });

  it('statistics cover the newest 100 000 rows of the filtered set, total counts all', async () => {
    // Scaled check of the cap logic: with take 1 the rows are capped, statistics are not.
    await insert(
      ds,
      Array.from({ length: 50 }, (_, i) => ({
        createdDate: new Date(BASE + i),
        stageId: 1,
        name: 'x',
        value: i,
        other: i,
      })),
    );
    const r = await engine.query(def, q({ take: '1' }));
    expect(r.rows).toHaveLength(1);
    expect(r.total).toBe(50);
    expect(r.statistics.value.count).toBe(50);
  });

  it('a cached answer never hides rows written since', async () => {
    await insert(ds, [{ createdDate: new Date(BASE), stageId: 1, name: 'a', value: 1, other: 1 }]);
    const first = await engine.query(def, q());
    expect((await engine.query(def, q())).total).toBe(first.total);
    await insert(ds, [{ createdDate: new Date(BASE + 5), stageId: 1, name: 'b', value: 2, other: 2 }]);
    expect((await engine.query(def, q())).total).toBe(2);
    // rows removed (retention trims) are noticed too
    await ds.query('DELETE FROM "GridTest" WHERE "Name" = \'a\'');
    expect((await engine.query(def, q())).total).toBe(1);
  });

  it('a row with a lower id committed after a higher one is never hidden by the cache', async () => {
    await insert(ds, [{ createdDate: new Date(BASE), stageId: 1, name: 'a', value: 1, other: 1 }]);
    const slow = ds.createQueryRunner();
    await slow.connect();
    await slow.startTransaction();
    try {
      // The slow writer takes the lower id and has not committed yet...
      await slow.query(
        provider === 'postgres'
          ? 'INSERT INTO "GridTest" ("CreatedDate", "StageId", "Name", "Value", "Other") VALUES ($1, 1, \'slow\', 2, 2)'
          : 'INSERT INTO "GridTest" ("CreatedDate", "StageId", "Name", "Value", "Other") VALUES (?, 1, \'slow\', 2, 2)',
        [
          provider === 'postgres'
            ? new Date(BASE + 1)
            : new Date(BASE + 1).toISOString().replace('T', ' ').replace('Z', ''),
        ],
      );
      if (provider === 'postgres') {
        // ...while a quick writer takes a higher id and commits.
        await insert(ds, [
          { createdDate: new Date(BASE + 2), stageId: 1, name: 'quick', value: 3, other: 3 },
        ]);
        expect((await engine.query(def, q())).total).toBe(2);
      }
      await slow.commitTransaction();
    } finally {
      await slow.release();
    }
    // Same newest id, same oldest id as the answer above: only the in-flight check keeps it from the cache.
    expect((await engine.query(def, q())).total).toBe(provider === 'postgres' ? 3 : 2);
  });

  it('the default window follows the clock without serving stale answers', async () => {
    await insert(ds, [
      { createdDate: new Date(BASE - 10 * 60_000), stageId: 1, name: 'a', value: 1, other: 1 },
    ]);
    const at = (now: number) => engine.query(def, parseGridQuery(def, {}, now));
    expect((await at(BASE)).total).toBe(1);
    expect((await at(BASE + 1000)).total).toBe(1);
    // 51 minutes later the row has left the default one-hour window
    expect((await at(BASE + 51 * 60_000)).total).toBe(0);
  });
});
