import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnModuleDestroy,
  OnModuleInit,
} from '@nestjs/common';
import { SETTINGS, Settings, SHUTDOWN_FLUSH_MS } from '@app/config';
import { Clock, isDatabaseUnavailable, TimeoutError, withTimeout } from '@app/common';
import { CaseActivation, CaseCreationService, CaseOutcome } from '../case-creation/case-creation.service';
import { StageRollupService } from '../rollups/stage-rollup.service';
import { PipelineTelemetry } from '../telemetry/pipeline-telemetry';
import { ArchiverStage } from '../telemetry/stages';
import { ArchiveRepository, ArchiveRow } from './archive.repository';

/** What the invoke pipeline hands the Archiver. */
export interface ArchiveItem {
  modelId: number;
  modelGuid: string;
  enableRdbmsArchive: boolean;
  entryGuid: string;
  entryReference: string | null;
  referenceDate: Date;
  /** The Archive payload (BuildArchivePayload); serialised by stage 1. */
  payload: unknown;
  cases: CaseActivation[];
}

/**
 * The Archiver (spec: What the service does 2): a bounded background queue consumed serially through
 * 1 BuildArchiveJson, 2 CaseCreationDispatch, 3 RdbmsArchiveWrite (into a buffer), and, on its own timer,
 * 4 BulkCopyArchiveBuffer. The invoke checks hasCapacity() before any side effect and answers 503 when full.
 * The buffer is bounded too: while it is full (a database outage) the consumer waits, so the queue fills
 * and callers see 503 instead of rows being lost.
 */
@Injectable()
export class ArchiverService implements OnModuleInit, OnModuleDestroy, BeforeApplicationShutdown {
  private readonly logger = new Logger('Archiver');
  private readonly queue: ArchiveItem[] = [];
  private head = 0;
  private running = false;
  private paused = false;
  /** Buffered archive rows per model guid, waiting for BulkCopyArchiveBuffer. */
  private buffer = new Map<string, ArchiveRow[]>();
  private buffered = 0;
  private timer?: NodeJS.Timeout;
  private copying?: Promise<void>;
  private readonly idleWaiters: (() => void)[] = [];
  /** Rows written by bulk copy since start, and failed bulk copies (each logged). */
  copiedRows = 0;
  failedCopies = 0;
  /** Rows the database refused individually (each logged with its entry guid). */
  rejectedRows = 0;

  constructor(
    private readonly archive: ArchiveRepository,
    private readonly caseCreation: CaseCreationService,
    private readonly rollups: StageRollupService,
    private readonly telemetry: PipelineTelemetry,
    private readonly clock: Clock,
    @Inject(SETTINGS) private readonly settings: Settings,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.bulkCopy(), this.settings.ArchiveBulkCopyIntervalMilliseconds);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /**
   * Graceful shutdown, before the database closes: finish the queue, case creation and the buffer, then
   * write the last rollups. Bounded, so a dead database cannot hold the process forever.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.resume();
    await withTimeout(this.drain(), SHUTDOWN_FLUSH_MS, 'The Archiver drain').catch((err: unknown) => {
      if (!(err instanceof TimeoutError)) throw err;
    });
    await this.rollups.flush();
  }

  get depth(): number {
    return this.queue.length - this.head;
  }

  /** False when the queue holds its capacity: the invoke answers 503 before doing anything. */
  hasCapacity(): boolean {
    return this.depth < this.settings.ArchiverQueueCapacity;
  }

  /** Callers check hasCapacity() first, in the same synchronous turn. */
  enqueue(item: ArchiveItem): void {
    if (!this.hasCapacity()) throw new Error('Archiver queue is full');
    this.queue.push(item);
    this.pump();
  }

  /** Holds the consumer (operations and tests); the queue keeps its bound. */
  pause(): void {
    this.paused = true;
  }
  resume(): void {
    this.paused = false;
    this.pump();
  }

