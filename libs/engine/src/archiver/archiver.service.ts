import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnModuleDestroy,
  OnModuleInit,
} from '@nestjs/common';
import { SHUTDOWN_FLUSH_MS, ENGINE_SETTINGS, type EngineSettings } from '@app/config';
import { BACKGROUND_SLICE, Clock, nextTurn, TimeoutError, withTimeout } from '@app/runtime';
import { isDatabaseUnavailable } from '@app/problems';
import { CaseActivation, CaseCreationService, CaseOutcome } from '../case-creation/case-creation.service';
import { StageRollupService } from '../rollups/stage-rollup.service';
import { PipelineTelemetry } from '../telemetry/pipeline-telemetry';
import { ARCHIVER_STAGE_NAMES, ArchiverStage } from '../telemetry/stages';
import { SerialQueue } from '../serial-queue/serial-queue';
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

/** A buffered archive row and the cases its invocation raises (dispatched once the row is committed). */
interface BufferedEntry {
  row: ArchiveRow;
  cases: CaseActivation[];
}

/** What an archive row records when a stage could not archive the invocation as it was. */
export interface ArchiveError {
  stage: string;
  reason: string;
}

/** The member an error row's Json carries beside (or instead of) the archived payload. */
export const ARCHIVE_ERROR_MEMBER = 'archiveError';

/**
 * The Archiver (spec: What the service does 2): a bounded background queue consumed serially through
 * 1 BuildArchiveJson and 3 RdbmsArchiveWrite (into a buffer); 4 BulkCopyArchiveBuffer on its own timer (or
 * when the buffer holds ArchiveBulkCopyBatchSize rows); then 2 CaseCreationDispatch for each row the bulk
 * copy committed: a case is created only once the archive entry it points at exists (docs/decisions.md,
 * "The Archiver's order"). A model without the relational archive dispatches at once, after stage 1.
 *
 * The invoke checks hasCapacity() before any side effect and answers 503 when full. The buffer is bounded
 * too: while it is full (a database outage) the consumer waits, so the queue fills and callers see 503
 * instead of rows being lost. No accepted invocation is lost silently: a stage that fails records its
 * duration and an ArchiverWarning (whatever the threshold), and the invocation ends with its row all the
 * same: retained for the next bulk copy while the database is away, or an error row (ARCHIVE_ERROR_MEMBER)
 * when the database refuses the row as it is. Only a crash loses what the queue and the buffer hold.
 */
@Injectable()
export class ArchiverService implements OnModuleInit, OnModuleDestroy, BeforeApplicationShutdown {
  private readonly logger = new Logger('Archiver');
  private readonly queue = new SerialQueue<ArchiveItem>({
    batchSize: () => 1,
    ready: () => this.roomInBuffer(),
    handle: ([item]) => this.process(item),
    failed: (err, [item]) => {
      if (!item) return this.logger.error({ err }, 'Copying the full archive buffer failed');
      this.telemetry.backgroundFailure('archiver', ArchiverStage.CaseCreationDispatch);
      this.logger.error({ err, entryGuid: item.entryGuid }, 'Archiving an invocation failed');
    },
  });
  /** Buffered archive rows per model guid, waiting for BulkCopyArchiveBuffer. */
  private buffer = new Map<string, BufferedEntry[]>();
  private buffered = 0;
  private timer?: NodeJS.Timeout;
  private copying?: Promise<void>;
  /** Rows written by bulk copy since start, and failed bulk copies (each logged). */
  copiedRows = 0;
  failedCopies = 0;
  /** Rows the database refused as they were: each written as an error row instead (logged, counted). */
  rejectedRows = 0;
  /** Invocations without any row: the database refused even the error row (logged at ERROR, counted). */
  lostRows = 0;

  constructor(
    private readonly archive: ArchiveRepository,
    private readonly caseCreation: CaseCreationService,
    private readonly rollups: StageRollupService,
    private readonly telemetry: PipelineTelemetry,
    private readonly clock: Clock,
    @Inject(ENGINE_SETTINGS.token) private readonly settings: EngineSettings,
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
    return this.queue.depth;
  }

