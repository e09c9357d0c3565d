import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { ENGINE_SETTINGS, type EngineSettings } from '@app/config';
import { Clock, inSlices } from '@app/runtime';
import { isDatabaseUnavailable } from '@app/problems';
import { timeOrderedGuid } from '@app/input-rules';
import type { LiveStatus } from '../model/configuration.repository';
import { StageRollupService } from '../rollups/stage-rollup.service';
import { PipelineTelemetry } from '../telemetry/pipeline-telemetry';
import { CaseCreationStage } from '../telemetry/stages';
import { SerialQueue } from '../serial-queue/serial-queue';
import { CaseNotifier } from './case-notifier';
import { CaseIdentity, caseIdentityKey, CaseRepository, CaseUpsert } from './case.repository';
import { LiveStatusCache } from './live-status-cache';
import { fillTemplate, singleLine } from './templates';

/** An activation that raises a case. */
export interface CaseActivation {
  caseWorkflow: { id: number; guid: string; name: string };
  caseWorkflowStatusId: number;
  caseKey: string;
  caseKeyValue: string;
  entityAnalysisModelGuid: string;
  entityAnalysisModelInstanceEntryGuid: string;
  fields: Readonly<Record<string, unknown>>;
}

export type CaseOutcome = 'inserted' | 'upgraded' | 'unchanged' | 'skipped' | 'failed';

interface Job {
  activation: CaseActivation;
  done?: (outcome: CaseOutcome) => void;
}

/** An item's decision within its batch: its outcome, and the status it named (null: deleted). */
interface Decided {
  outcome: CaseOutcome;
  status: LiveStatus | null;
}

/** One case identity of a batch: its open case (if any), and the row the batch wants written. */
interface Slot {
  identity: CaseIdentity;
  priority: number | null;
  row?: CaseUpsert;
  /** The batch's items that inserted or raised this case, in arrival order. */
  changed: number[];
}

/** Case keys whose notifications and callbacks run at once (each key's own in arrival order). */
const FOLLOW_UP_CONCURRENCY = 16;

const identityOf = (a: CaseActivation): CaseIdentity => ({
  CaseWorkflowId: a.caseWorkflow.id,
  CaseKey: a.caseKey,
  CaseKeyValue: a.caseKeyValue,
});

/**
 * Case creation: ONE global queue for every model, consumed by ONE serial consumer in batches of at most
 * CaseCreationBatchSize, so each case key's activations are decided in the order they arrived, within a
 * batch and across batches (docs/decisions.md, "Case creation in batches"). A batch costs one look-up of its
 * open cases (stage 1), the statuses from memory and one multi-row upsert (stage 2); each of the two is one
 * run of its stage, recorded once with the batch's size (docs/engine.md, "What a stage run is"). The queue
 * never makes a producer wait: the Archiver hands activations over and goes on
 * (case lag); Invoke refuses new invocations while the queue holds CaseCreationQueueCapacity (hasCapacity).
 * Nothing accepted is dropped.
 */
@Injectable()
export class CaseCreationService implements OnModuleDestroy {
  private readonly logger = new Logger('CaseCreation');
  private readonly queue = new SerialQueue<Job>({
    batchSize: () => this.settings.CaseCreationBatchSize,
    handle: (jobs) => this.processBatch(jobs),
    failed: (err, jobs) => {
      for (const job of jobs) job.done?.('failed');
      this.logger.error({ err, activations: jobs.length }, 'Case creation failed');
    },
  });

  constructor(
    private readonly cases: CaseRepository,
    private readonly statuses: LiveStatusCache,
    private readonly notifier: CaseNotifier,
    private readonly rollups: StageRollupService,
    private readonly telemetry: PipelineTelemetry,
    private readonly clock: Clock,
    @Inject(ENGINE_SETTINGS.token) private readonly settings: EngineSettings,
  ) {}

  onModuleDestroy(): void {
    this.notifier.close();
  }

  get depth(): number {
    return this.queue.depth;
  }

  /** False while the case backlog holds CaseCreationQueueCapacity activations: Invoke answers 503. */
  hasCapacity(): boolean {
    return this.depth < this.settings.CaseCreationQueueCapacity;
  }

  /** Queues an activation, at once and whatever the depth (an accepted invocation's case is never dropped). */
  enqueue(activation: CaseActivation): void {
    this.queue.push({ activation });
  }

  /** Reprocessing: through the same queue (so still in order), resolved when the case is done. */
  run(activation: CaseActivation): Promise<CaseOutcome> {
    return new Promise<CaseOutcome>((done) => this.queue.push({ activation, done }));
  }

