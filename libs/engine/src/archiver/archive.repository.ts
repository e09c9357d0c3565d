import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { DatabaseProvider } from '@app/config';
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

/** A statement and its parameters. */
export interface Statement {
  sql: string;
  params: unknown[];
}

/** A page of the purge's candidates: a model's rows before `cutoff` (the database's value), after `after`. */
export interface PurgePageQuery {
  modelId: number;
  cutoff: unknown;
  after: PurgePosition | null;
  limit: number;
}

/** The dialect's mark for the n-th parameter (from 0). */
function placeholders(provider: DatabaseProvider): (n: number) => string {
  return (n) => (provider === 'postgres' ? `$${n + 1}` : provider === 'mssql' ? `@${n}` : '?');
}

/**
 * 1 when an open case names the archive row `entry` is the guid of, else NULL: a scalar subquery of one row through
 * IX_Case_Open_EntryGuid. Written so, PostgreSQL probes the index once a row whatever the statistics; as EXISTS or
 * NOT EXISTS it may turn it into a hash of every open case (a semi or anti join, or a hashed subplan), chosen
 * from the statistics: each page or delete then read all the open cases (35 ms at 80 000 of them, bench:purge-page).
 */
function openCaseNames(provider: DatabaseProvider, entry: string): string {
  const top = provider === 'mssql' ? 'TOP (1) ' : '';
  const limit = provider === 'mssql' ? '' : ' LIMIT 1';
  return `(SELECT ${top}1 FROM "Case" c WHERE c."EntityAnalysisModelInstanceEntryGuid" = ${entry}
    AND c."ClosedDate" IS NULL${limit})`;
}

const kept = (provider: DatabaseProvider) =>
  `COALESCE(${openCaseNames(provider, 'a."EntityAnalysisModelInstanceEntryGuid"')}, 0) AS "Kept"`;

/**
 * The purge's page of candidates (ArchiveRepository.purgeCandidates): the statement and its parameters.
 *
 * PostgreSQL walks the index a row at a time (a recursive query whose each step is the next row after the last,
 * LIMIT 1), stopping at the cutoff or the page's end; the rows come out in the walk's order, and the outer LIMIT
 * ends the walk (PostgreSQL evaluates a WITH query only as far as it is read). A single ORDER BY … LIMIT is planned
 * from the table's statistics: without them (a new table, autovacuum off, a bulk load between two ANALYZEs)
 * PostgreSQL guesses that few rows of the model lie past the position and may choose a bitmap scan and a sort of
 * every one of them, each page (94–126 ms a page at 400 000 rows in bench:purge-page, growing with the archive).
 * A step of LIMIT 1 is an index probe whatever the guess; the walk costs 1.2–2.3 ms more a page than one ORDER BY
 * that is planned well. SQLite and SQL Server (which creates statistics as it plans) read the page in one
 * ORDER BY with LIMIT or TOP. Docs: docs/decisions.md, The archive's retention.
 */
export function purgePage(provider: DatabaseProvider, page: PurgePageQuery): Statement {
  return provider === 'postgres' ? walkedPurgePage(page) : orderedPurgePage(provider, page);
}

/** PostgreSQL's page (purgePage): a recursive walk of LIMIT 1 steps. */
export function walkedPurgePage({ modelId, cutoff, after, limit }: PurgePageQuery): Statement {
  const columns = `a."Id", a."CreatedDate", a."EntityAnalysisModelInstanceEntryGuid"`;
  const next = (from: string) => `SELECT ${columns} FROM "EntityAnalysisModelArchive" a
    WHERE a."EntityAnalysisModelId" = $1${from} ORDER BY a."CreatedDate", a."Id" LIMIT 1`;
  return {
    sql: `WITH RECURSIVE walk AS (
  (${next(after ? ` AND (a."CreatedDate", a."Id") > ($4, $5)` : '')})
  UNION ALL
  SELECT n.* FROM walk w CROSS JOIN LATERAL (${next(` AND (a."CreatedDate", a."Id") > (w."CreatedDate", w."Id")`)}) n
  WHERE w."CreatedDate" < $2
)
SELECT a."Id", a."CreatedDate", ${kept('postgres')}
FROM walk a WHERE a."CreatedDate" < $2 LIMIT $3`,
    params: [modelId, cutoff, limit, ...(after ? [after.createdDate, after.id] : [])],
  };
}