  /** False when the queue holds its capacity: the invoke answers 503 before doing anything. */
  hasCapacity(): boolean {
    return this.depth < this.settings.ArchiverQueueCapacity;
  }

  /** Callers check hasCapacity() first, in the same synchronous turn. */
  enqueue(item: ArchiveItem): void {
    if (!this.hasCapacity()) throw new Error('Archiver queue is full');
    this.queue.push(item);
  }

  /** Holds the consumer (operations and tests); the queue keeps its bound. */
  pause(): void {
    this.queue.pause();
  }
  resume(): void {
    this.queue.resume();
  }

  /** Resolves when the consumer has handled every queued invocation (its row may still wait in the buffer). */
  consumed(): Promise<void> {
    return this.queue.idle();
  }

  /** Resolves when the queue is consumed, the buffer is copied and case creation is idle. */
  async drain(): Promise<void> {
    await this.consumed();
    await this.bulkCopy();
    await this.caseCreation.idle();
  }

  /**
   * The buffer is full only while bulk copies fail (the database is away): the consumer waits, retrying once an
   * interval, and the queue fills meanwhile, so callers see 503 instead of rows being lost.
   */
  private roomInBuffer(): Promise<void> | undefined {
    if (this.buffered < this.settings.ArchiverQueueCapacity) return undefined;
    return this.bulkCopy().then(async () => {
      if (this.buffered >= this.settings.ArchiverQueueCapacity)
        await new Promise((resolve) =>
          setTimeout(resolve, this.settings.ArchiveBulkCopyIntervalMilliseconds),
        );
    });
  }

  /**
   * One run of a stage, counted once: its duration enters the rollup and the histogram once, InvokeCount grows
   * by the invocations it handled (`items`: a bulk copy's rows written), and ONE warning is raised when it was
   * slower than the threshold or failed (carrying `batchSize`, the rows it worked on).
   */
  private measure(
    stage: ArchiverStage,
    modelGuid: string,
    entryGuid: string | null,
    start: bigint,
    run: { failed?: boolean; items?: number; batchSize?: number } = {},
  ): void {
    const micros = Number(process.hrtime.bigint() - start) / 1000;
    const items = run.items ?? 1;
    this.rollups.recordArchiver(modelGuid, stage, micros, items);
    this.telemetry.archiverStage(stage, micros);
    if (run.failed || micros > this.settings.ArchiverWarnThresholdMilliseconds * 1000) {
      this.telemetry.archiverWarning({
        entityAnalysisModelGuid: modelGuid,
        entityAnalysisModelInstanceEntryGuid: entryGuid,
        stageId: stage,
        durationMicroseconds: Math.round(micros),
        batchSize: run.batchSize ?? items,
      });
    }
  }

  /**
   * Stage 1, then stage 3 (the buffered insert); stage 2 follows the bulk copy (copy). Synchronous for an
   * archived entry: the per-invocation path awaits nothing it need not (docs/performance.md).
   */
  private process(item: ArchiveItem): void {
    const json = this.buildJson(item);

    if (!item.enableRdbmsArchive) {
      // No archive row to wait for (such entries cannot be reprocessed): the cases go at once.
      this.dispatch(item.modelGuid, item.entryGuid, item.cases);
      return;
    }
    const start = process.hrtime.bigint();
    let entries = this.buffer.get(item.modelGuid);
    if (!entries) this.buffer.set(item.modelGuid, (entries = []));
    entries.push({
      row: {
        EntityAnalysisModelInstanceEntryGuid: item.entryGuid,
        EntityAnalysisModelId: item.modelId,
        EntryReference: item.entryReference,
        Json: json,
        ReferenceDate: item.referenceDate,
        CreatedDate: new Date(this.clock.now()),
        UpdatedDate: null,
      },
      cases: item.cases,
    });
    this.buffered++;
    this.measure(ArchiverStage.RdbmsArchiveWrite, item.modelGuid, item.entryGuid, start);
    if (this.buffered >= this.settings.ArchiveBulkCopyBatchSize) void this.bulkCopy();
  }

