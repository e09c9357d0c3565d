import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { providerOf, rowsPerStatement } from '@app/database';
import { EntityAnalysisModelArchive } from '../entities';

export type ArchiveRow = Omit<EntityAnalysisModelArchive, 'Id'>;

/** Where the purge's walk of a model's rows has reached: the last row it read (the database's own values). */
export interface PurgePosition {
  createdDate: unknown;
  id: number;
}
export interface PurgeCandidate extends PurgePosition {
  /** An open case names it: kept. */
  kept: boolean;
}

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

  /**
   * The purge's next candidates of a model: up to `limit` rows created before `before`, oldest first, after the
   * position `after` (the last candidate of the previous page: the purge walks past the rows it keeps), each
   * with whether an open case names it (such a row is kept). Through IX_EntityAnalysisModelArchive_Model_CreatedDate
   * and IX_Case_Open_EntryGuid.
   */
  async purgeCandidates(
    modelId: number,
    before: Date,
    after: PurgePosition | null,
    limit: number,
  ): Promise<PurgeCandidate[]> {
    const p = this.placeholders();
    const created = this.dataSource
      .getMetadata(EntityAnalysisModelArchive)
      .findColumnWithPropertyName('CreatedDate')!;
    const params: unknown[] = [modelId, this.dataSource.driver.preparePersistentValue(before, created)];
    let from = '';
    if (after) {
      from = ` AND (a."CreatedDate" > ${p(2)} OR (a."CreatedDate" = ${p(3)} AND a."Id" > ${p(4)}))`;
      params.push(after.createdDate, after.createdDate, after.id);
    }
    params.push(limit);
    const top = this.provider === 'mssql' ? `TOP (${p(params.length - 1)}) ` : '';
    const tail = this.provider === 'mssql' ? '' : ` LIMIT ${p(params.length - 1)}`;
    const rows = await this.dataSource.query<
      { Id: string | number; CreatedDate: unknown; Kept: number | string }[]
    >(
      `SELECT ${top}a."Id", a."CreatedDate", CASE WHEN EXISTS (SELECT 1 FROM "Case" c
  WHERE c."EntityAnalysisModelInstanceEntryGuid" = a."EntityAnalysisModelInstanceEntryGuid" AND c."ClosedDate" IS NULL)
  THEN 1 ELSE 0 END AS "Kept"
FROM "EntityAnalysisModelArchive" a
WHERE a."EntityAnalysisModelId" = ${p(0)} AND a."CreatedDate" < ${p(1)}${from}
ORDER BY a."CreatedDate", a."Id"${tail}`,
      params,
    );
    return rows.map((r) => ({ id: Number(r.Id), createdDate: r.CreatedDate, kept: Number(r.Kept) === 1 }));
  }

  /**
   * Deletes these rows, except any an open case names by now (a reprocessing may have raised one since the
   * candidates were read), in one statement and its own transaction. Answers the rows deleted.
   */
  async purge(ids: readonly number[]): Promise<number> {
    if (!ids.length) return 0;
    const p = this.placeholders();
    const qr = this.dataSource.createQueryRunner();
    try {
      const result = await qr.query(
        `DELETE FROM "EntityAnalysisModelArchive" WHERE "Id" IN (${ids.map((_, i) => p(i)).join(', ')})
  AND NOT EXISTS (SELECT 1 FROM "Case" c WHERE c."EntityAnalysisModelInstanceEntryGuid" =
    "EntityAnalysisModelArchive"."EntityAnalysisModelInstanceEntryGuid" AND c."ClosedDate" IS NULL)`,
        [...ids],
        true,
      );
      return result.affected ?? 0;
    } finally {
      await qr.release();
    }
  }

  /** The creation time of a model's oldest archived row (null: none). */
  async oldest(modelId: number): Promise<Date | null> {
    const row = await this.dataSource.getRepository(EntityAnalysisModelArchive).findOne({
      select: { CreatedDate: true, Id: true },
      where: { EntityAnalysisModelId: modelId },
      order: { CreatedDate: 'ASC', Id: 'ASC' },
    });
    return row?.CreatedDate ?? null;
  }

  private placeholders(): (n: number) => string {
    return (n) => (this.provider === 'postgres' ? `$${n + 1}` : this.provider === 'mssql' ? `@${n}` : '?');
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