  /** Resolves when the queue is empty and nothing is being processed. */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  /**
   * A batch through the four stages. A batch the database refuses (not one it could not answer) is taken
   * again item by item, so one bad activation cannot fail the others; a failure never crashes the process and
   * never passes silently: logged and counted.
   */
  private async processBatch(jobs: Job[]): Promise<void> {
    const batch = jobs.map((j) => j.activation);
    const keys = batch.map((a) => caseIdentityKey(identityOf(a)));
    let decided: Decided[];
    try {
      decided = await this.decide(batch, keys);
    } catch (err) {
      if (jobs.length > 1 && !isDatabaseUnavailable(err)) {
        for (const job of jobs) await this.processBatch([job]);
        return;
      }
      for (const job of jobs) {
        this.telemetry.backgroundFailure('caseCreation', CaseCreationStage.WorkflowStatusLookupAndPersist);
        job.done?.('failed');
      }
      this.logger.error({ err, activations: jobs.length }, 'Case creation failed');
      return;
    }
    await this.followUps(batch, keys, decided);
    jobs.forEach((job, i) => job.done?.(decided[i].outcome));
  }

  /**
   * Stages 1 and 2 for a batch. Stage 1 (ExistingCasePriorityLookup): the open cases of its identities. Stage 2
   * (WorkflowStatusLookupAndPersist): the statuses, then each item decided in arrival order against its case as
   * the items before it left it (a lower priority number wins, so only a strictly better one replaces the
   * case's status), then an upsert of each identity's final row. The look-up, the decisions and the upsert go
   * BACKGROUND_SLICE at a time, giving the event loop back in between, so a batch of 2 000 never holds it for
   * long (a statement per slice: each row's upsert decides on its own in the database, so slicing changes no
   * outcome). Another node may open or raise a case between look-up and upsert: the upsert decides in the
   * database, and its answer corrects the outcomes (a case it did not write was at least as good: unchanged; a
   * case it raised that we thought new: upgraded).
   */
  private async decide(batch: CaseActivation[], keys: readonly string[]): Promise<Decided[]> {
    let start = process.hrtime.bigint();
    const slots = new Map<string, Slot>();
    batch.forEach((a, i) => {
      if (!slots.has(keys[i])) slots.set(keys[i], { identity: identityOf(a), priority: null, changed: [] });
    });
    const identities = [...slots.values()].map((s) => s.identity);
    for (const open of await inSlices(identities, (slice) => this.cases.findOpen(slice)))
      for (const c of open) {
        const slot = slots.get(caseIdentityKey(c));
        if (slot && (slot.priority === null || c.Priority < slot.priority)) slot.priority = c.Priority;
      }
    const lookup = elapsedMicros(start);

    start = process.hrtime.bigint();
    const statuses = await this.statuses.get(batch.map((a) => a.caseWorkflowStatusId));
    const at = new Date(this.clock.now());
    const decided: Decided[] = new Array<Decided>(batch.length);
    await inSlices(batch, (slice, offset) =>
      slice.forEach((a, j) => {
        const i = offset + j;
        decided[i] = decideOne(a, i, slots.get(keys[i])!, statuses.get(a.caseWorkflowStatusId) ?? null, at);
      }),
    );
    const skipped = decided.filter((d) => d.outcome === 'skipped').length;
    if (skipped)
      this.logger.warn({ activations: skipped }, 'Activations name a status that no longer exists');
    const rows = [...slots.values()].flatMap((s) => (s.row ? [s.row] : []));
    const written = new Map<string, string>();
    for (const answer of await inSlices(rows, (slice) => this.cases.upsert(slice)))
      for (const w of answer) written.set(caseIdentityKey(w), w.Guid);
    for (const [key, slot] of slots) {
      if (!slot.row) continue;
      const guid = written.get(key);
      if (guid === undefined) for (const i of slot.changed) decided[i].outcome = 'unchanged';
      else if (guid !== slot.row.Guid && decided[slot.changed[0]].outcome === 'inserted')
        decided[slot.changed[0]].outcome = 'upgraded';
    }
    const persist = elapsedMicros(start);
    this.record(CaseCreationStage.ExistingCasePriorityLookup, batch, null, lookup);
    this.record(CaseCreationStage.WorkflowStatusLookupAndPersist, batch, null, persist);
    return decided;
  }

  /**
   * One run of a stage over `items` (a batch for stages 1 and 2, one activation for 3 and 4), counted once:
   * its time enters the rollup and the histogram once, InvokeCount grows by the items, and a run slower than
   * the threshold raises ONE warning, naming the first (oldest) activation it handled and how many it handled.
   */
  private record(
    stage: CaseCreationStage,
    items: readonly CaseActivation[],
    destination: string | null,
    micros: number,
  ): void {
    this.rollups.recordCaseCreation(stage, micros, items.length);
    this.telemetry.caseCreationStage(stage, micros);
    if (micros > this.settings.CaseCreationWarnThresholdMilliseconds * 1000) {
      const first = items[0];
      this.telemetry.caseCreationWarning({
        caseWorkflowGuid: first.caseWorkflow.guid,
        caseWorkflowName: first.caseWorkflow.name,
        caseKey: first.caseKey,
        caseKeyValue: first.caseKeyValue,
        stageId: stage,
        durationMicroseconds: Math.round(micros),
        destination,
        batchSize: items.length,
      });
    }
  }

  private async timed(
    stage: CaseCreationStage,
    a: CaseActivation,
    destination: string,
    work: () => Promise<void>,
  ): Promise<void> {
    const start = process.hrtime.bigint();
    try {
      await work();
    } finally {
      this.record(stage, [a], destination, elapsedMicros(start));
    }
  }

