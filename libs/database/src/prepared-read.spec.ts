import { DataSource } from 'typeorm';
import { isDatabaseUnavailable } from '@app/problems';
import {
  createPostgresDatabase,
  createSqliteDirectory,
  SQLITE_AND_POSTGRES,
} from '../../../test/support/databases';
import { dataSourceOptions } from './data-source-options';
import { preparedRead } from './prepared-read';

const SQL = `SELECT "Name" AS "name", "Rank" AS "rank" FROM "PreparedReadProbe"
WHERE "Rank" >= :low AND "Name" <> :skip AND "Rank" <= :low + 10 ORDER BY "Rank"`;

describe.each(SQLITE_AND_POSTGRES)('preparedRead on %s', (provider) => {
  let dataSource: DataSource;

  beforeAll(async () => {
    const target = {
      provider,
      dataDirectory: createSqliteDirectory(),
      connectionString: provider === 'postgres' ? await createPostgresDatabase() : undefined,
    };
    dataSource = new DataSource(dataSourceOptions(target, [], []));
    await dataSource.initialize();
    await dataSource.query(
      'CREATE TABLE "PreparedReadProbe" ("Name" varchar(40) NOT NULL, "Rank" integer NOT NULL)',
    );
    for (const [name, rank] of [
      ['a', 1],
      ['b', 2],
      ['c\'; DROP TABLE "PreparedReadProbe"; --', 3],
      ['d', 20],
    ] as const) {
      const [sql, values] = dataSource.driver.escapeQueryWithParameters(
        'INSERT INTO "PreparedReadProbe" ("Name", "Rank") VALUES (:name, :rank)',
        { name, rank },
      );
      await dataSource.query(sql, values);
    }
  });

  afterAll(async () => {
    if (dataSource.isInitialized) await dataSource.destroy();
  });

  it('binds named values in the statement order (a name used twice included) and answers rows as arrays', async () => {
    const read = preparedRead(dataSource, `probe-${provider}`, SQL, ['name', 'rank']);
    expect(await read({ low: 1, skip: 'b' })).toEqual([
      ['a', 1],
      ['c\'; DROP TABLE "PreparedReadProbe"; --', 3],
    ]);
    // the same prepared statement, other values: a value is data, never SQL
    expect(await read({ low: 2, skip: "x' OR '1'='1" })).toEqual([
      ['b', 2],
      ['c\'; DROP TABLE "PreparedReadProbe"; --', 3],
    ]);
    expect(await read({ low: 100, skip: '' })).toEqual([]);
    await expect(read({ low: 1 })).rejects.toThrow(/no value for :skip/);
  });

  it("answers what TypeORM's own query answers for the same statement and values (the fast path's parity)", async () => {
    const read = preparedRead(dataSource, `probe-parity-${provider}`, SQL, ['name', 'rank']);
    for (const parameters of [
      { low: 1, skip: 'b' },
      { low: 0, skip: '' },
      { low: 100, skip: 'a' },
    ]) {
      const [sql, values] = dataSource.driver.escapeQueryWithParameters(SQL, parameters);
      const rows: Record<string, unknown>[] = await dataSource.query(sql, values);
      expect(await read(parameters)).toEqual(rows.map((r) => Object.values(r)));
    }
  });

  it('takes no `::` for a placeholder (a PostgreSQL cast, or inside a literal)', async () => {
    const rank = provider === 'postgres' ? '"Rank"::text' : 'CAST("Rank" AS text)';
    const read = preparedRead(
      dataSource,
      `probe-cast-${provider}`,
      `SELECT ${rank} || '::note' FROM "PreparedReadProbe" WHERE "Name" <> 'x::skip' AND "Rank" >= :low AND "Rank" < 10`,
      ['text'],
    );
    expect(await read({ low: 3 })).toEqual([['3::note']]);
  });

  it('fails as unavailable when its DataSource is closed, and reads again once it is initialised again', async () => {
    const read = preparedRead(dataSource, `probe-reopen-${provider}`, SQL, ['name', 'rank']);
    expect(await read({ low: 20, skip: '' })).toEqual([['d', 20]]);
    await dataSource.destroy();
    const closed = await read({ low: 20, skip: '' }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(closed).toBeDefined();
    expect(isDatabaseUnavailable(closed)).toBe(true);
    await dataSource.initialize();
    expect(await read({ low: 20, skip: '' })).toEqual([['d', 20]]);
  });
});
