import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { providerOf, rowsPerStatement } from '@app/database';
import { EntityAnalysisModelArchive } from '../entities';

export type ArchiveRow = Omit<EntityAnalysisModelArchive, 'Id'>;

/** The archive row's columns in INSERT order: a fixed allow-list, never from input. */
const COLUMNS = [
  'EntityAnalysisModelInstanceEntryGuid',
  'EntityAnalysisModelId',
  'EntryReference',
  'Json',
  'ReferenceDate',
  'CreatedDate',
  'UpdatedDate',
] as const satisfies readonly (keyof ArchiveRow)[];
/** PostgreSQL element types of the unnest() arrays, column by column. */
const PG_ARRAY_TYPES = [
  'varchar[]',
  'integer[]',
  'varchar[]',
  'text[]',
  'timestamptz[]',
  'timestamptz[]',
  'timestamptz[]',
];
/** PostgreSQL binds one array per column, so its statements hold this many rows whatever the limit. */
const ROWS_PER_PG_STATEMENT = 10_000;

/** Every query on the archive table. */
@Injectable()
export class ArchiveRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get provider() {
    return providerOf(this.dataSource.options.type);
  }

  /** Rows per INSERT statement for this dialect (within its parameter and VALUES row limits elsewhere). */
  get rowsPerStatement(): number {
    return this.provider === 'postgres'
      ? ROWS_PER_PG_STATEMENT
      : rowsPerStatement(this.provider, COLUMNS.length);
  }

  /**
   * The bulk path, all in ONE transaction (one SQLite transaction; all-or-nothing everywhere, so a failed
   * batch is retried whole). PostgreSQL: INSERT ... SELECT FROM unnest() with one array parameter per
   * column. SQLite and SQL Server: multi-row INSERT ... VALUES chunks within the dialect's parameter limit.
   * Values are converted by the driver exactly as the ORM would store them (dates on SQLite, bits on SQL
   * Server); table and column names come from the entity metadata, escaped by the driver.
   */
  async bulkInsert(rows: ArchiveRow[]): Promise<void> {
    if (!rows.length) return;
    const driver = this.dataSource.driver;
    const metadata = this.dataSource.getMetadata(EntityAnalysisModelArchive);
    const columns = COLUMNS.map((name) => {
      const column = metadata.findColumnWithPropertyName(name);
      if (!column) throw new Error(`Archive column ${name} is not mapped`);
      return column;
    });
    const table = driver.escape(metadata.tableName);
    const names = columns.map((c) => driver.escape(c.databaseName)).join(', ');
    const chunk = this.rowsPerStatement;
    await this.dataSource.transaction(async (manager) => {
      for (let i = 0; i < rows.length; i += chunk) {
        const slice = rows.slice(i, i + chunk);
        if (this.provider === 'postgres') {
          const arrays = columns.map((c, k) =>
            slice.map((r) => driver.preparePersistentValue(r[COLUMNS[k]], c) as unknown),
          );
          const unnest = PG_ARRAY_TYPES.map((t, k) => `$${k + 1}::${t}`).join(', ');
          await manager.query(`INSERT INTO ${table} (${names}) SELECT * FROM unnest(${unnest})`, arrays);
        } else {
          const params: unknown[] = [];
          const tuples = slice.map((r) => {
            const marks = columns.map((c, k) => {
              params.push(driver.preparePersistentValue(r[COLUMNS[k]], c));
              return this.provider === 'mssql' ? `@${params.length - 1}` : '?';
            });
            return `(${marks.join(', ')})`;
          });
          await manager.query(`INSERT INTO ${table} (${names}) VALUES ${tuples.join(', ')}`, params);
        }
      }
    });
  }

  findByEntryGuid(modelId: number, entryGuid: string): Promise<EntityAnalysisModelArchive | null> {
    return this.dataSource.getRepository(EntityAnalysisModelArchive).findOne({
      where: { EntityAnalysisModelId: modelId, EntityAnalysisModelInstanceEntryGuid: entryGuid },
    });
  }

  /** The reprocessing write: the same row, updated in place. */
  async updateInPlace(id: number, json: string, referenceDate: Date, updatedDate: Date): Promise<void> {
    await this.dataSource
      .getRepository(EntityAnalysisModelArchive)
      .update({ Id: id }, { Json: json, ReferenceDate: referenceDate, UpdatedDate: updatedDate });
  }
}
