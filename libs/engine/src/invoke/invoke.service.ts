import { HttpStatus, Inject, Injectable } from '@nestjs/common';
import { ENGINE_SETTINGS, type EngineSettings } from '@app/config';
import { Actor } from '@app/access';
import { Clock } from '@app/runtime';
import { instantOfTimeOrderedGuid, timeOrderedGuid } from '@app/input-rules';
import { ProblemException, Problems, ProblemType } from '@app/problems';
import { archiveRetentionMs } from '../archiver/archive-retention';
import { ArchiveItem, ArchiverService } from '../archiver/archiver.service';
import { ArchiveRepository } from '../archiver/archive.repository';
import { CaseActivation, CaseOutcome } from '../case-creation/case-creation.service';
import { CompiledModel, ModelCatalog } from '../model/model-catalog';
import { InvokeAdmission } from './invoke-admission';
import { PipelineTelemetry } from '../telemetry/pipeline-telemetry';
import { InvokeStage } from '../telemetry/stages';
import { convertField, FIELD_DATA_TYPE_NAMES, FieldValue } from '../model/field-types';
import { readJsonPath } from '../model/json-path';
import { evaluateRuleCondition } from '../model/rule-condition';

export interface TracePoint {
  message: InvokeStage;
  elapsedMicroseconds: number;
  sinceLastEntryMicroseconds: number;
}

export interface Activation {
  entityAnalysisModelActivationRuleGuid: string;
  name: string;
  caseWorkflowGuid: string | null;
  caseKey: string | null;
  caseKeyValue: string | null;
}

export interface InvokeResponse {
  entityAnalysisModelInstanceEntryGuid: string;
  entityAnalysisModelGuid: string;
  entryReference: string | null;
  referenceDate: string;
  fields: Record<string, FieldValue>;
  activations: Activation[];
  trace?: TracePoint[];
}

export interface ReprocessResponse extends InvokeResponse {
  caseOutcomes: CaseOutcome[];
}

/** The archived form of one invocation (BuildArchivePayload); reprocessing reads `request` back. */
export interface ArchivePayload {
  entityAnalysisModelInstanceEntryGuid: string;
  entityAnalysisModelGuid: string;
  entryReference: string | null;
  referenceDate: string;
  request: unknown;
  fields: Record<string, FieldValue>;
  activations: Activation[];
  reprocessedDate?: string;
}

/**
 * Times the stages: µs since start and since the previous point, from process.hrtime.bigint(). Every point
 * feeds the stage histogram and, over the model's threshold, a warning; the points themselves are kept only
 * when the caller asked for them (`?trace=true`).
 */
class Tracer {
  readonly points: TracePoint[] | undefined;
  private readonly start = process.hrtime.bigint();
  private last = this.start;

  constructor(
    private readonly model: CompiledModel,
    private readonly entryGuid: string,
    private readonly telemetry: PipelineTelemetry,
    private readonly clock: Clock,
    keep: boolean,
  ) {
    this.points = keep ? [] : undefined;
  }

  point(message: InvokeStage): void {
    const now = process.hrtime.bigint();
    const gap = now - this.last;
    this.last = now;
    const sinceLastEntryMicroseconds = Number(gap) / 1000;
    this.telemetry.invokeTracePoint(message, sinceLastEntryMicroseconds);
    const threshold = this.model.logsWarnThresholdNanoseconds;
    const slow = threshold !== null && gap > threshold;
    if (!slow && !this.points) return;
    const elapsedMicroseconds = Number(now - this.start) / 1000;
    this.points?.push({ message, elapsedMicroseconds, sinceLastEntryMicroseconds });
    if (slow) {
      // ONE call both enqueues the ModelInvokeWarning and counts service.engine.logs.warn.count.
      this.telemetry.modelInvokeWarning({
        entityAnalysisModelGuid: this.model.guid,
        entityAnalysisModelName: this.model.name,
        entityAnalysisModelInstanceEntryGuid: this.entryGuid,
        message,
        elapsedMicroseconds: Math.round(elapsedMicroseconds),
        sinceLastEntryMicroseconds: Math.round(sinceLastEntryMicroseconds),
        occurredDate: new Date(this.clock.now()),
      });
    }
  }
}

interface PipelineResult {
  response: InvokeResponse;
  item: ArchiveItem;
}

interface ParsedRequest {
  request: unknown;
  entryReference: string | null;
  referenceDate: Date;
}

