import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AdminEvents } from '@app/audit';
import { Actor } from '@app/access';
import { Clock } from '@app/runtime';
import { type IfMatch, type Page, pageOf, versionedWrite } from '@app/http-edge';
import { Problems } from '@app/problems';
import type { PageRequest } from '@app/database';
import {
  ActivationRuleDto,
  CreateActivationRuleDto,
  CreateModelDto,
  CreateRequestXPathDto,
  DATA_TYPES,
  DataTypeName,
  ModelDto,
  RequestXPathDto,
  UpdateActivationRuleDto,
  UpdateModelDto,
  UpdateRequestXPathDto,
} from '../dto/configuration.dto';
import {
  EntityAnalysisModel,
  EntityAnalysisModelActivationRule,
  EntityAnalysisModelRequestXPath,
  FieldDataType,
} from '../entities';
import { parseRuleCondition } from '../model/rule-condition';
import { ConfigurationRepository } from '../model/configuration.repository';
import { ModelCatalog } from '../model/model-catalog';

const TYPE_BY_NAME: Readonly<Record<DataTypeName, FieldDataType>> = {
  String: FieldDataType.String,
  Integer: FieldDataType.Integer,
  Float: FieldDataType.Float,
  Boolean: FieldDataType.Boolean,
  DateTime: FieldDataType.DateTime,
};

export function auditFields(actor: Actor | string, now: Date) {
  return {
    CreatedDate: now,
    CreatedUser: typeof actor === 'string' ? actor : actor.userName,
    UpdatedDate: null,
    UpdatedUser: null,
    DeletedDate: null,
    DeletedUser: null,
  };
}

function toModelDto(m: EntityAnalysisModel): ModelDto {
  return {
    guid: m.Guid,
    name: m.Name,
    active: m.Active,
    logsWarnThresholdMilliseconds: m.LogsWarnThresholdMilliseconds,
    enableRdbmsArchive: m.EnableRdbmsArchive,
    entryXPath: m.EntryXPath,
    referenceDateXPath: m.ReferenceDateXPath,
    archiveRetentionDays: m.ArchiveRetentionDays,
    createdDate: m.CreatedDate.toISOString(),
    updatedDate: m.UpdatedDate ? m.UpdatedDate.toISOString() : null,
    version: m.Version,
  };
}

function toXPathDto(x: EntityAnalysisModelRequestXPath): RequestXPathDto {
  return {
    guid: x.Guid,
    name: x.Name,
    xPath: x.XPath,
    dataType: DATA_TYPES[x.DataTypeId - 1],
    required: x.Required,
  };
}

/**
 * EntityAnalysisModel and its sub-records (request XPaths, activation rules). Every record belongs to the
 * caller's tenant; a record of another tenant is answered as not found.
 */
@Injectable()
export class ModelService {
  constructor(
    private readonly repo: ConfigurationRepository,
    private readonly catalog: ModelCatalog,
    private readonly clock: Clock,
    private readonly events: AdminEvents,
  ) {}

  private now(): Date {
    return new Date(this.clock.now());
  }

  private async model(actor: Actor, guid: string): Promise<EntityAnalysisModel> {
    const m = await this.repo.findModel(actor.tenantId, guid);
    if (!m) throw Problems.notFound('model');
    return m;
  }

  private touched(actor: Actor, record: { UpdatedDate: Date | null; UpdatedUser: string | null }): void {
    record.UpdatedDate = this.now();
    record.UpdatedUser = actor.userName;
  }

