import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EntityTarget, ObjectLiteral } from 'typeorm';
import { BACKGROUND_SLICE, nextTurn, type Clock } from '@app/runtime';
import { isRowRefused } from './bulk-insert';
import { CAPTURE_QUEUE_IDS, CAPTURE_QUEUE_NAMES, CaptureQueueId } from './capture-queue-id';
import type { CaptureMetricReader } from './capture-metric-reader';
import type { CaptureQueues } from './capture-queues.service';
import type { CaptureWriter } from './capture.repository';
import {
  ArchiverWarning,
  CacheConnectionEvent,
  CacheSentinelEvent,
  CaptureQueueHealth,
  CaseCreationWarning,
  ModelInvokeWarning,
  OpenTelemetryMetric,
  type CaptureQueueHealthEntry,
} from './entities';

/** The table each queue drains into. */
export const CAPTURE_QUEUE_TABLES: Readonly<Record<CaptureQueueId, EntityTarget<ObjectLiteral>>> = {
  [CaptureQueueId.ModelInvokeWarning]: ModelInvokeWarning,
  [CaptureQueueId.CaseCreationWarning]: CaseCreationWarning,
  [CaptureQueueId.ArchiverWarning]: ArchiverWarning,
  [CaptureQueueId.CacheSentinelEvent]: CacheSentinelEvent,
  [CaptureQueueId.CacheConnectionEvent]: CacheConnectionEvent,
  [CaptureQueueId.OpenTelemetryMetric]: OpenTelemetryMetric,
};

/** Health rows kept while the database is away: one day of minute flushes; older ones are dropped. */
export const HEALTH_BACKLOG_LIMIT = 6 * 1440;

export interface CaptureFlushOptions {
  /** Instance column of every row (the node). */
  instance: string;
  intervalMs: number;
}

/** What one flush did; for tests and logs. */
export interface FlushReport {
  written: Record<CaptureQueueId, number>;
  /** Rows the database refused one by one (dropped and counted). */
  refused: number;
  /** True when the database could not be written and rows were kept for the next flush. */
  deferred: boolean;
  health: CaptureQueueHealthEntry[];
  healthWritten: boolean;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

interface Unresolved {
  batch: string;
  rows: ReadonlySet<object>;
}

/**
 * Drains the six capture queues into their tables once per interval, then records CaptureQueueHealth
 * (spec: CaptureQueueHealth; Events, queue mechanics).
 *
 * - Flushes never overlap: each one is chained after the previous (timer and explicit calls alike).
 * - A failed write loses nothing: the drained rows not yet written go back in front of their queue (bounded
 *   by its capacity; beyond it the oldest are dropped and counted) and are written at the next flush. A queue
 *   is written BACKGROUND_SLICE rows a write, each write one transaction, so a retried slice is never half
 *   written before.
 * - A write that fails without saying whether it committed (the connection lost around COMMIT) is settled
 *   before its rows are written again: its batch guid is looked up in the CaptureBatch ledger its
 *   transaction also wrote, and rows that did land are not written twice.
 * - Health rows are produced at every flush, all six, with QueueDepth and DroppedCount read in the same
 *   synchronous step; while the database is away they are kept and written later with their own time.
 */
export class CaptureFlusher {
  private readonly logger = new Logger('CaptureQueues');
  private chain: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private pendingHealth: CaptureQueueHealthEntry[] = [];
  private readonly listeners = new Set<(report: FlushReport) => void>();
  private healthDropped = 0;
  /** Per table, the last write whose outcome is unknown: its batch guid and its rows (by identity). */
  private readonly unresolved = new Map<EntityTarget<ObjectLiteral>, Unresolved>();

  constructor(
    private readonly queues: CaptureQueues,
    private readonly writer: CaptureWriter,
    private readonly reader: CaptureMetricReader | null,
    private readonly clock: Clock,
    private readonly options: CaptureFlushOptions,
  ) {}

