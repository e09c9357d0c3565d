import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { providerOf } from '@app/database';
import { EntityAnalysisModelArchive } from '../entities';

export type ArchiveRow = Omit<EntityAnalysisModelArchive, 'Id'>;

/** Columns of one archive row in an INSERT (each is one bound parameter). */
const COLUMNS_PER_ROW = 7;
/**
 * Bound parameters per statement: PostgreSQL 65535, SQLite 32766 (since 3.32), SQL Server 2100 (kept
 * below it for the statement's own parameters).
 */
const PARAMETER_LIMIT = { postgres: 65_535, sqlite: 32_766, mssql: 2_000 } as const;

/** Every query on the archive table. */
@Injectable()
export class ArchiveRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Rows per multi-row INSERT for this dialect's parameter limit. */
  get rowsPerStatement(): number {
    const provider = providerOf(this.dataSource.options.type);
    return Math.floor(PARAMETER_LIMIT[provider] / COLUMNS_PER_ROW);
  }

  /**
   * The bulk path: multi-row INSERTs in chunks that respect the dialect's parameter limit, all in ONE
   * transaction (one SQLite transaction; all-or-nothing on every dialect, so a failed batch is retried whole).
   */
  async bulkInsert(rows: ArchiveRow[]): Promise<void> {
    if (!rows.length) return;
    const chunk = this.rowsPerStatement;
    await this.dataSource.transaction(async (manager) => {
      for (let i = 0; i < rows.length; i += chunk) {
        await manager
          .createQueryBuilder()
          .insert()
          .into(EntityAnalysisModelArchive)
          .values(rows.slice(i, i + chunk))
          .updateEntity(false)
          .execute();
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