/**
 * The page in one ORDER BY with LIMIT or TOP (purgePage: SQLite and SQL Server; on PostgreSQL only in
 * bench:purge-page, beside the walk). The position is a bound the index seeks to (`CreatedDate >= x`), the tie on
 * CreatedDate a filter: as `CreatedDate > x OR (CreatedDate = x AND Id > y)` alone it was no bound, and each page
 * read the model's rows from its oldest (the rows kept for open cases, and on PostgreSQL those deleted and not yet
 * vacuumed) up to the position. Parameters in the order they appear (SQLite's ? are positional).
 */
export function orderedPurgePage(
  provider: DatabaseProvider,
  { modelId, cutoff, after, limit }: PurgePageQuery,
): Statement {
  const p = placeholders(provider);
  const from = after
    ? ` AND a."CreatedDate" >= ${p(2)} AND (a."CreatedDate" > ${p(3)} OR a."Id" > ${p(4)})`
    : '';
  const params = [modelId, cutoff, ...(after ? [after.createdDate, after.createdDate, after.id] : []), limit];
  const top = provider === 'mssql' ? `TOP (${p(params.length - 1)}) ` : '';
  const tail = provider === 'mssql' ? '' : ` LIMIT ${p(params.length - 1)}`;
  return {
    sql: `SELECT ${top}a."Id", a."CreatedDate", ${kept(provider)}
FROM "EntityAnalysisModelArchive" a
WHERE a."EntityAnalysisModelId" = ${p(0)} AND a."CreatedDate" < ${p(1)}${from}
ORDER BY a."CreatedDate", a."Id"${tail}`,
    params,
  };
}

/** The purge's delete of these rows but those an open case names (ArchiveRepository.purge). */
export function purgeDelete(provider: DatabaseProvider, ids: readonly number[]): Statement {
  const p = placeholders(provider);
  return {
    sql: `DELETE FROM "EntityAnalysisModelArchive" WHERE "Id" IN (${ids.map((_, i) => p(i)).join(', ')})
  AND ${openCaseNames(provider, '"EntityAnalysisModelArchive"."EntityAnalysisModelInstanceEntryGuid"')} IS NULL`,
    params: [...ids],
  };
}

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
          const mark = placeholders(this.provider);
          const tuples = slice.map((r) => {
            const marks = columns.map((c, k) => {
              params.push(driver.preparePersistentValue(r[COLUMNS[k]], c));
              return mark(params.length - 1);
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
   * and IX_Case_Open_EntryGuid. The statement: purgePage.
   */
  async purgeCandidates(
    modelId: number,
    before: Date,
    after: PurgePosition | null,
    limit: number,
  ): Promise<PurgeCandidate[]> {
    const created = this.dataSource
      .getMetadata(EntityAnalysisModelArchive)
      .findColumnWithPropertyName('CreatedDate')!;
    const cutoff: unknown = this.dataSource.driver.preparePersistentValue(before, created);
    const { sql, params } = purgePage(this.provider, { modelId, cutoff, after, limit });
    const rows = await this.dataSource.query<
      { Id: string | number; CreatedDate: unknown; Kept: number | string }[]
    >(sql, params);
    return rows.map((r) => ({ id: Number(r.Id), createdDate: r.CreatedDate, kept: Number(r.Kept) === 1 }));
  }

  /**
   * Deletes these rows, except any an open case names by now (a reprocessing may have raised one since the
   * candidates were read), in one statement and its own transaction. Answers the rows deleted.
   */
  async purge(ids: readonly number[]): Promise<number> {
    if (!ids.length) return 0;
    const { sql, params } = purgeDelete(this.provider, ids);
    const qr = this.dataSource.createQueryRunner();
    try {
      const result = await qr.query(sql, params, true);
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