  // ---- models
  /** The tenant's models, a page of them when asked (null: the whole list). */
  async list(actor: Actor, page: PageRequest | null = null): Promise<Page<ModelDto>> {
    return pageOf(await this.repo.listModels(actor.tenantId, page), (models) => models.map(toModelDto));
  }
  async get(actor: Actor, guid: string): Promise<ModelDto> {
    return toModelDto(await this.model(actor, guid));
  }
  async create(actor: Actor, dto: CreateModelDto, guid: string = randomUUID()): Promise<ModelDto> {
    const m = await this.catalog.changed(
      this.events.recordChange(actor, null, null, (tx) =>
        this.repo.in(tx).saveModel(
          Object.assign(new EntityAnalysisModel(), {
            Guid: guid,
            TenantRegistryId: actor.tenantId,
            Name: dto.name.trim(),
            Active: dto.active ?? true,
            LogsWarnThresholdMilliseconds: dto.logsWarnThresholdMilliseconds ?? null,
            EnableRdbmsArchive: dto.enableRdbmsArchive ?? true,
            EntryXPath: dto.entryXPath ?? null,
            ReferenceDateXPath: dto.referenceDateXPath ?? null,
            ArchiveRetentionDays: dto.archiveRetentionDays ?? null,
            ...auditFields(actor, this.now()),
          }),
        ),
      ),
    );
    return toModelDto(m);
  }
  /** Writes what the request changes; with If-Match only to the version named (412 otherwise: versionedWrite). */
  async update(actor: Actor, guid: string, dto: UpdateModelDto, ifMatch?: IfMatch): Promise<ModelDto> {
    const written = await versionedWrite(
      ifMatch,
      () => this.model(actor, guid),
      (before, version) => {
        const m = { ...before };
        if (dto.name !== undefined) m.Name = dto.name.trim();
        if (dto.active !== undefined) m.Active = dto.active;
        if (dto.logsWarnThresholdMilliseconds !== undefined)
          m.LogsWarnThresholdMilliseconds = dto.logsWarnThresholdMilliseconds;
        if (dto.enableRdbmsArchive !== undefined) m.EnableRdbmsArchive = dto.enableRdbmsArchive;
        if (dto.entryXPath !== undefined) m.EntryXPath = dto.entryXPath;
        if (dto.referenceDateXPath !== undefined) m.ReferenceDateXPath = dto.referenceDateXPath;
        if (dto.archiveRetentionDays !== undefined) m.ArchiveRetentionDays = dto.archiveRetentionDays;
        this.touched(actor, m);
        return this.catalog.changed(
          this.events.recordChange(actor, before, m, (tx) => this.repo.in(tx).writeModel(before, m, version)),
        );
      },
    );
    return toModelDto(written);
  }
  async delete(actor: Actor, guid: string, ifMatch?: IfMatch): Promise<void> {
    await versionedWrite(
      ifMatch,
      () => this.model(actor, guid),
      (before, version) => {
        const m = { ...before, DeletedDate: this.now(), DeletedUser: actor.userName };
        this.touched(actor, m);
        return this.catalog.changed(
          this.events.recordChange(actor, before, m, (tx) => this.repo.in(tx).writeModel(before, m, version)),
        );
      },
    );
  }

  // ---- request XPaths
  /** A page of a model's request XPaths. */
  async listXPaths(actor: Actor, modelGuid: string, page: PageRequest): Promise<Page<RequestXPathDto>> {
    const m = await this.model(actor, modelGuid);
    return pageOf(await this.repo.pageXPaths(m.Id, page), (xpaths) => xpaths.map(toXPathDto));
  }
  async getXPath(actor: Actor, modelGuid: string, guid: string): Promise<RequestXPathDto> {
    const m = await this.model(actor, modelGuid);
    const x = await this.repo.findXPath(m.Id, guid);
    if (!x) throw Problems.notFound('request XPath');
    return toXPathDto(x);
  }
  async createXPath(actor: Actor, modelGuid: string, dto: CreateRequestXPathDto): Promise<RequestXPathDto> {
    const m = await this.model(actor, modelGuid);
    if ((await this.repo.listXPaths(m.Id)).some((x) => x.Name === dto.name))
      throw Problems.conflict(`The model already has a field named ${dto.name}.`);
    const x = await this.catalog.changed(
      this.events.recordChange(actor, null, null, (tx) =>
        this.repo.in(tx).saveXPath(
          Object.assign(new EntityAnalysisModelRequestXPath(), {
            Guid: randomUUID(),
            EntityAnalysisModelId: m.Id,
            Name: dto.name,
            XPath: dto.xPath.trim(),
            DataTypeId: TYPE_BY_NAME[dto.dataType],
            Required: dto.required ?? false,
            ...auditFields(actor, this.now()),
          }),
        ),
      ),
    );
    return toXPathDto(x);
  }
  async updateXPath(
    actor: Actor,
    modelGuid: string,
    guid: string,
    dto: UpdateRequestXPathDto,
  ): Promise<RequestXPathDto> {
    const m = await this.model(actor, modelGuid);
    const x = await this.repo.findXPath(m.Id, guid);
    if (!x) throw Problems.notFound('request XPath');
    const before = { ...x };
    if (dto.name !== undefined && dto.name !== x.Name) {
      if ((await this.repo.listXPaths(m.Id)).some((o) => o.Name === dto.name))
        throw Problems.conflict(`The model already has a field named ${dto.name}.`);
      x.Name = dto.name;
    }
    if (dto.xPath !== undefined) x.XPath = dto.xPath.trim();
    if (dto.dataType !== undefined) x.DataTypeId = TYPE_BY_NAME[dto.dataType];
    if (dto.required !== undefined) x.Required = dto.required;
    this.touched(actor, x);
    return toXPathDto(
      await this.catalog.changed(
        this.events.recordChange(actor, before, x, (tx) => this.repo.in(tx).saveXPath(x)),
      ),
    );
  }
  async deleteXPath(actor: Actor, modelGuid: string, guid: string): Promise<void> {
    const m = await this.model(actor, modelGuid);
    const x = await this.repo.findXPath(m.Id, guid);
    if (!x) throw Problems.notFound('request XPath');
    const before = { ...x };
    x.DeletedDate = this.now();
    x.DeletedUser = actor.userName;
    this.touched(actor, x);
    await this.catalog.changed(
      this.events.recordChange(actor, before, x, (tx) => this.repo.in(tx).saveXPath(x)),
    );
  }