  /**
   * 1 BuildArchiveJson. A payload that cannot be serialised (nothing the invoke accepts should be: bodies are
   * bounded in depth and size) still gets a row: the payload without its request, or the bare identifiers,
   * with the error (such an entry cannot be reprocessed: 409).
   */
  private buildJson(item: ArchiveItem): string {
    const start = process.hrtime.bigint();
    try {
      const json = JSON.stringify(item.payload);
      this.measure(ArchiverStage.BuildArchiveJson, item.modelGuid, item.entryGuid, start);
      return json;
    } catch (err) {
      this.telemetry.backgroundFailure('archiver', ArchiverStage.BuildArchiveJson);
      this.logger.error(
        { err, entryGuid: item.entryGuid },
        'The archive payload could not be serialised; an error row is archived instead',
      );
      const error: ArchiveError = {
        stage: ARCHIVER_STAGE_NAMES[ArchiverStage.BuildArchiveJson],
        reason: `The payload could not be serialised (${err instanceof Error ? err.name : 'error'}).`,
      };
      const payload =
        item.payload !== null && typeof item.payload === 'object'
          ? (item.payload as Record<string, unknown>)
          : {};
      let json: string;
      try {
        json = JSON.stringify({ ...payload, request: undefined, [ARCHIVE_ERROR_MEMBER]: error });
      } catch {
        json = JSON.stringify({
          entityAnalysisModelInstanceEntryGuid: item.entryGuid,
          entityAnalysisModelGuid: item.modelGuid,
          [ARCHIVE_ERROR_MEMBER]: error,
        });
      }
      this.measure(ArchiverStage.BuildArchiveJson, item.modelGuid, item.entryGuid, start, { failed: true });
      return json;
    }
  }

