import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull } from 'typeorm';
import { CaseRecord } from '../entities';

/** Every query on the Case table. */
@Injectable()
export class CaseRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private get cases() {
    return this.dataSource.getRepository(CaseRecord);
  }

  /** The open case for a workflow, key and value (the newest, should there ever be more than one). */
  findOpen(workflowId: number, caseKey: string, caseKeyValue: string): Promise<CaseRecord | null> {
    return this.cases.findOne({
      where: {
        CaseWorkflowId: workflowId,
        CaseKey: caseKey,
        CaseKeyValue: caseKeyValue,
        ClosedDate: IsNull(),
      },
      order: { Id: 'DESC' },
    });
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
