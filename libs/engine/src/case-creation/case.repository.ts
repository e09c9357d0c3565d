import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { DatabaseProvider } from '@app/config';
import { preparedRead, type PreparedRead, providerOf } from '@app/database';
import { CaseRecord } from '../entities';

/** What the case creation pipeline needs of an open case: which row, and the priority to beat. */
export type OpenCase = Pick<CaseRecord, 'Id' | 'Priority'>;

/**
 * The open case of a workflow, key and value (the newest, should there ever be more than one): one read of
 * the unique open-case index, per activation.
 */
function openCaseSql(provider: DatabaseProvider): string {
  const rest = `FROM "Case" WHERE "CaseWorkflowId" = :workflowId AND "CaseKey" = :caseKey
  AND "CaseKeyValue" = :caseKeyValue AND "ClosedDate" IS NULL ORDER BY "Id" DESC`;
  return provider === 'mssql'
    ? `SELECT TOP 1 "Id", "Priority" ${rest}`
    : `SELECT "Id", "Priority" ${rest} LIMIT 1`;
}

/** Every query on the Case table. */
@Injectable()
export class CaseRepository {
  private openCaseRead?: PreparedRead;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get cases() {
    return this.dataSource.getRepository(CaseRecord);
  }

  /**
   * The open case for a workflow, key and value, if any. Read on every activation, so a prepared statement
   * (preparedRead) rather than the ORM's query building, which cost more than the read itself.
   */
  async findOpen(workflowId: number, caseKey: string, caseKeyValue: string): Promise<OpenCase | null> {
    this.openCaseRead ??= preparedRead(
      this.dataSource,
      'open-case',
      openCaseSql(providerOf(this.dataSource.options.type)),
      ['Id', 'Priority'],
    );
    const [row] = await this.openCaseRead({ workflowId, caseKey, caseKeyValue });
    return row ? { Id: Number(row[0]), Priority: Number(row[1]) } : null;
  }

  insert(c: Omit<CaseRecord, 'Id'>): Promise<CaseRecord> {
    return this.cases.save(Object.assign(new CaseRecord(), c));
  }

  async upgrade(id: number, statusId: number, priority: number, entryGuid: string, at: Date): Promise<void> {
    await this.cases.update(
      { Id: id },
      {
        CaseWorkflowStatusId: statusId,
        Priority: priority,
        EntityAnalysisModelInstanceEntryGuid: entryGuid,
        UpdatedDate: at,
      },
    );
  }
}
