import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { FindOptionsWhere, In, IsNull, Repository } from 'typeorm';
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
    return ids.length ? this.workflows.find({ where: { Id: In(ids) } }) : Promise.resolve([]);
  }
  saveWorkflow(w: CaseWorkflow): Promise<CaseWorkflow> {
    return this.workflows.save(w);
  }

  // ---- statuses
  listStatuses(workflowIds: number[]): Promise<CaseWorkflowStatus[]> {
    if (!workflowIds.length) return Promise.resolve([]);
    return this.statuses.find({
      where: { CaseWorkflowId: In(workflowIds), DeletedDate: IsNull() },
      order: { Id: 'ASC' },
    });
  }
  findStatus(workflowIds: number[], guid: string): Promise<CaseWorkflowStatus | null> {
    if (!workflowIds.length) return Promise.resolve(null);
    return this.statuses.findOne({
      where: { Guid: guid, CaseWorkflowId: In(workflowIds), DeletedDate: IsNull() },
    });
  }
  findStatusesByIds(ids: number[]): Promise<CaseWorkflowStatus[]> {
    return ids.length ? this.statuses.find({ where: { Id: In(ids) } }) : Promise.resolve([]);
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