  /**
   * 2 CaseCreationDispatch: the invocation's case-raising activations into the case creation queue, which
   * takes them at once: the Archiver never waits for case creation (the backlog is case lag).
   */
  private dispatch(modelGuid: string, entryGuid: string, cases: CaseActivation[]): void {
    const start = process.hrtime.bigint();
    for (const activation of cases) this.caseCreation.enqueue(activation);
    this.measure(ArchiverStage.CaseCreationDispatch, modelGuid, entryGuid, start);
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

  /**
   * A batch the database answered but refused: one bad row must not block every other one, so each row is
   * written on its own. A row refused as it is becomes an error row (the same entry, its Json with
   * ARCHIVE_ERROR_MEMBER, no EntryReference, ReferenceDate the creation instant: what a database can refuse
   * is a value taken from the request). Answers the entries that have a row now, and keeps for the next bulk
   * copy those the database stopped answering for.
   */
  private async copyRowByRow(modelGuid: string, entries: BufferedEntry[]): Promise<BufferedEntry[]> {
    const written: BufferedEntry[] = [];
    for (const [i, entry] of entries.entries()) {
      const entryGuid = entry.row.EntityAnalysisModelInstanceEntryGuid;
      try {
        await this.archive.bulkInsert([entry.row]);
        this.copiedRows++;
        written.push(entry);
        continue;
      } catch (err) {
        if (isDatabaseUnavailable(err)) {
          this.retain(modelGuid, entries.slice(i));
          return written;
        }
        this.rejectedRows++;
        this.telemetry.backgroundFailure('archiver', ArchiverStage.BulkCopyArchiveBuffer);
        this.logger.error(
          { err, entryGuid },
          'The database refused an archive row; it is archived as an error row instead',
        );
      }
      try {
        await this.archive.bulkInsert([errorRow(entry.row, this.clock.now())]);
        this.copiedRows++;
        written.push(entry);
      } catch (err) {
        if (isDatabaseUnavailable(err)) {
          this.retain(modelGuid, entries.slice(i));
          return written;
        }
        // Nothing left to write: said at ERROR and counted; its cases are not raised (no case may point at a
        // missing entry).
        this.lostRows++;
        this.logger.error(
          { err, entryGuid },
          'The database refused the error row too: this invocation is not archived and raises no case',
        );
      }
    }
    return written;
  }

  /** Puts entries back at the front of their model's buffer, for the next bulk copy. */
  private retain(modelGuid: string, entries: BufferedEntry[]): void {
    const kept = this.buffer.get(modelGuid);
    this.buffer.set(modelGuid, kept ? [...entries, ...kept] : entries);
    this.buffered += entries.length;
  }

  /** True when the entry is still in the buffer (not yet copied to the database). */
  isBuffered(modelGuid: string, entryGuid: string): boolean {
    return (
      this.buffer.get(modelGuid)?.some((e) => e.row.EntityAnalysisModelInstanceEntryGuid === entryGuid) ??
      false
    );
  }

  /**
   * 4 BulkCopyArchiveBuffer: one timed bulk insert per model's buffered rows, then 2 CaseCreationDispatch for
   * each row it committed. Never overlaps itself.
   */
  bulkCopy(): Promise<void> {
    const run = (this.copying ?? Promise.resolve()).then(() => this.copy());
    this.copying = run;
    return run;
  }

  /**
   * Each model's buffered rows in one run of the stage: the bulk insert, and when the database refuses it, the
   * rows one by one within the same run, so the stage's time and its warning are counted once per model batch
   * (the warning carries the model, no entry guid — spec: ArchiverWarning — and the batch's rows).
   */
  private async copy(): Promise<void> {
    if (!this.buffered) return;
    const batches = this.buffer;
    this.buffer = new Map();
    this.buffered = 0;
    for (const [modelGuid, entries] of batches) {
      const start = process.hrtime.bigint();
      const run = { failed: false, items: 0, batchSize: entries.length };
      for (let from = 0; from < entries.length; from += BACKGROUND_SLICE) {
        if (from > 0) await nextTurn();
        const committed = await this.copySlice(modelGuid, entries.slice(from, from + BACKGROUND_SLICE), run);
        if (committed === null) {
          // The database is away: this slice and the rest are kept for the next interval.
          this.retain(modelGuid, entries.slice(from));
          break;
        }
        run.items += committed.length;
        for (const entry of committed)
          this.dispatch(modelGuid, entry.row.EntityAnalysisModelInstanceEntryGuid, entry.cases);
      }
      this.measure(ArchiverStage.BulkCopyArchiveBuffer, modelGuid, null, start, run);
    }
  }

  /**
   * One slice of a model's buffered rows in one transaction (BACKGROUND_SLICE rows, so that no statement
   * holds the event loop for long on SQLite, whose driver is synchronous): the entries committed, or null when
   * the database did not answer (logged and counted; the transaction wrote none of them). A slice the
   * database refused is written row by row.
   */
  private async copySlice(
    modelGuid: string,
    entries: BufferedEntry[],
    run: { failed: boolean },
  ): Promise<BufferedEntry[] | null> {
    try {
      await this.archive.bulkInsert(entries.map((e) => e.row));
      this.copiedRows += entries.length;
      return entries;
    } catch (err) {
      run.failed = true;
      if (!isDatabaseUnavailable(err)) return this.copyRowByRow(modelGuid, entries);
      this.failedCopies++;
      this.telemetry.backgroundFailure('archiver', ArchiverStage.BulkCopyArchiveBuffer);
      this.logger.error(
        { err, rows: entries.length },
        'Bulk copy of the archive buffer failed; rows kept for retry',
      );
      return null;
    }
  }
}

/**
 * The error row of an archive row the database refused: the same entry and model, the payload kept (so the
 * entry can still be reprocessed) with ARCHIVE_ERROR_MEMBER added, and none of the values taken from the
 * request outside the Json (EntryReference, ReferenceDate).
 */
function errorRow(row: ArchiveRow, now: number): ArchiveRow {
  const error: ArchiveError = {
    stage: ARCHIVER_STAGE_NAMES[ArchiverStage.BulkCopyArchiveBuffer],
    reason: 'The database refused the archive row as it was; EntryReference and ReferenceDate were not kept.',
  };
  const member = `${JSON.stringify(ARCHIVE_ERROR_MEMBER)}:${JSON.stringify(error)}`;
  const json = row.Json.trimEnd();
  return {
    ...row,
    EntryReference: null,
    ReferenceDate: new Date(now),
    // The payload is a JSON object: the member is added before its closing brace.
    Json: json.endsWith('}') ? `${json.slice(0, -1)}${json === '{}' ? '' : ','}${member}}` : `{${member}}`,
  };
}