  /** Starts the periodic flush (each one scheduled when the previous ends). */
  start(): void {
    this.stopped = false;
    this.schedule();
  }

  /** Stops the timer and runs one last flush (graceful shutdown). */
  async stop(): Promise<FlushReport> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const last = await this.flush();
    if (last.deferred) {
      const waiting = CAPTURE_QUEUE_IDS.reduce((n, id) => n + this.queues.queue(id).depth, 0);
      // Nothing later will write them: say so, loudly, with the count.
      this.logger.error(
        `Shutting down with ${waiting} capture rows and ${this.pendingHealth.length} CaptureQueueHealth rows unwritten: the database could not be written`,
      );
    }
    return last;
  }

  /** Calls `listener` after every flush with its report (streams push the health rows); returns an unsubscribe. */
  onFlushed(listener: (report: FlushReport) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Runs a flush after any flush in progress; never rejects. */
  flush(): Promise<FlushReport> {
    const run = this.chain
      .then(() => this.flushOnce())
      .then((report) => {
        for (const listener of this.listeners) {
          try {
            listener(report);
          } catch (err) {
            this.logger.error(`A flush listener failed: ${message(err)}`);
          }
        }
        return report;
      });
    // A defect here must not become an unhandled rejection (which would end the process) from the timer.
    const safe = run.catch((err: unknown): FlushReport => {
      this.logger.error(`Capture flush failed: ${message(err)}`);
      return {
        written: { 1: 0, 2: 0, 3: 0, 4: 0, 5: 0, 6: 0 },
        refused: 0,
        deferred: true,
        health: [],
        healthWritten: false,
      };
    });
    this.chain = safe;
    return safe;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.flush().finally(() => this.schedule());
    }, this.options.intervalMs);
    this.timer.unref();
  }

  private async flushOnce(): Promise<FlushReport> {
    const report: FlushReport = {
      written: { 1: 0, 2: 0, 3: 0, 4: 0, 5: 0, 6: 0 },
      refused: 0,
      deferred: false,
      health: [],
      healthWritten: false,
    };
    await this.collectMetrics();
    for (const id of CAPTURE_QUEUE_IDS) {
      const queue = this.queues.queue(id);
      if (report.deferred || queue.depth === 0) continue;
      const drained = queue.drain();
      let rows: object[];
      try {
        rows = await this.settle(CAPTURE_QUEUE_TABLES[id], drained);
      } catch (err) {
        report.deferred = true;
        queue.requeueFront(drained);
        this.logger.warn(`${drained.length} capture rows kept for the next flush: ${message(err)}`);
        continue;
      }
      // BACKGROUND_SLICE rows a write (a transaction and its ledger row each), the event loop given back in
      // between: a full queue of 20 000 rows in one statement held SQLite's synchronous driver for 165-239 ms.
      for (let from = 0; from < rows.length; from += BACKGROUND_SLICE) {
        if (from > 0) await nextTurn();
        const result = await this.write(CAPTURE_QUEUE_TABLES[id], rows.slice(from, from + BACKGROUND_SLICE));
        report.written[id] += result.written;
        report.refused += result.refused;
        queue.countDropped(result.refused);
        if (result.kept.length) {
          report.deferred = true;
          queue.requeueFront([...result.kept, ...rows.slice(from + BACKGROUND_SLICE)]);
          break;
        }
      }
    }
    // One consistent moment: every depth and dropped count read in the same synchronous step.
    const createdDate = new Date(this.clock.now());
    for (const id of CAPTURE_QUEUE_IDS) {
      const queue = this.queues.queue(id);
      const aggregating = id === CaptureQueueId.OpenTelemetryMetric ? this.queues.openTelemetrySeries : null;
      report.health.push({
        QueueId: id,
        QueueName: CAPTURE_QUEUE_NAMES[id],
        QueueDepth: queue.depth + (aggregating?.size ?? 0),
        DroppedCount: queue.takeDropped() + (aggregating?.takeDropped() ?? 0),
        CreatedDate: createdDate,
      });
    }
    this.pendingHealth.push(...report.health);
    if (this.pendingHealth.length > HEALTH_BACKLOG_LIMIT) {
      const excess = this.pendingHealth.length - HEALTH_BACKLOG_LIMIT;
      this.pendingHealth.splice(0, excess);
      this.healthDropped += excess;
      this.logger.error(`${this.healthDropped} CaptureQueueHealth rows dropped while the database was away`);
    }
    if (!report.deferred) {
      try {
        this.pendingHealth = await this.settle(CaptureQueueHealth, this.pendingHealth);
        const batch = randomUUID();
        try {
          await this.writer.insert(
            CaptureQueueHealth,
            this.pendingHealth,
            { Instance: this.options.instance },
            batch,
          );
        } catch (err) {
          this.unresolved.set(CaptureQueueHealth, { batch, rows: new Set(this.pendingHealth) });
          throw err;
        }
        this.pendingHealth = [];
        report.healthWritten = true;
      } catch (err) {
        report.deferred = true;
        this.logger.warn(`CaptureQueueHealth kept for the next flush: ${message(err)}`);
      }
    }
    return report;
  }

  /** Folds what the service measured since the last flush and moves it to the OpenTelemetryMetric queue. */
  private async collectMetrics(): Promise<void> {
    const series = this.queues.openTelemetrySeries;
    try {
      const collected = await this.reader?.collectDelta();
      if (collected) series.foldCollection(collected.resourceMetrics);
    } catch (err) {
      this.logger.warn(`Metric collection failed: ${message(err)}`);
    }
    for (const entry of series.drain(new Date(this.clock.now())))
      this.queues.openTelemetryMetric.enqueue(entry);
  }

  /**
   * The rows of `rows` still to write: when the table's last write failed with its outcome unknown, asks the
   * ledger whether it committed, and if it did leaves its rows out. Throws when the database cannot tell
   * (the rows are then kept, and the question asked again at the next flush).
   */
  private async settle<T extends object>(table: EntityTarget<ObjectLiteral>, rows: T[]): Promise<T[]> {
    const u = this.unresolved.get(table);
    if (!u) return rows;
    const landed = await this.writer.landed(u.batch);
    this.unresolved.delete(table);
    if (!landed) return rows;
    const rest = rows.filter((r) => !u.rows.has(r));
    this.logger.warn(
      `${rows.length - rest.length} capture rows had been committed by a write whose reply was lost: not written again`,
    );
    return rest;
  }

  /**
   * Writes rows; on a refusal of the rows themselves, halves the batch to isolate the refused row(s)
   * (each dropped, counted and logged); on any other failure keeps what is not yet written.
   */
  private async write(
    table: EntityTarget<ObjectLiteral>,
    rows: object[],
  ): Promise<{ written: number; refused: number; kept: object[] }> {
    if (rows.length === 0) return { written: 0, refused: 0, kept: [] };
    const batch = randomUUID();
    try {
      await this.writer.insert(table, rows, { Instance: this.options.instance }, batch);
      return { written: rows.length, refused: 0, kept: [] };
    } catch (err) {
      if (!isRowRefused(err)) {
        // It may have committed all the same: the next attempt settles it first.
        this.unresolved.set(table, { batch, rows: new Set(rows) });
        this.logger.warn(`${rows.length} capture rows kept for the next flush: ${message(err)}`);
        return { written: 0, refused: 0, kept: rows };
      }
      if (rows.length === 1) {
        this.logger.error(`A capture row was refused by the database and dropped: ${message(err)}`);
        return { written: 0, refused: 1, kept: [] };
      }
      const half = rows.length >> 1;
      const first = await this.write(table, rows.slice(0, half));
      if (first.kept.length) return { ...first, kept: [...first.kept, ...rows.slice(half)] };
      const second = await this.write(table, rows.slice(half));
      return {
        written: first.written + second.written,
        refused: first.refused + second.refused,
        kept: second.kept,
      };
    }
  }
}
