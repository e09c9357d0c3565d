import { DataSource } from 'typeorm';
import { dataSourceOptions, SchemaWriter } from '@app/database';
import { createEmptyPostgresDatabase, createSqliteDirectory, TestProvider } from './databases';
import { GridEngine, type GridDefinition } from '@app/grid';

/** The grid engine's test table (GridTest) and its declaration, for the engine's specs on both databases. */
export const def: GridDefinition = {
  name: 'GridTest',
  table: 'GridTest',
  idColumn: 'Id',
  timeColumn: 'CreatedDate',
  columns: [
    { name: 'id', column: 'Id', kind: 'number' },
    { name: 'stageId', column: 'StageId', kind: 'number' },
    { name: 'name', column: 'Name', kind: 'string' },
    { name: 'value', column: 'Value', kind: 'number' },
    { name: 'other', column: 'Other', kind: 'number' },
    { name: 'createdDate', column: 'CreatedDate', kind: 'date' },
  ],
  filters: [{ param: 'stageId', column: 'StageId', type: 'integer', min: 1, max: 4 }],
  searchColumns: ['Name'],
  statistics: ['value', 'other'],
  sortable: true,
  decorate: (r) => ({ stageName: `Stage${String(r.stageId)}` }),
  series: { measure: 'value', by: { column: 'StageId', name: (v) => `Stage${v}` } },
};

export interface TestRow {
  createdDate: Date;
  stageId: number;
  name: string;
  value: number;
  other: number;
}

export const BASE = Date.parse('2026-11-22T10:00:00Z');

export async function openDatabase(provider: TestProvider): Promise<DataSource> {
  const ds = new DataSource(
    dataSourceOptions(
      {
        provider,
        connectionString: provider === 'postgres' ? await createEmptyPostgresDatabase() : undefined,
        dataDirectory: createSqliteDirectory(),
      },
      [],
      [],
    ),
  );
  await ds.initialize();
  const qr = ds.createQueryRunner();
  const s = new SchemaWriter(qr);
  await s.createTable(
    'GridTest',
    [
      s.id('GridTest'),
      s.column('timestamp', 'CreatedDate'),
      s.column('integer', 'StageId'),
      s.column('string', 'Name', { length: '100' }),
      s.column('bigint', 'Value'),
      s.column('double', 'Other'),
    ],
    [{ name: 'IX_GridTest_CreatedDate', columns: ['CreatedDate'] }],
  );
  await qr.release();
  return ds;
}

export async function insert(ds: DataSource, rows: TestRow[]): Promise<void> {
  if (!rows.length) return;
  await ds
    .createQueryBuilder()
    .insert()
    .into('GridTest', ['CreatedDate', 'StageId', 'Name', 'Value', 'Other'])
    .values(
      rows.map((r) => ({
        CreatedDate: r.createdDate,
        StageId: r.stageId,
        Name: r.name,
        Value: r.value,
        Other: r.other,
      })),
    )
    .execute();
}

/**
 * The test table on `provider` for one describe block: opened before it, emptied (and the engine's cache
 * cleared) before each test, closed after it. `use` receives the data source and an engine over it.
 */
export function gridTableFixture(
  provider: TestProvider,
  use: (ds: DataSource, engine: GridEngine) => void,
): void {
  let ds: DataSource;
  let engine: GridEngine;
  beforeAll(async () => {
    ds = await openDatabase(provider);
    engine = new GridEngine(ds);
    use(ds, engine);
  });
  afterAll(() => ds.destroy());
  beforeEach(async () => {
    await ds.query('DELETE FROM "GridTest"');
    engine.clearCache();
  });
}
