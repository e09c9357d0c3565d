import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ArchiverStagePerformanceCounter, CaseCreationStagePerformanceCounter } from '../entities';

export type ArchiverCounterRow = Omit<ArchiverStagePerformanceCounter, 'Id'>;
export type CaseCreationCounterRow = Omit<CaseCreationStagePerformanceCounter, 'Id'>;

/** Writes the stage rollup rows: a handful per interval, in one multi-row insert per table. */
@Injectable()
export class StageRollupRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(archiver: ArchiverCounterRow[], caseCreation: CaseCreationCounterRow[]): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      if (archiver.length)
        await manager
          .createQueryBuilder()
          .insert()
          .into(ArchiverStagePerformanceCounter)
          .values(archiver)
          .updateEntity(false)
          .execute();
      if (caseCreation.length)
        await manager
          .createQueryBuilder()
          .insert()
          .into(CaseCreationStagePerformanceCounter)
          .values(caseCreation)
          .updateEntity(false)
          .execute();
    });
  }
}
