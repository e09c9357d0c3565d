import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager, type EntityTarget, type ObjectLiteral } from 'typeorm';
import { chunked, providerOf, rowsPerStatement } from '@app/database';
import { ArchiverStagePerformanceCounter, CaseCreationStagePerformanceCounter } from '../entities';

export type ArchiverCounterRow = Omit<ArchiverStagePerformanceCounter, 'Id'>;
export type CaseCreationCounterRow = Omit<CaseCreationStagePerformanceCounter, 'Id'>;

/**
 * Writes the stage rollup rows: one row per model and stage that ran, in multi-row inserts sized to the
 * dialect's parameter limit (60 models × 4 stages already exceed SQL Server's 2098), all in one transaction.
 */
@Injectable()
export class StageRollupRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(archiver: ArchiverCounterRow[], caseCreation: CaseCreationCounterRow[]): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await this.insertChunks(manager, ArchiverStagePerformanceCounter, archiver);
      await this.insertChunks(manager, CaseCreationStagePerformanceCounter, caseCreation);
    });
  }

  private async insertChunks<T extends ObjectLiteral>(
    manager: EntityManager,
    table: EntityTarget<T>,
    rows: T[],
  ): Promise<void> {
    const columns = this.dataSource.getMetadata(table).columns.filter((c) => !c.isGenerated).length;
    const per = rowsPerStatement(providerOf(this.dataSource.options.type), columns);
    for (const chunk of chunked(rows, per))
      await manager.createQueryBuilder().insert().into(table).values(chunk).updateEntity(false).execute();
  }
}
