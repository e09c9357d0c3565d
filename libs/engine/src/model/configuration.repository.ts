import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { FindOptionsWhere, In, IsNull, Repository } from 'typeorm';
import { findInChunks } from '@app/database';
import {
  CaseWorkflow,
  CaseWorkflowStatus,
  EntityAnalysisModel,
  EntityAnalysisModelActivationRule,
  EntityAnalysisModelRequestXPath,
} from '../entities';

/** Every query on the configuration records. Soft-deleted rows are invisible. */
@Injectable()
export class ConfigurationRepository {
  constructor(
    @InjectRepository(EntityAnalysisModel) private readonly models: Repository<EntityAnalysisModel>,
    @InjectRepository(EntityAnalysisModelRequestXPath)
    private readonly xpaths: Repository<EntityAnalysisModelRequestXPath>,
    @InjectRepository(EntityAnalysisModelActivationRule)
    private readonly rules: Repository<EntityAnalysisModelActivationRule>,
    @InjectRepository(CaseWorkflow) private readonly workflows: Repository<CaseWorkflow>,
    @InjectRepository(CaseWorkflowStatus) private readonly statuses: Repository<CaseWorkflowStatus>,
  ) {}

  // ---- models
  listModels(tenantId: number): Promise<EntityAnalysisModel[]> {
    return this.models.find({
      where: { TenantRegistryId: tenantId, DeletedDate: IsNull() },
      order: { Id: 'ASC' },
    });
  }
  findModel(tenantId: number, guid: string): Promise<EntityAnalysisModel | null> {
    return this.models.findOne({ where: { Guid: guid, TenantRegistryId: tenantId, DeletedDate: IsNull() } });
  }
  findModelByGuid(guid: string): Promise<EntityAnalysisModel | null> {
    return this.models.findOne({ where: { Guid: guid, DeletedDate: IsNull() } });
  }
  findModelByName(tenantId: number, name: string): Promise<EntityAnalysisModel | null> {
    return this.models.findOne({ where: { Name: name, TenantRegistryId: tenantId, DeletedDate: IsNull() } });
  }
  /** Including soft-deleted models: a guid is never reused. */
  async modelGuidExists(guid: string): Promise<boolean> {
    return (await this.models.count({ where: { Guid: guid } })) > 0;
  }
  saveModel(m: EntityAnalysisModel): Promise<EntityAnalysisModel> {
    return this.models.save(m);
  }

  // ---- request XPaths
  listXPaths(modelId: number): Promise<EntityAnalysisModelRequestXPath[]> {
    return this.xpaths.find({
      where: { EntityAnalysisModelId: modelId, DeletedDate: IsNull() },
      order: { Id: 'ASC' },
    });
  }
  findXPath(modelId: number, guid: string): Promise<EntityAnalysisModelRequestXPath | null> {
    return this.xpaths.findOne({
      where: { Guid: guid, EntityAnalysisModelId: modelId, DeletedDate: IsNull() },
    });
  }
  saveXPath(x: EntityAnalysisModelRequestXPath): Promise<EntityAnalysisModelRequestXPath> {
    return this.xpaths.save(x);
  }

  // ---- activation rules
  listRules(modelId: number): Promise<EntityAnalysisModelActivationRule[]> {
    return this.rules.find({
      where: { EntityAnalysisModelId: modelId, DeletedDate: IsNull() },
      order: { Id: 'ASC' },
    });
  }
  findRule(modelId: number, guid: string): Promise<EntityAnalysisModelActivationRule | null> {
    return this.rules.findOne({
      where: { Guid: guid, EntityAnalysisModelId: modelId, DeletedDate: IsNull() },
    });
  }
  saveRule(r: EntityAnalysisModelActivationRule): Promise<EntityAnalysisModelActivationRule> {
    return this.rules.save(r);
  }

  // ---- workflows
  listWorkflows(tenantId: number): Promise<CaseWorkflow[]> {
    return this.workflows.find({
      where: { TenantRegistryId: tenantId, DeletedDate: IsNull() },
      order: { Id: 'ASC' },
    });
  }
  findWorkflow(tenantId: number, guid: string): Promise<CaseWorkflow | null> {
    return this.workflows.findOne({
      where: { Guid: guid, TenantRegistryId: tenantId, DeletedDate: IsNull() },
    });
  }
  findWorkflowByName(tenantId: number, name: string): Promise<CaseWorkflow | null> {
    return this.workflows.findOne({
      where: { Name: name, TenantRegistryId: tenantId, DeletedDate: IsNull() },
    });
  }
  findWorkflowsByIds(ids: number[]): Promise<CaseWorkflow[]> {
    return findInChunks(ids, (chunk) => this.workflows.find({ where: { Id: In(chunk) } }));
  }
  saveWorkflow(w: CaseWorkflow): Promise<CaseWorkflow> {
    return this.workflows.save(w);
  }

  // ---- statuses
  async listStatuses(workflowIds: number[]): Promise<CaseWorkflowStatus[]> {
    const found = await findInChunks(workflowIds, (chunk) =>
      this.statuses.find({ where: { CaseWorkflowId: In(chunk), DeletedDate: IsNull() } }),
    );
    return found.sort((a, b) => a.Id - b.Id);
  }
  async findStatus(workflowIds: number[], guid: string): Promise<CaseWorkflowStatus | null> {
    const [found] = await findInChunks(workflowIds, async (chunk) => {
      const status = await this.statuses.findOne({
        where: { Guid: guid, CaseWorkflowId: In(chunk), DeletedDate: IsNull() },
      });
      return status ? [status] : [];
    });
    return found ?? null;
  }
  findStatusesByIds(ids: number[]): Promise<CaseWorkflowStatus[]> {
    return findInChunks(ids, (chunk) => this.statuses.find({ where: { Id: In(chunk) } }));
  }
  /** A live (not deleted) status by id; the case creation pipeline reads it per activation. */
  findLiveStatusById(id: number): Promise<CaseWorkflowStatus | null> {
    const where: FindOptionsWhere<CaseWorkflowStatus> = { Id: id, DeletedDate: IsNull() };
    return this.statuses.findOne({ where });
  }
  saveStatus(s: CaseWorkflowStatus): Promise<CaseWorkflowStatus> {
    return this.statuses.save(s);
  }
}
