import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { ENGINE_SETTINGS, type EngineSettings } from '@app/config';
import { Clock, isUniqueViolation, timeOrderedGuid } from '@app/common';
import { ConfigurationRepository, type LiveStatus } from '../model/configuration.repository';
import { StageRollupService } from '../rollups/stage-rollup.service';
import { PipelineTelemetry } from '../telemetry/pipeline-telemetry';
import { CaseCreationStage } from '../telemetry/stages';
import { CaseNotifier } from './case-notifier';
import { CaseRepository, OpenCase } from './case.repository';
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

/**
 * Case creation: ONE global queue for every model, consumed by ONE serial consumer, so two activations for
 * the same workflow/key/value can never race (the second sees the first one's case). Bounded: a producer
 * that finds it full waits for room (back-pressure up to the Archiver, whose own bound answers 503); nothing
 * is dropped.
 */
@Injectable()
export class CaseCreationService implements OnModuleDestroy {
  private readonly logger = new Logger('CaseCreation');
  private readonly queue: Job[] = [];
  private head = 0;
  private running = false;
  private readonly roomWaiters: (() => void)[] = [];
  private readonly idleWaiters: (() => void)[] = [];

  constructor(
    private readonly cases: CaseRepository,
    private readonly config: ConfigurationRepository,
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
    return this.queue.length - this.head;
  }

  /** Queues an activation; resolves once it is in the queue (waits while the queue is full). */
  async enqueue(activation: CaseActivation): Promise<void> {
    while (this.depth >= this.settings.CaseCreationQueueCapacity) {
      await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
    }
    this.queue.push({ activation });
    this.pump();
  }

  /** Reprocessing: through the same queue (so still never racing), resolved when the case is done. */
  async run(activation: CaseActivation): Promise<CaseOutcome> {
    while (this.depth >= this.settings.CaseCreationQueueCapacity) {
      await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
    }
    return new Promise<CaseOutcome>((done) => {
      this.queue.push({ activation, done });
      this.pump();
    });
  }

  /** Resolves when the queue is empty and nothing is being processed. */
  idle(): Promise<void> {
    if (!this.running && this.depth === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    if (this.running) return;
    this.running = true;
    setImmediate(() => void this.consume());
  }

  private async consume(): Promise<void> {
    try {
      while (this.depth > 0) {
        const job = this.queue[this.head];
        this.queue[this.head] = undefined as unknown as Job;
        this.head++;
        if (this.head > 1024 && this.head * 2 > this.queue.length) {
          this.queue.splice(0, this.head);
          this.head = 0;
        }
        this.roomWaiters.shift()?.();
        let outcome: CaseOutcome;
        try {
          outcome = await this.process(job.activation);
        } catch (err) {
          // A failure never crashes the process and never passes silently: logged and counted.
          outcome = 'failed';
          this.telemetry.backgroundFailure('caseCreation', CaseCreationStage.WorkflowStatusLookupAndPersist);
          this.logger.error({ err, caseKeyValue: job.activation.caseKeyValue }, 'Case creation failed');
        }
        job.done?.(outcome);
      }
    } finally {
      this.running = false;
      for (const w of this.roomWaiters.splice(0)) w();
      if (this.depth > 0) this.pump();
      else for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  private timed<T>(
    stage: CaseCreationStage,
    a: CaseActivation,
    destination: string | null,
    work: () => Promise<T>,
  ): Promise<T> {
    const start = process.hrtime.bigint();
    const finish = () => {
      const micros = Number(process.hrtime.bigint() - start) / 1000;
      this.rollups.recordCaseCreation(stage, micros);
      this.telemetry.caseCreationStage(stage, micros);
      if (micros > this.settings.CaseCreationWarnThresholdMilliseconds * 1000) {
        this.telemetry.caseCreationWarning({
          caseWorkflowGuid: a.caseWorkflow.guid,
          caseWorkflowName: a.caseWorkflow.name,
          caseKey: a.caseKey,
          caseKeyValue: a.caseKeyValue,
          stage,
          durationMicroseconds: Math.round(micros),
          destination,
          occurredDate: new Date(this.clock.now()),
        });
      }
    };
    return work().finally(finish);
  }

  /**
   * The four stages for one activation. Another node may open the same case between our look-up and our
   * insert: the unique index on open cases refuses the second insert, and the activation is decided again
   * against the case that won (once).
   */
  async process(a: CaseActivation, retried = false): Promise<CaseOutcome> {
    // 1 ExistingCasePriorityLookup: the open case for this workflow, key and value, if any.
    const existing = await this.timed(CaseCreationStage.ExistingCasePriorityLookup, a, null, () =>
      this.cases.findOpen(a.caseWorkflow.id, a.caseKey, a.caseKeyValue),
    );
    // 2 WorkflowStatusLookupAndPersist: the target status (its priority decides), then the insert or upgrade.
    const decided = await this.persist(a, existing).catch((err: unknown) => {
      if (!retried && isUniqueViolation(err)) return 'raced' as const;
      throw err;
    });
    if (decided === 'raced') return this.process(a, true);
    const { outcome, status } = decided;
    if (!status || (outcome !== 'inserted' && outcome !== 'upgraded')) return outcome;

    // 3 Notification and 4 HttpEndpoint: only for an inserted or upgraded case; a failure keeps the case.
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
    return outcome;
  }

  /**
   * Stage 2 (spec: WorkflowStatusLookupAndPersist): looks up the target status; a lower number wins, so only a
   * strictly better priority replaces the open case's status; then inserts or upgrades the case row.
   */
  private persist(
    a: CaseActivation,
    existing: OpenCase | null,
  ): Promise<{ outcome: CaseOutcome; status: LiveStatus | null }> {
    return this.timed(CaseCreationStage.WorkflowStatusLookupAndPersist, a, null, async () => {
      const status = await this.config.findLiveStatusById(a.caseWorkflowStatusId);
      if (!status) {
        this.logger.warn(
          { caseKeyValue: a.caseKeyValue },
          'The activation names a status that no longer exists',
        );
        return { outcome: 'skipped' as const, status: null };
      }
      if (existing && existing.Priority <= status.Priority) return { outcome: 'unchanged' as const, status };
      const now = new Date(this.clock.now());
      if (existing) {
        await this.cases.upgrade(
          existing.Id,
          status.Id,
          status.Priority,
          a.entityAnalysisModelInstanceEntryGuid,
          now,
        );
        return { outcome: 'upgraded' as const, status };
      }
      await this.cases.insert({
        Guid: timeOrderedGuid(now.getTime()),
        CaseWorkflowId: a.caseWorkflow.id,
        CaseKey: a.caseKey,
        CaseKeyValue: a.caseKeyValue,
        CaseWorkflowStatusId: status.Id,
        Priority: status.Priority,
        EntityAnalysisModelInstanceEntryGuid: a.entityAnalysisModelInstanceEntryGuid,
        CreatedDate: now,
        UpdatedDate: null,
        ClosedDate: null,
      });
      return { outcome: 'inserted' as const, status };
    });
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
