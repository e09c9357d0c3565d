import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type FindOptionsWhere, In, IsNull, Raw, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import {
  findInChunks,
  findPage,
  type Transaction,
  type TransactionBound,
  boundTo,
  type PageRequest,
  type RowPage,
  type VersionedRecord,
} from '@app/database';
import {
  CaseWorkflow,
  CaseWorkflowStatus,
  EntityAnalysisModel,
  EntityAnalysisModelActivationRule,
  EntityAnalysisModelRequestXPath,
} from '../entities';

/**
 * Writes what changed of a versioned record read earlier (`before`, changed into `after`): ONE statement,
 * `UPDATE … WHERE "Id" = :id AND "DeletedDate" IS NULL`, and with `version` `AND "Version" = :version` (If-Match),
 * in which TypeORM moves the version on by one. Only the columns that differ are written, so a write without
 * If-Match never puts back a stale copy of what it did not change. Answers the record as it now is, or
 * undefined when nothing was written (gone, or no longer at `version`).
 */
async function writeChanges<E extends VersionedRecord & { Id: number }>(
  repo: Repository<E>,
  before: E,
  after: E,
  version: number | undefined,
): Promise<E | undefined> {
  const changes: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(after))
    if (column !== 'Id' && column !== 'Version' && !sameValue(value, before[column as keyof E]))
      changes[column] = value;
  const where = {
    Id: before.Id,
    DeletedDate: IsNull(),
    ...(version === undefined ? {} : { Version: version }),
  };
  const result = await repo.update(where as FindOptionsWhere<E>, changes as QueryDeepPartialEntity<E>);
  if (!result.affected) return undefined;
  return (await repo.findOneBy({ Id: before.Id } as FindOptionsWhere<E>)) ?? undefined;
}

function sameValue(a: unknown, b: unknown): boolean {
  return a instanceof Date && b instanceof Date ? a.getTime() === b.getTime() : a === b;
}

/** The columns of a status that case creation needs. */
const LIVE_STATUS_COLUMNS = [
  'Id',
  'Guid',
  'Name',
  'Priority',
  'EnableNotification',
  'NotificationDestination',
  'NotificationSubject',
  'NotificationBody',
  'EnableHttpEndpoint',
  'HttpEndpointUrl',
  'HttpEndpointMethod',
] as const;

const LIVE_STATUS_SELECT = Object.fromEntries(LIVE_STATUS_COLUMNS.map((c) => [c, true])) as {
  [K in (typeof LIVE_STATUS_COLUMNS)[number]]: true;
};

/** What case creation needs of a status: its priority, and what to notify and call. */
export type LiveStatus = Pick<CaseWorkflowStatus, (typeof LIVE_STATUS_COLUMNS)[number]>;

/** Every query on the configuration records. Soft-deleted rows are invisible. */
@Injectable()
export class ConfigurationRepository implements TransactionBound {
  /** The transaction this repository's statements run in (boundTo); none: each statement on its own. */
  readonly tx?: Transaction;

  constructor(
    @InjectRepository(EntityAnalysisModel) private readonly models: Repository<EntityAnalysisModel>,
    @InjectRepository(EntityAnalysisModelRequestXPath)
    private readonly xpaths: Repository<EntityAnalysisModelRequestXPath>,
    @InjectRepository(EntityAnalysisModelActivationRule)
    private readonly rules: Repository<EntityAnalysisModelActivationRule>,
    @InjectRepository(CaseWorkflow) private readonly workflows: Repository<CaseWorkflow>,
    @InjectRepository(CaseWorkflowStatus) private readonly statuses: Repository<CaseWorkflowStatus>,
  ) {}

  /** This repository reading and writing in `tx` (a change with its audit row); none: itself. */
  in(tx: Transaction | undefined): ConfigurationRepository {
    return boundTo(this, tx);
  }

