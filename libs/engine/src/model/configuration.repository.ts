import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { type FindOptionsWhere, In, IsNull, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import {
  findInChunks,
  findPage,
  preparedRead,
  rawBoolean,
  scoped,
  type PageRequest,
  type PreparedRead,
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

/** The columns of a status that case creation reads per activation, in the order of LIVE_STATUS_SQL. */
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

/** What case creation needs of a status: its priority, and what to notify and call. */
export type LiveStatus = Pick<CaseWorkflowStatus, (typeof LIVE_STATUS_COLUMNS)[number]>;

const LIVE_STATUS_SQL = `SELECT ${LIVE_STATUS_COLUMNS.map((c) => `"${c}"`).join(', ')}
FROM "CaseWorkflowStatus" WHERE "Id" = :id AND "DeletedDate" IS NULL`;

/** A row of LIVE_STATUS_SQL as the driver gave it (booleans are 0/1 on SQLite). */
function liveStatusOf(row: unknown[]): LiveStatus {
  const [id, guid, name, priority, notify, destination, subject, body, call, url, method] = row;
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    Id: Number(id),
    Guid: guid as string,
    Name: name as string,
    Priority: Number(priority),
    EnableNotification: rawBoolean(notify),
    NotificationDestination: text(destination),
    NotificationSubject: text(subject),
    NotificationBody: text(body),
    EnableHttpEndpoint: rawBoolean(call),
    HttpEndpointUrl: text(url),
    HttpEndpointMethod: text(method) as LiveStatus['HttpEndpointMethod'],
  };
}

/** Every query on the configuration records. Soft-deleted rows are invisible. */
@Injectable()
export class ConfigurationRepository {
  private liveStatusRead?: PreparedRead;

  constructor(
    @InjectRepository(EntityAnalysisModel) private readonly modelTable: Repository<EntityAnalysisModel>,
    @InjectRepository(EntityAnalysisModelRequestXPath)
    private readonly xpathTable: Repository<EntityAnalysisModelRequestXPath>,
    @InjectRepository(EntityAnalysisModelActivationRule)
    private readonly ruleTable: Repository<EntityAnalysisModelActivationRule>,
    @InjectRepository(CaseWorkflow) private readonly workflowTable: Repository<CaseWorkflow>,
    @InjectRepository(CaseWorkflowStatus) private readonly statusTable: Repository<CaseWorkflowStatus>,
  ) {}

  // Each table as the running transaction sees it (inTransaction: a change with its audit row), else as is.
  private get models() {
    return scoped(this.modelTable);
  }
  private get xpaths() {
    return scoped(this.xpathTable);
  }
  private get rules() {
    return scoped(this.ruleTable);
  }
  private get workflows() {
    return scoped(this.workflowTable);
  }
  private get statuses() {
    return scoped(this.statusTable);
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
  /** What changed of a case workflow read earlier (writeChanges). */
  writeWorkflow(
    before: CaseWorkflow,
    after: CaseWorkflow,
    version?: number,
  ): Promise<CaseWorkflow | undefined> {
    return writeChanges(this.workflows, before, after, version);
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
  /**
   * A live (not deleted) status by id. The case creation pipeline reads it per activation, so a prepared
   * statement (preparedRead) rather than the ORM's query building, which cost more than the read itself.
   */
  async findLiveStatusById(id: number): Promise<LiveStatus | null> {
    this.liveStatusRead ??= preparedRead(
      this.statusTable.manager.connection,
      'live-status',
      LIVE_STATUS_SQL,
      LIVE_STATUS_COLUMNS,
    );
    const [row] = await this.liveStatusRead({ id });
    return row ? liveStatusOf(row) : null;
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
