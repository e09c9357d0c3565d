import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AdminEvents } from '@app/audit';
import { Actor } from '@app/access';
import { Clock } from '@app/runtime';
import { type IfMatch, type Page, pageOf, versionedWrite } from '@app/http-edge';
import type { PageRequest } from '@app/database';
import { Problems } from '@app/problems';
import {
  CaseWorkflowDto,
  CaseWorkflowStatusDto,
  CreateCaseWorkflowDto,
  CreateCaseWorkflowStatusDto,
  UpdateCaseWorkflowDto,
  UpdateCaseWorkflowStatusDto,
} from '../dto/configuration.dto';
import { CaseWorkflow, CaseWorkflowStatus } from '../entities';
import { ConfigurationRepository } from '../model/configuration.repository';
import { ModelCatalog } from '../model/model-catalog';
import { auditFields } from './model.service';

function toWorkflowDto(w: CaseWorkflow): CaseWorkflowDto {
  return {
    guid: w.Guid,
    name: w.Name,
    active: w.Active,
    createdDate: w.CreatedDate.toISOString(),
    version: w.Version,
  };
}

function toStatusDto(s: CaseWorkflowStatus, workflowGuid: string): CaseWorkflowStatusDto {
  return {
    guid: s.Guid,
    caseWorkflowGuid: workflowGuid,
    name: s.Name,
    priority: s.Priority,
    enableNotification: s.EnableNotification,
    notificationDestination: s.NotificationDestination,
    notificationSubject: s.NotificationSubject,
    notificationBody: s.NotificationBody,
    enableHttpEndpoint: s.EnableHttpEndpoint,
    httpEndpointUrl: s.HttpEndpointUrl,
    httpEndpointMethod: s.HttpEndpointMethod,
    version: s.Version,
  };
}

/** CaseWorkflow and CaseWorkflowStatus, in the caller's tenant. */
@Injectable()
export class WorkflowService {
  constructor(
    private readonly repo: ConfigurationRepository,
    private readonly catalog: ModelCatalog,
    private readonly clock: Clock,
    private readonly events: AdminEvents,
  ) {}

  private now(): Date {
    return new Date(this.clock.now());
  }

  private async workflow(actor: Actor, guid: string): Promise<CaseWorkflow> {
    const w = await this.repo.findWorkflow(actor.tenantId, guid);
    if (!w) throw Problems.notFound('case workflow');
    return w;
  }

  /** A page of the tenant's case workflows. */
  async list(actor: Actor, page: PageRequest): Promise<Page<CaseWorkflowDto>> {
    return pageOf(await this.repo.pageWorkflows(actor.tenantId, page), (ws) => ws.map(toWorkflowDto));
  }
  async get(actor: Actor, guid: string): Promise<CaseWorkflowDto> {
    return toWorkflowDto(await this.workflow(actor, guid));
  }
  async create(actor: Actor, dto: CreateCaseWorkflowDto): Promise<CaseWorkflowDto> {
    const w = await this.events.recordChange(actor, null, null, (tx) =>
      this.repo.in(tx).saveWorkflow(
        Object.assign(new CaseWorkflow(), {
          Guid: randomUUID(),
          TenantRegistryId: actor.tenantId,
          Name: dto.name.trim(),
          Active: dto.active ?? true,
          ...auditFields(actor, this.now()),
        }),
      ),
    );
    return toWorkflowDto(w);
  }
  /** Writes what the request changes; with If-Match only to the version named (412 otherwise: versionedWrite). */
  async update(
    actor: Actor,
    guid: string,
    dto: UpdateCaseWorkflowDto,
    ifMatch?: IfMatch,
  ): Promise<CaseWorkflowDto> {
    const written = await versionedWrite(
      ifMatch,
      () => this.workflow(actor, guid),
      (before, version) => {
        const w = { ...before, UpdatedDate: this.now(), UpdatedUser: actor.userName };
        if (dto.name !== undefined) w.Name = dto.name.trim();
        if (dto.active !== undefined) w.Active = dto.active;
        return this.catalog.changed(
          this.events.recordChange(actor, before, w, (tx) =>
            this.repo.in(tx).writeWorkflow(before, w, version),
          ),
        );
      },
    );
    return toWorkflowDto(written);
  }
  async delete(actor: Actor, guid: string, ifMatch?: IfMatch): Promise<void> {
    await versionedWrite(
      ifMatch,
      () => this.workflow(actor, guid),
      (before, version) => {
        const w = { ...before, DeletedDate: this.now(), DeletedUser: actor.userName };
        return this.catalog.changed(
          this.events.recordChange(actor, before, w, (tx) =>
            this.repo.in(tx).writeWorkflow(before, w, version),
          ),
        );
      },
    );
  }