  /**
   * Stages 3 and 4 for the batch's inserted and upgraded cases only: each case key's in arrival order, up to
   * FOLLOW_UP_CONCURRENCY keys at once. A failure keeps the case (logged and counted).
   */
  private async followUps(
    batch: CaseActivation[],
    keys: readonly string[],
    decided: Decided[],
  ): Promise<void> {
    const byKey = new Map<string, number[]>();
    decided.forEach((d, i) => {
      if ((d.outcome !== 'inserted' && d.outcome !== 'upgraded') || !d.status) return;
      if (!d.status.EnableNotification && !d.status.EnableHttpEndpoint) return;
      const chain = byKey.get(keys[i]);
      if (chain) chain.push(i);
      else byKey.set(keys[i], [i]);
    });
    const chains = [...byKey.values()];
    const worker = async () => {
      for (let chain = chains.shift(); chain; chain = chains.shift())
        for (const i of chain) await this.followUp(batch[i], decided[i].status!, decided[i].outcome);
    };
    await Promise.all(Array.from({ length: Math.min(FOLLOW_UP_CONCURRENCY, chains.length) }, worker));
  }

  private async followUp(a: CaseActivation, status: LiveStatus, outcome: CaseOutcome): Promise<void> {
    const values = this.templateValues(a, status, outcome);
    if (status.EnableNotification && status.NotificationDestination) {
      const to = singleLine(fillTemplate(status.NotificationDestination, values));
      await this.timed(CaseCreationStage.Notification, a, to, () =>
        this.notifier
          .sendMail({
            to,
            subject: singleLine(fillTemplate(status.NotificationSubject ?? `Case ${a.caseKeyValue}`, values)),
            text: fillTemplate(status.NotificationBody ?? '', values),
          })
          .catch((err: unknown) => this.failed(CaseCreationStage.Notification, err, to)),
      );
    }
    if (status.EnableHttpEndpoint && status.HttpEndpointUrl) {
      const url = fillTemplate(status.HttpEndpointUrl, values, encodeURIComponent);
      await this.timed(CaseCreationStage.HttpEndpoint, a, url, () =>
        this.notifier
          .call(url, status.HttpEndpointMethod ?? 'POST', {
            caseWorkflowGuid: a.caseWorkflow.guid,
            caseWorkflowName: a.caseWorkflow.name,
            caseWorkflowStatusGuid: status.Guid,
            caseWorkflowStatusName: status.Name,
            priority: status.Priority,
            caseKey: a.caseKey,
            caseKeyValue: a.caseKeyValue,
            outcome,
            entityAnalysisModelGuid: a.entityAnalysisModelGuid,
            entityAnalysisModelInstanceEntryGuid: a.entityAnalysisModelInstanceEntryGuid,
            fields: a.fields,
          })
          .catch((err: unknown) => this.failed(CaseCreationStage.HttpEndpoint, err, url)),
      );
    }
  }

  private failed(stage: CaseCreationStage, err: unknown, destination: string): void {
    this.telemetry.backgroundFailure('caseCreation', stage);
    this.logger.error(
      { err: err instanceof Error ? err.message : String(err), destination },
      stage === CaseCreationStage.Notification ? 'Case notification failed' : 'Case HTTP callback failed',
    );
  }

  private templateValues(a: CaseActivation, status: LiveStatus, outcome: string): Record<string, unknown> {
    return {
      ...a.fields,
      CaseKey: a.caseKey,
      CaseKeyValue: a.caseKeyValue,
      CaseWorkflowName: a.caseWorkflow.name,
      CaseWorkflowStatusName: status.Name,
      Priority: status.Priority,
      Outcome: outcome,
      EntityAnalysisModelInstanceEntryGuid: a.entityAnalysisModelInstanceEntryGuid,
    };
  }
}

/**
 * One activation against its case as the batch's earlier items left it (`slot`): skipped when its status is
 * gone, unchanged unless its priority is strictly better, else inserted or upgraded, and the slot's row to
 * write becomes this one.
 */
function decideOne(a: CaseActivation, i: number, slot: Slot, status: LiveStatus | null, at: Date): Decided {
  if (!status) return { outcome: 'skipped', status };
  if (slot.priority !== null && slot.priority <= status.Priority) return { outcome: 'unchanged', status };
  const outcome = slot.priority === null ? 'inserted' : 'upgraded';
  slot.priority = status.Priority;
  slot.row = {
    CaseWorkflowId: slot.identity.CaseWorkflowId,
    CaseKey: slot.identity.CaseKey,
    CaseKeyValue: slot.identity.CaseKeyValue,
    Guid: slot.row?.Guid ?? timeOrderedGuid(at.getTime()),
    CaseWorkflowStatusId: status.Id,
    Priority: status.Priority,
    EntityAnalysisModelInstanceEntryGuid: a.entityAnalysisModelInstanceEntryGuid,
    At: at,
  };
  slot.changed.push(i);
  return { outcome, status };
}

function elapsedMicros(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1000;
}