  /** Resolves when the queue is consumed, case creation is idle and the buffer is copied. */
  async drain(): Promise<void> {
    if (this.running || this.depth > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    await this.caseCreation.idle();
    await this.bulkCopy();
  }

  private pump(): void {
    if (this.running || this.paused || this.depth === 0) return;
    this.running = true;
    setImmediate(() => void this.consume());
  }

  private async consume(): Promise<void> {
    try {
      while (this.depth > 0 && !this.paused) {
        // The buffer is full only while bulk copies fail (database away): wait, retrying once an interval.
        while (this.buffered >= this.settings.ArchiverQueueCapacity) {
          await this.bulkCopy();
          if (this.buffered >= this.settings.ArchiverQueueCapacity)
            await new Promise((resolve) =>
              setTimeout(resolve, this.settings.ArchiveBulkCopyIntervalMilliseconds),
            );
        }
        const item = this.queue[this.head];
        this.queue[this.head] = undefined as unknown as ArchiveItem;
        this.head++;
        if (this.head > 1024 && this.head * 2 > this.queue.length) {
          this.queue.splice(0, this.head);
          this.head = 0;
        }
        try {
          await this.process(item);
        } catch (err) {
          this.telemetry.backgroundFailure('archiver', ArchiverStage.CaseCreationDispatch);
          this.logger.error({ err, entryGuid: item.entryGuid }, 'Archiving an invocation failed');
        }
      }
    } finally {
      this.running = false;
      if (this.depth > 0 && !this.paused) this.pump();
      else for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  private measure(stage: ArchiverStage, modelGuid: string, entryGuid: string | null, start: bigint): void {
    const micros = Number(process.hrtime.bigint() - start) / 1000;
    this.rollups.recordArchiver(modelGuid, stage, micros);
    this.telemetry.archiverStage(stage, micros);
    if (micros > this.settings.ArchiverWarnThresholdMilliseconds * 1000) {
      this.telemetry.archiverWarning({
        entityAnalysisModelGuid: modelGuid,
        entityAnalysisModelInstanceEntryGuid: entryGuid,
        stage,
        durationMicroseconds: Math.round(micros),
        occurredDate: new Date(this.clock.now()),
      });
    }
  }

  /** Stages 1 to 3 of the asynchronous path. */
  private async process(item: ArchiveItem): Promise<void> {
    let start = process.hrtime.bigint();
    const json = JSON.stringify(item.payload);
    this.measure(ArchiverStage.BuildArchiveJson, item.modelGuid, item.entryGuid, start);

    start = process.hrtime.bigint();
    for (const activation of item.cases) await this.caseCreation.enqueue(activation);
    this.measure(ArchiverStage.CaseCreationDispatch, item.modelGuid, item.entryGuid, start);

    if (!item.enableRdbmsArchive) return;
    start = process.hrtime.bigint();
    let rows = this.buffer.get(item.modelGuid);
    if (!rows) this.buffer.set(item.modelGuid, (rows = []));
    rows.push({
      EntityAnalysisModelInstanceEntryGuid: item.entryGuid,
      EntityAnalysisModelId: item.modelId,
      EntryReference: item.entryReference,
      Json: json,
      ReferenceDate: item.referenceDate,
      CreatedDate: new Date(this.clock.now()),
      UpdatedDate: null,
    });
    this.buffered++;
    this.measure(ArchiverStage.RdbmsArchiveWrite, item.modelGuid, item.entryGuid, start);
    if (this.buffered >= this.settings.ArchiveBulkCopyBatchSize) void this.bulkCopy();
  }

  /**
   * Reprocessing (synchronous, on the request): the same stages with synchronous case creation and an
   * in-place update of the archive row.
   */
  async reprocess(item: ArchiveItem, archiveRowId: number): Promise<CaseOutcome[]> {
    let start = process.hrtime.bigint();
    const json = JSON.stringify(item.payload);
    this.measure(ArchiverStage.BuildArchiveJson, item.modelGuid, item.entryGuid, start);

    start = process.hrtime.bigint();
    const outcomes: CaseOutcome[] = [];
    for (const activation of item.cases) outcomes.push(await this.caseCreation.run(activation));
    this.measure(ArchiverStage.CaseCreationDispatch, item.modelGuid, item.entryGuid, start);

    start = process.hrtime.bigint();
    await this.archive.updateInPlace(archiveRowId, json, item.referenceDate, new Date(this.clock.now()));
    this.measure(ArchiverStage.RdbmsArchiveWrite, item.modelGuid, item.entryGuid, start);
    return outcomes;
  }

  private async copyRowByRow(rows: ArchiveRow[]): Promise<void> {
    for (const row of rows) {
      try {
        await this.archive.bulkInsert([row]);
        this.copiedRows++;
      } catch (err) {
        this.rejectedRows++;
        this.telemetry.backgroundFailure('archiver', ArchiverStage.BulkCopyArchiveBuffer);
        this.logger.error(
          { err, entryGuid: row.EntityAnalysisModelInstanceEntryGuid },
          'The database refused an archive row; it is not archived',
        );
      }
    }
  }

  /** True when the entry is still in the buffer (not yet copied to the database). */
  isBuffered(modelGuid: string, entryGuid: string): boolean {
    return (
      this.buffer.get(modelGuid)?.some((r) => r.EntityAnalysisModelInstanceEntryGuid === entryGuid) ?? false
    );
  }

  /** 4 BulkCopyArchiveBuffer: one timed bulk insert per model's buffered rows. Never overlaps itself. */
  bulkCopy(): Promise<void> {
    const run = (this.copying ?? Promise.resolve()).then(() => this.copy());
    this.copying = run;
    return run;
  }

  private async copy(): Promise<void> {
    if (!this.buffered) return;
    const batches = this.buffer;
    this.buffer = new Map();
    this.buffered = 0;
    for (const [modelGuid, rows] of batches) {
      const start = process.hrtime.bigint();
      try {
        await this.archive.bulkInsert(rows);
        this.copiedRows += rows.length;
        // The stage works on a batch: no entry guid (spec: ArchiverWarning).
        this.measure(ArchiverStage.BulkCopyArchiveBuffer, modelGuid, null, start);
      } catch (err) {
        if (isDatabaseUnavailable(err)) {
          // Kept for the next interval (the transaction wrote none of them); logged and counted.
          this.failedCopies++;
          this.telemetry.backgroundFailure('archiver', ArchiverStage.BulkCopyArchiveBuffer);
          this.logger.error(
            { err, rows: rows.length },
            'Bulk copy of the archive buffer failed; rows kept for retry',
          );
          const kept = this.buffer.get(modelGuid);
          this.buffer.set(modelGuid, kept ? [...rows, ...kept] : rows);
          this.buffered += rows.length;
        } else {
          // The database answered but refused the batch: one bad row must not block every other one
          // forever, so the batch is retried row by row and only the refused rows are set aside.
          await this.copyRowByRow(rows);
        }
      }
    }
  }
}