  // ---- statuses
  /** A page of the statuses of one workflow of the tenant (404 when it names none), or of all its workflows. */
  async listStatuses(
    actor: Actor,
    workflowGuid: string | undefined,
    page: PageRequest,
  ): Promise<Page<CaseWorkflowStatusDto>> {
    const one = workflowGuid ? await this.workflow(actor, workflowGuid) : null;
    const rows = await this.repo.pageStatuses(actor.tenantId, one?.Id ?? null, page);
    return pageOf(rows, async (statuses) => {
      // the guids of this page's workflows only: a page names at most `limit` of them
      const workflows = one
        ? [one]
        : await this.repo.findWorkflowsByIds([...new Set(statuses.map((s) => s.CaseWorkflowId))]);
      const guids = new Map(workflows.map((w) => [w.Id, w.Guid]));
      return statuses.map((s) => toStatusDto(s, guids.get(s.CaseWorkflowId) ?? ''));
    });
  }
  /** The status (with its version, for versionedWrite) and its workflow's guid. */
  private async status(
    actor: Actor,
    guid: string,
  ): Promise<{ status: CaseWorkflowStatus; workflowGuid: string; Version: number }> {
    const workflows = await this.repo.listWorkflows(actor.tenantId);
    const status = await this.repo.findStatus(
      workflows.map((w) => w.Id),
      guid,
    );
    if (!status) throw Problems.notFound('case workflow status');
    const workflowGuid = workflows.find((w) => w.Id === status.CaseWorkflowId)?.Guid ?? '';
    return { status, workflowGuid, Version: status.Version };
  }
  async getStatus(actor: Actor, guid: string): Promise<CaseWorkflowStatusDto> {
    const { status, workflowGuid } = await this.status(actor, guid);
    return toStatusDto(status, workflowGuid);
  }
  async createStatus(actor: Actor, dto: CreateCaseWorkflowStatusDto): Promise<CaseWorkflowStatusDto> {
    const w = await this.repo.findWorkflow(actor.tenantId, dto.caseWorkflowGuid);
    if (!w) throw Problems.unprocessable('caseWorkflowGuid', 'No such case workflow in your tenant.');
    const s = Object.assign(new CaseWorkflowStatus(), {
      Guid: randomUUID(),
      CaseWorkflowId: w.Id,
      Name: dto.name.trim(),
      Priority: dto.priority,
      EnableNotification: false,
      NotificationDestination: null,
      NotificationSubject: null,
      NotificationBody: null,
      EnableHttpEndpoint: false,
      HttpEndpointUrl: null,
      HttpEndpointMethod: null,
      ...auditFields(actor, this.now()),
    });
    this.apply(s, dto);
    return toStatusDto(
      await this.events.recordChange(actor, null, null, (tx) => this.repo.in(tx).saveStatus(s)),
      w.Guid,
    );
  }
  /** Writes what the request changes; with If-Match only to the version named (412 otherwise: versionedWrite). */
  async updateStatus(
    actor: Actor,
    guid: string,
    dto: UpdateCaseWorkflowStatusDto,
    ifMatch?: IfMatch,
  ): Promise<CaseWorkflowStatusDto> {
    const written = await versionedWrite(
      ifMatch,
      () => this.status(actor, guid),
      async ({ status: before, workflowGuid }, version) => {
        const s = { ...before, UpdatedDate: this.now(), UpdatedUser: actor.userName };
        this.apply(s, dto);
        const status = await this.catalog.changed(
          this.events.recordChange(actor, before, s, (tx) =>
            this.repo.in(tx).writeStatus(before, s, version),
          ),
        );
        return status && toStatusDto(status, workflowGuid);
      },
    );
    return written;
  }
  async deleteStatus(actor: Actor, guid: string, ifMatch?: IfMatch): Promise<void> {
    await versionedWrite(
      ifMatch,
      () => this.status(actor, guid),
      ({ status: before }, version) => {
        const s = { ...before, DeletedDate: this.now(), DeletedUser: actor.userName };
        return this.catalog.changed(
          this.events.recordChange(actor, before, s, (tx) =>
            this.repo.in(tx).writeStatus(before, s, version),
          ),
        );
      },
    );
  }

  private apply(s: CaseWorkflowStatus, dto: UpdateCaseWorkflowStatusDto): void {
    if (dto.name !== undefined) s.Name = dto.name.trim();
    if (dto.priority !== undefined) s.Priority = dto.priority;
    if (dto.enableNotification !== undefined) s.EnableNotification = dto.enableNotification;
    if (dto.notificationDestination !== undefined) s.NotificationDestination = dto.notificationDestination;
    if (dto.notificationSubject !== undefined) s.NotificationSubject = dto.notificationSubject;
    if (dto.notificationBody !== undefined) s.NotificationBody = dto.notificationBody;
    if (dto.enableHttpEndpoint !== undefined) s.EnableHttpEndpoint = dto.enableHttpEndpoint;
    if (dto.httpEndpointUrl !== undefined) s.HttpEndpointUrl = dto.httpEndpointUrl;
    if (dto.httpEndpointMethod !== undefined) s.HttpEndpointMethod = dto.httpEndpointMethod;
    if (s.EnableNotification && !s.NotificationDestination)
      throw Problems.unprocessable(
        'notificationDestination',
        'A status with notifications enabled needs notificationDestination.',
      );
    if (s.EnableHttpEndpoint) {
      if (!s.HttpEndpointUrl)
        throw Problems.unprocessable(
          'httpEndpointUrl',
          'A status with the HTTP endpoint enabled needs httpEndpointUrl.',
        );
      s.HttpEndpointMethod ??= 'POST';
    }
  }
}