  // ---- models
  /** The live models of a tenant, a page of them when asked (null: all of them). */
  listModels(tenantId: number, page: PageRequest | null = null): Promise<RowPage<EntityAnalysisModel>> {
    return findPage(this.models, { TenantRegistryId: tenantId, DeletedDate: IsNull() }, page);
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
  /** Every model, deleted ones too (their archive is purged like any other), with its retention. */
  listModelRetentions(): Promise<Pick<EntityAnalysisModel, 'Id' | 'Guid' | 'ArchiveRetentionDays'>[]> {
    return this.models.find({
      select: { Id: true, Guid: true, ArchiveRetentionDays: true },
      order: { Id: 'ASC' },
    });
  }
  /** Including soft-deleted models: a guid is never reused. */
  async modelGuidExists(guid: string): Promise<boolean> {
    return (await this.models.count({ where: { Guid: guid } })) > 0;
  }
  saveModel(m: EntityAnalysisModel): Promise<EntityAnalysisModel> {
    return this.models.save(m);
  }
  /** What changed of a model read earlier (writeChanges). */
  writeModel(
    before: EntityAnalysisModel,
    after: EntityAnalysisModel,
    version?: number,
  ): Promise<EntityAnalysisModel | undefined> {
    return writeChanges(this.models, before, after, version);
  }

  // ---- request XPaths
  listXPaths(modelId: number): Promise<EntityAnalysisModelRequestXPath[]> {
    return this.xpaths.find({
      where: { EntityAnalysisModelId: modelId, DeletedDate: IsNull() },
      order: { Id: 'ASC' },
    });
  }
  /** A page of a model's live request XPaths (the catalog reads the whole list through listXPaths). */
  pageXPaths(modelId: number, page: PageRequest): Promise<RowPage<EntityAnalysisModelRequestXPath>> {
    return findPage(this.xpaths, { EntityAnalysisModelId: modelId, DeletedDate: IsNull() }, page);
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
  /** A page of a model's live activation rules (the catalog reads the whole list through listRules). */
  pageRules(modelId: number, page: PageRequest): Promise<RowPage<EntityAnalysisModelActivationRule>> {
    return findPage(this.rules, { EntityAnalysisModelId: modelId, DeletedDate: IsNull() }, page);
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
  /** A page of the live case workflows of a tenant. */
  pageWorkflows(tenantId: number, page: PageRequest): Promise<RowPage<CaseWorkflow>> {
    return findPage(this.workflows, { TenantRegistryId: tenantId, DeletedDate: IsNull() }, page);
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
  /** What changed of a case workflow read earlier (writeChanges). */
  writeWorkflow(
    before: CaseWorkflow,
    after: CaseWorkflow,
    version?: number,
  ): Promise<CaseWorkflow | undefined> {
    return writeChanges(this.workflows, before, after, version);
  }

  // ---- statuses
  /**
   * A page of the live statuses of one workflow (`workflowId`), or of every live workflow of the tenant (null).
   * The tenant's workflows are a sub-select, not an id list: one statement whatever their number, within
   * SQL Server's parameter limit, and the same keyset on the status's id either way.
   */
  pageStatuses(
    tenantId: number,
    workflowId: number | null,
    page: PageRequest,
  ): Promise<RowPage<CaseWorkflowStatus>> {
    const CaseWorkflowId =
      workflowId ??
      Raw(
        (column) =>
          `${column} IN (SELECT "Id" FROM "CaseWorkflow" WHERE "TenantRegistryId" = :statusTenantId AND "DeletedDate" IS NULL)`,
        { statusTenantId: tenantId },
      );
    return findPage(this.statuses, { CaseWorkflowId, DeletedDate: IsNull() }, page);
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
  /**
   * The live (not deleted) statuses of these ids, by id (a deleted or unknown id is absent). Case creation
   * reads them through its cache (LiveStatusCache), so only when a status is new to it or has changed.
   */
  async findLiveStatusesByIds(ids: readonly number[]): Promise<Map<number, LiveStatus>> {
    const rows = await findInChunks(ids, (chunk) =>
      this.statuses.find({ select: LIVE_STATUS_SELECT, where: { Id: In(chunk), DeletedDate: IsNull() } }),
    );
    return new Map(rows.map((r) => [r.Id, r]));
  }
  saveStatus(s: CaseWorkflowStatus): Promise<CaseWorkflowStatus> {
    return this.statuses.save(s);
  }
  /** What changed of a status read earlier (writeChanges). */
  writeStatus(
    before: CaseWorkflowStatus,
    after: CaseWorkflowStatus,
    version?: number,
  ): Promise<CaseWorkflowStatus | undefined> {
    return writeChanges(this.statuses, before, after, version);
  }
}