/** The Parse stage: the body as JSON (parsed when it is text), its entry reference and its reference date. */
function parseRequest(model: CompiledModel, body: unknown, clock: Clock): ParsedRequest {
  let request: unknown = body;
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    try {
      request = JSON.parse(body.toString()) as unknown;
    } catch {
      throw Problems.validation('The request body is not valid JSON.');
    }
  }
  if (request === undefined) throw Problems.validation('The request body must be JSON (application/json).');
  const entryValue = model.entryPath ? readJsonPath(request, model.entryPath) : undefined;
  const entryReference =
    typeof entryValue === 'string' || typeof entryValue === 'number'
      ? String(entryValue).slice(0, 256)
      : null;
  const dateValue = model.referenceDatePath ? readJsonPath(request, model.referenceDatePath) : undefined;
  const parsedDate =
    typeof dateValue === 'string' || typeof dateValue === 'number' ? new Date(dateValue) : undefined;
  const referenceDate =
    parsedDate && !Number.isNaN(parsedDate.getTime()) ? parsedDate : new Date(clock.now());
  return { request, entryReference, referenceDate };
}

/** The ExtractFields stage: the model's fields read and converted; a 422 problem naming each one that fails. */
function extractFields(model: CompiledModel, request: unknown): Record<string, FieldValue> {
  const fields: Record<string, FieldValue> = Object.create(null) as Record<string, FieldValue>;
  const errors: { field: string; message: string }[] = [];
  for (const f of model.fields) {
    const raw = readJsonPath(request, f.path);
    if (raw === undefined) {
      if (f.required) errors.push({ field: f.name, message: `${f.name} is required` });
      continue;
    }
    const v = convertField(raw, f.type);
    if (v === undefined)
      errors.push({ field: f.name, message: `${f.name} must be a ${FIELD_DATA_TYPE_NAMES[f.type]}` });
    else fields[f.name] = v;
  }
  // Valid by the document (any JSON object) but not what this model reads: 422, each field named.
  if (errors.length) throw Problems.unprocessableFields('The request does not match the model.', errors);
  return fields;
}

/** The Activation stage: the rules whose condition holds, and the cases those with a workflow and a key raise. */
function activate(
  model: CompiledModel,
  fields: Record<string, FieldValue>,
  entryGuid: string,
): { activations: Activation[]; cases: CaseActivation[] } {
  const activations: Activation[] = [];
  const cases: CaseActivation[] = [];
  for (const rule of model.rules) {
    if (!evaluateRuleCondition(rule.condition, fields)) continue;
    const keyValue = rule.caseKeyFieldName ? fields[rule.caseKeyFieldName] : undefined;
    const caseKeyValue = keyValue === undefined || keyValue === null ? null : String(keyValue).slice(0, 512);
    activations.push({
      entityAnalysisModelActivationRuleGuid: rule.guid,
      name: rule.name,
      caseWorkflowGuid: rule.caseWorkflow?.guid ?? null,
      caseKey: rule.caseKeyFieldName,
      caseKeyValue,
    });
    if (
      rule.caseWorkflow &&
      rule.caseWorkflowStatusId !== null &&
      rule.caseKeyFieldName &&
      caseKeyValue !== null
    ) {
      cases.push({
        caseWorkflow: rule.caseWorkflow,
        caseWorkflowStatusId: rule.caseWorkflowStatusId,
        caseKey: rule.caseKeyFieldName,
        caseKeyValue,
        entityAnalysisModelGuid: model.guid,
        entityAnalysisModelInstanceEntryGuid: entryGuid,
        fields,
      });
    }
  }
  return { activations, cases };
}

/**
 * POST /api/Invoke/EntityAnalysisModel/{guid}: the invoke pipeline, run serially on the request
 * (spec: What the service does 1): Parse, ExtractFields, Activation, BuildResponse, BuildArchivePayload.
 */
@Injectable()
export class InvokeService {
  constructor(
    private readonly catalog: ModelCatalog,
    private readonly archiver: ArchiverService,
    private readonly admission: InvokeAdmission,
    private readonly archive: ArchiveRepository,
    private readonly telemetry: PipelineTelemetry,
    private readonly clock: Clock,
    @Inject(ENGINE_SETTINGS.token) private readonly settings: EngineSettings,
  ) {}

  private async model(actor: Actor, guid: string): Promise<CompiledModel> {
    const model = await this.catalog.get(guid);
    if (!model || !model.active || model.tenantId !== actor.tenantId) throw Problems.notFound('model');
    return model;
  }