  // ---- activation rules
  private async ruleDto(r: EntityAnalysisModelActivationRule): Promise<ActivationRuleDto> {
    return (await this.ruleDtos([r]))[0];
  }

  /** Rules as answered, their workflows' and statuses' guids read once for all of them (a page holds 1 000). */
  private async ruleDtos(rules: EntityAnalysisModelActivationRule[]): Promise<ActivationRuleDto[]> {
    const idsOf = (pick: (r: EntityAnalysisModelActivationRule) => number | null) =>
      rules.map(pick).filter((id): id is number => !!id);
    const guids = (rows: { Id: number; Guid: string }[]) => new Map(rows.map((row) => [row.Id, row.Guid]));
    const workflows = guids(await this.repo.findWorkflowsByIds(idsOf((r) => r.CaseWorkflowId)));
    const statuses = guids(await this.repo.findStatusesByIds(idsOf((r) => r.CaseWorkflowStatusId)));
    const guidOf = (byId: Map<number, string>, id: number | null) => (id ? byId.get(id) : undefined) ?? null;
    return rules.map((r) => ({
      guid: r.Guid,
      name: r.Name,
      condition: JSON.parse(r.ConditionJson) as unknown,
      caseWorkflowGuid: guidOf(workflows, r.CaseWorkflowId),
      caseWorkflowStatusGuid: guidOf(statuses, r.CaseWorkflowStatusId),
      caseKeyFieldName: r.CaseKeyFieldName,
      active: r.Active,
    }));
  }

  /** Resolves the workflow and status guids in the caller's tenant; the status must belong to the workflow. */
  private async resolveCaseTarget(
    actor: Actor,
    workflowGuid: string | null | undefined,
    statusGuid: string | null | undefined,
  ): Promise<{ workflowId: number | null; statusId: number | null }> {
    if (!workflowGuid && !statusGuid) return { workflowId: null, statusId: null };
    if (!workflowGuid || !statusGuid)
      throw Problems.unprocessable(
        workflowGuid ? 'caseWorkflowStatusGuid' : 'caseWorkflowGuid',
        'caseWorkflowGuid and caseWorkflowStatusGuid go together.',
      );
    const wf = await this.repo.findWorkflow(actor.tenantId, workflowGuid);
    if (!wf) throw Problems.unprocessable('caseWorkflowGuid', 'No such case workflow in your tenant.');
    const st = await this.repo.findStatus([wf.Id], statusGuid);
    if (!st) throw Problems.unprocessable('caseWorkflowStatusGuid', 'No such status in that case workflow.');
    return { workflowId: wf.Id, statusId: st.Id };
  }

