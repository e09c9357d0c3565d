import 'reflect-metadata';
import type { DataSource } from 'typeorm';
import {
  GridDefinition,
  GridEngine,
  parseGridQuery,
  ADMIN_EVENT_GRID,
  TELEMETRY_GRIDS,
  USER_LOGIN_GRID,
  USER_LOGOUT_GRID,
} from '@app/grid';
import { SqlServerRecorder } from '../support/sql-server-recorder';
import { expectSqlServerAccepts, NOW, recordedSqlServer } from './recorded';

/** The grids' SQL, snapshotted (the describe keeps the name the snapshots were taken under; recorded.ts). */
describe('SQL Server statements, recorded without a server', () => {
  const r = recordedSqlServer();
  const { recording } = r;
  let ds: DataSource;
  let recorder: SqlServerRecorder;
  beforeAll(() => {
    ({ ds, recorder } = r);
  });

  describe('grids', () => {
    const grids: GridDefinition[] = [...TELEMETRY_GRIDS, USER_LOGIN_GRID, USER_LOGOUT_GRID, ADMIN_EVENT_GRID];
    /** Every option a grid takes, at its edges. */
    const fullQuery = (def: GridDefinition) => ({
      from: '0001-01-01T00:00:00Z',
      to: '9999-12-31T23:59:59.999Z',
      ...Object.fromEntries(
        def.filters.map((f) => [
          f.param,
          f.type === 'integer'
            ? String(f.max)
            : f.type === 'guid'
              ? '11111111-1111-4111-8111-111111111111'
              : 'true',
        ]),
      ),
      beforeTime: '2026-11-22T09:59:59.123Z',
      beforeId: '42',
      search: 'a[b]%_\\',
      take: '100000',
      samplePercentage: '10',
      sampleSeed: '42',
      sortField: def.columns.at(-1)!.name,
      sortDirection: 'asc',
    });
    const scopeOf = (def: GridDefinition) =>
      [USER_LOGIN_GRID, USER_LOGOUT_GRID, ADMIN_EVENT_GRID].includes(def)
        ? [{ column: 'TenantRegistryId', value: 7 }]
        : [];
    const summaryRow = { n: 0, total: 0, mx: null, mn: null, wc: 0 };

    it.each(grids.map((g) => [g.name, g] as const))('%s: default and full options', async (_name, def) => {
      const engine = new GridEngine(ds);
      for (const [label, raw] of [
        ['default', {}],
        ['full', fullQuery(def)],
      ] as const) {
        recorder.answer(/AS total/, [summaryRow]);
        recorder.answer(/AS mx/, [summaryRow]);
        const q = parseGridQuery(def, raw, NOW);
        // Twice: the second answer comes through the cache's change check.
        const statements = await recording(async () => {
          await engine.query(def, q, scopeOf(def));
          await engine.query(def, q, scopeOf(def));
        });
        expectSqlServerAccepts(statements);
        expect(
          statements.map((s) => ({ sql: s.sql, types: s.parameters.map((p) => p.type) })),
        ).toMatchSnapshot(`${def.name} ${label}`);
      }
    });

    it.each(TELEMETRY_GRIDS.filter((g) => g.statistics.length).map((g) => [g.name, g] as const))(
      '%s: the statistics read the sampled window once, in one statement with the total',
      async (_name, def) => {
        const values = Object.fromEntries(def.statistics.map((_, i) => [`a${i}`, '4,1,3,2,1E+300']));
        recorder.answer(/STRING_AGG/, [{ ...summaryRow, ...values, total: 5 }]);
        let answer: Awaited<ReturnType<GridEngine['query']>> | undefined;
        const statements = await recording(async () => {
          answer = await new GridEngine(ds).query(
            def,
            parseGridQuery(def, fullQuery(def), NOW),
            scopeOf(def),
          );
        });
        expectSqlServerAccepts(statements);
        const reads = statements.filter((s) => /STRING_AGG/.test(s.sql));
        expect(reads).toHaveLength(1);
        // The window (TOP of the capped rows) appears once; no per-column aggregate, median or histogram.
        expect(reads[0].sql.match(/SELECT TOP \(/g)).toHaveLength(1);
        expect(statements.some((s) => /PERCENTILE_CONT|STDEV|FOR JSON/.test(s.sql))).toBe(false);
        expect(reads[0].sql).toMatch(/ AS total, /);
        const first = Object.values(answer!.statistics)[0] as { min: number; max: number; median: number };
        expect(first).toMatchObject({ min: 1, max: 1e300, median: 3 });
      },
    );

    it.each(TELEMETRY_GRIDS.map((g) => [g.name, g] as const))(
      '%s/Series: one grouped statement, the bucket in whole milliseconds (DATEDIFF_BIG)',
      async (_name, def) => {
        const statements = await recording(() =>
          new GridEngine(ds).series(def, parseGridQuery(def, fullQuery(def), NOW), 1_000),
        );
        expectSqlServerAccepts(statements);
        expect(statements.length).toBe(1);
        expect(statements[0].sql).toMatch(/DATEDIFF_BIG\(millisecond, @0, \[\w+\]\) \/ @1 AS b/);
        // the origin as datetime2; the width a whole number (bigint here: the full window spans ten millennia)
        expect(statements[0].parameters.slice(0, 2).map((p) => p.type)).toEqual(['datetime2', 'bigint']);
        expect(
          statements.map((s) => ({ sql: s.sql, types: s.parameters.map((p) => p.type) })),
        ).toMatchSnapshot(`${def.name} series`);
      },
    );

    it('counts an export’s window in one statement', async () => {
      const def = USER_LOGIN_GRID;
      recorder.answer(/AS n FROM/, [{ n: 3 }]);
      const statements = await recording(async () =>
        expect(
          await new GridEngine(ds).count(def, parseGridQuery(def, fullQuery(def), NOW), scopeOf(def)),
        ).toBe(3),
      );
      expectSqlServerAccepts(statements);
      expect(statements.map((s) => s.sql)).toEqual([
        expect.stringMatching(/^SELECT COUNT\(\*\) AS n FROM \[UserLogin\] WHERE /),
      ]);
    });

    it('reads a large answer in keyset batches of TOP (n), the next batch below the last row', async () => {
      const def = USER_LOGIN_GRID;
      const last = { grid_key_value: new Date('2026-11-22T09:59:59.123Z'), grid_key_id: 42 };
      recorder.answer(/grid_key_value/, [{ ...last }, { ...last }], 2);
      const engine = new GridEngine(ds);
      const q = parseGridQuery(def, {}, NOW);
      const statements = await recording(async () => {
        const batches = engine.rowBatches(def, q, scopeOf(def), null, 4, (sql, p) => ds.query(sql, p), 2);
        for await (const _rows of batches) {
          /* read them all */
        }
      });
      expectSqlServerAccepts(statements);
      expect(statements.map((s) => s.sql)).toEqual([
        expect.stringMatching(/^SELECT TOP \(2\) .* ORDER BY \[CreatedDate\] DESC, \[Id\] DESC$/),
        expect.stringMatching(
          /AND \[CreatedDate\] <= @\d+ AND \(\[CreatedDate\] < @\d+ OR \[Id\] < @\d+\) ORDER BY/,
        ),
      ]);
      const keyset = statements[1].parameters.slice(-3);
      expect(keyset.map((p) => p.type)).toEqual(['datetime2', 'datetime2', 'int']);
    });

    it('reads a large answer sorted by a nullable column in keyset batches, NULLs first as SQL Server sorts them', async () => {
      const def = ADMIN_EVENT_GRID;
      // the newest answer first: two rows without a user agent, then two with one, then none
      recorder.answer(/grid_key_value/, [], 1);
      recorder.answer(
        /grid_key_value/,
        [
          { grid_key_value: 'Mozilla', grid_key_id: 3 },
          { grid_key_value: 'Mozilla', grid_key_id: 5 },
        ],
        1,
      );
      recorder.answer(
        /grid_key_value/,
        [
          { grid_key_value: null, grid_key_id: 7 },
          { grid_key_value: null, grid_key_id: 9 },
        ],
        1,
      );
      const engine = new GridEngine(ds);
      const q = parseGridQuery(def, { sortField: 'userAgent', sortDirection: 'asc' }, NOW);
      const statements = await recording(async () => {
        const batches = engine.rowBatches(def, q, scopeOf(def), null, 6, (sql, p) => ds.query(sql, p), 2);
        for await (const _rows of batches) {
          /* read them all */
        }
      });
      expectSqlServerAccepts(statements);
      expect(statements.map((s) => s.sql)).toEqual([
        expect.stringMatching(/ORDER BY \[UserAgent\] ASC, \[Id\] ASC$/),
        expect.stringMatching(
          /AND \(\(\[UserAgent\] IS NULL AND \[Id\] > @\d+\) OR \[UserAgent\] IS NOT NULL\) ORDER BY/,
        ),
        expect.stringMatching(
          /AND \(\[UserAgent\] > @\d+ OR \(\[UserAgent\] = @\d+ AND \[Id\] > @\d+\)\) ORDER BY/,
        ),
      ]);
      expect(statements[2].parameters.slice(-3).map((p) => p.value)).toEqual(['Mozilla', 'Mozilla', 5]);
    });

    it('UserLogin refused: the flag and the codes of the steps to continue are parameters; false is the exact complement', async () => {
      const def = USER_LOGIN_GRID;
      const condition = '[Failed] = @2 AND ([FailureTypeId] IS NULL OR [FailureTypeId] NOT IN (@3, @4, @5))';
      for (const [refused, expected] of [
        ['true', `AND (${condition})`],
        ['false', `AND NOT (${condition})`],
      ] as const) {
        recorder.answer(/AS total/, [summaryRow]);
        const statements = await recording(() =>
          new GridEngine(ds).query(def, parseGridQuery(def, { refused }, NOW), []),
        );
        expectSqlServerAccepts(statements);
        const [rows] = statements;
        expect(rows.sql).toContain(`[CreatedDate] <= @1 ${expected} ORDER BY`);
        // the codes come from the declaration (libs/audit FAILURE_KIND), never from the request or the SQL text
        expect(rows.parameters.slice(2).map((p) => [p.value, p.type])).toEqual([
          [true, 'bit'],
          [4, 'int'],
          [13, 'int'],
          [14, 'int'],
        ]);
      }
    });

    it('matches [ in a search literally: escaped in the pattern, with ESCAPE', async () => {
      const def = USER_LOGIN_GRID;
      recorder.answer(/AS total/, [summaryRow]);
      const statements = await recording(() =>
        new GridEngine(ds).query(def, parseGridQuery(def, { search: 'a[b]c' }, NOW), []),
      );
      const [rows] = statements;
      expect(rows.sql).toMatch(/LIKE @\d+ ESCAPE '\\'/);
      const patterns = rows.parameters.filter((p) => typeof p.value === 'string' && p.value.startsWith('%'));
      expect(patterns.length).toBe(def.searchColumns.length);
      for (const p of patterns) expect(p.value).toBe('%a\\[b]c%');
    });
  });
});