  /** `body` is the parsed JSON, or its text (the Parse stage then parses it). */
  async invoke(
    actor: Actor,
    modelGuid: string,
    body: unknown,
    options: { trace?: boolean } = {},
  ): Promise<InvokeResponse> {
    const model = await this.model(actor, modelGuid);
    // From here to enqueue everything is synchronous: nothing can take the free slot in between, and a
    // full queue is answered before any side effect (no trace warning, no archive row, no case).
    // (Over HTTP a refusal is almost always made before the body is read: InvokeAdmission.atDoor.)
    this.admission.admit();
    const { response, item } = this.run(
      model,
      body,
      timeOrderedGuid(this.clock.now()),
      options.trace ?? false,
    );
    this.archiver.enqueue(item);
    return response;
  }

  /**
   * Re-runs an archived entry through the model: synchronous case creation and an in-place update of its
   * archive row (the entry guid stays the same).
   */
  async reprocess(
    actor: Actor,
    modelGuid: string,
    entryGuid: string,
    options: { trace?: boolean } = {},
  ): Promise<ReprocessResponse> {
    const model = await this.model(actor, modelGuid);
    if (this.archiver.isBuffered(model.guid, entryGuid)) await this.archiver.bulkCopy();
    const row = await this.archive.findByEntryGuid(model.id, entryGuid);
    if (!row) throw this.missingEntry(model, entryGuid);
    const archived = JSON.parse(row.Json) as Partial<ArchivePayload>;
    // An error row of a payload that could not be serialised keeps no request (ArchiverService.buildJson).
    if (archived.request === undefined)
      throw Problems.conflict(
        'This entry was archived without its request (archiving it failed); it cannot be reprocessed.',
      );
    const { response, item } = this.run(model, archived.request, entryGuid, options.trace ?? false);
    (item.payload as ArchivePayload).reprocessedDate = new Date(this.clock.now()).toISOString();
    const caseOutcomes = await this.archiver.reprocess(item, row.Id);
    return { ...response, caseOutcomes };
  }

  /**
   * The 404 of an entry that is not archived: "past retention" when the entry (its guid says when it was made)
   * is older than the model's retention, so it was purged (or will be); plainly not found otherwise.
   */
  private missingEntry(model: CompiledModel, entryGuid: string): ProblemException {
    const madeAt = instantOfTimeOrderedGuid(entryGuid);
    const retention = archiveRetentionMs(model.archiveRetentionDays, this.settings);
    if (madeAt === null || retention === null || madeAt >= this.clock.now() - retention)
      return Problems.notFound('archived entry');
    return new ProblemException(
      HttpStatus.NOT_FOUND,
      'Not Found',
      `The entry is past the archive's retention (${formatRetention(retention)}): it was purged and cannot be reprocessed.`,
      ProblemType.notFound,
    );
  }

  /** The five stages, synchronous. Throws a 400 problem for a body the model cannot read. */
  private run(model: CompiledModel, body: unknown, entryGuid: string, trace: boolean): PipelineResult {
    const tracer = new Tracer(model, entryGuid, this.telemetry, this.clock, trace);
    const { request, entryReference, referenceDate } = parseRequest(model, body, this.clock);
    tracer.point(InvokeStage.Parse);
    const fields = extractFields(model, request);
    tracer.point(InvokeStage.ExtractFields);
    const { activations, cases } = activate(model, fields, entryGuid);
    tracer.point(InvokeStage.Activation);

    // BuildResponse
    const response: InvokeResponse = {
      entityAnalysisModelInstanceEntryGuid: entryGuid,
      entityAnalysisModelGuid: model.guid,
      entryReference,
      referenceDate: referenceDate.toISOString(),
      // the extracted fields themselves (a copy of this dictionary-mode object cost ~3 µs an invocation);
      // nothing after this stage changes them
      fields,
      activations,
    };
    tracer.point(InvokeStage.BuildResponse);

    // BuildArchivePayload
    const payload: ArchivePayload = {
      entityAnalysisModelInstanceEntryGuid: entryGuid,
      entityAnalysisModelGuid: model.guid,
      entryReference,
      referenceDate: response.referenceDate,
      request,
      fields: response.fields,
      activations,
    };
    tracer.point(InvokeStage.BuildArchivePayload);

    if (tracer.points) response.trace = tracer.points;
    return {
      response,
      item: {
        modelId: model.id,
        modelGuid: model.guid,
        enableRdbmsArchive: model.enableRdbmsArchive,
        entryGuid,
        entryReference,
        referenceDate,
        payload,
        cases,
      },
    };
  }
}

/** A retention as people say it: whole days, else hours, minutes or seconds. */
function formatRetention(ms: number): string {
  for (const [unit, size] of [
    ['day', 86_400_000],
    ['hour', 3_600_000],
    ['minute', 60_000],
  ] as const)
    if (ms % size === 0) return `${ms / size} ${unit}${ms / size === 1 ? '' : 's'}`;
  return `${Math.round(ms / 1000)} seconds`;
}