  private conditionText(condition: unknown): string {
    const text = JSON.stringify(condition);
    if (text === undefined || text.length > 65_536)
      throw Problems.unprocessable('condition', 'condition must be JSON of at most 64 KiB');
    const parsed = parseRuleCondition(text);
    if (typeof parsed === 'string') throw Problems.unprocessable('condition', parsed);
    return text;
  }

  /** A page of a model's activation rules. */
  async listRules(actor: Actor, modelGuid: string, page: PageRequest): Promise<Page<ActivationRuleDto>> {
    const m = await this.model(actor, modelGuid);
    return pageOf(await this.repo.pageRules(m.Id, page), (rules) => this.ruleDtos(rules));
  }
  async getRule(actor: Actor, modelGuid: string, guid: string): Promise<ActivationRuleDto> {
    const m = await this.model(actor, modelGuid);
    const r = await this.repo.findRule(m.Id, guid);
    if (!r) throw Problems.notFound('activation rule');
    return this.ruleDto(r);
  }
  async createRule(
    actor: Actor,
    modelGuid: string,
    dto: CreateActivationRuleDto,
  ): Promise<ActivationRuleDto> {
    const m = await this.model(actor, modelGuid);
    const ConditionJson = this.conditionText(dto.condition);
    const target = await this.resolveCaseTarget(actor, dto.caseWorkflowGuid, dto.caseWorkflowStatusGuid);
    if (target.workflowId !== null && !dto.caseKeyFieldName)
      throw Problems.unprocessable('caseKeyFieldName', 'A rule that raises a case needs caseKeyFieldName.');
    const r = await this.catalog.changed(
      this.events.recordChange(actor, null, null, (tx) =>
        this.repo.in(tx).saveRule(
          Object.assign(new EntityAnalysisModelActivationRule(), {
            Guid: randomUUID(),
            EntityAnalysisModelId: m.Id,
            Name: dto.name.trim(),
            ConditionJson,
            CaseWorkflowId: target.workflowId,
            CaseWorkflowStatusId: target.statusId,
            CaseKeyFieldName: dto.caseKeyFieldName ?? null,
            Active: dto.active ?? true,
            ...auditFields(actor, this.now()),
          }),
        ),
      ),
    );
    return this.ruleDto(r);
  }
  async updateRule(
    actor: Actor,
    modelGuid: string,
    guid: string,
    dto: UpdateActivationRuleDto,
  ): Promise<ActivationRuleDto> {
    const m = await this.model(actor, modelGuid);
    const r = await this.repo.findRule(m.Id, guid);
    if (!r) throw Problems.notFound('activation rule');
    const before = { ...r };
    if (dto.name !== undefined) r.Name = dto.name.trim();
    if (dto.condition !== undefined) r.ConditionJson = this.conditionText(dto.condition);
    if (dto.caseWorkflowGuid !== undefined || dto.caseWorkflowStatusGuid !== undefined) {
      const target = await this.resolveCaseTarget(actor, dto.caseWorkflowGuid, dto.caseWorkflowStatusGuid);
      r.CaseWorkflowId = target.workflowId;
      r.CaseWorkflowStatusId = target.statusId;
    }
    if (dto.caseKeyFieldName !== undefined) r.CaseKeyFieldName = dto.caseKeyFieldName;
    if (dto.active !== undefined) r.Active = dto.active;
    if (r.CaseWorkflowId !== null && !r.CaseKeyFieldName)
      throw Problems.unprocessable('caseKeyFieldName', 'A rule that raises a case needs caseKeyFieldName.');
    this.touched(actor, r);
    return this.ruleDto(
      await this.catalog.changed(
        this.events.recordChange(actor, before, r, (tx) => this.repo.in(tx).saveRule(r)),
      ),
    );
  }
  async deleteRule(actor: Actor, modelGuid: string, guid: string): Promise<void> {
    const m = await this.model(actor, modelGuid);
    const r = await this.repo.findRule(m.Id, guid);
    if (!r) throw Problems.notFound('activation rule');
    const before = { ...r };
    r.DeletedDate = this.now();
    r.DeletedUser = actor.userName;
    this.touched(actor, r);
    await this.catalog.changed(
      this.events.recordChange(actor, before, r, (tx) => this.repo.in(tx).saveRule(r)),
    );
  }
}
