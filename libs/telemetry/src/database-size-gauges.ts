import { Logger } from '@nestjs/common';
import type { Meter } from '@opentelemetry/api';
import { shortReason } from '@app/problems';
import type { DatabaseSizeRepository, DatabaseSizes } from '@app/database';

/** The tables an operator watches grow: the archive and cases, the administrators' trail and the audits, the telemetry tables. */
export const SIZED_TABLES = [
  'EntityAnalysisModelArchive',
  'Case',
  'AdminEvent',
  'UserLogin',
  'UserLogout',
  'ArchiverStagePerformanceCounter',
  'CaseCreationStagePerformanceCounter',
  'ArchiverWarning',
  'CaseCreationWarning',
  'ModelInvokeWarning',
  'CaptureQueueHealth',
  'CacheSentinelEvent',
  'CacheConnectionEvent',
  'OpenTelemetryMetric',
  'CaptureBatch',
] as const;

/** The sizes are read from the database's statistics at most this often. */
export const DATABASE_SIZE_REFRESH_MS = 60_000;

export const DATABASE_SIZE_GAUGES = {
  tableRows: 'service.database.table.rows',
  tableSize: 'service.database.table.size',
  size: 'service.database.size',
} as const;

/**
 * Rows and bytes per table, and the database's size, read from the database's own statistics once a minute
 * (DatabaseSizeRepository: never a count), exported as gauges of the last reading (every reader sees the same)
 * and answered by GET /api/Runtime.
 */
export class DatabaseSizeGauges {
  private readonly logger = new Logger('DatabaseSizes');
  private timer?: NodeJS.Timeout;
  private last: (DatabaseSizes & { readAt: number }) | null = null;
  private reading: Promise<void> | null = null;

  constructor(
    private readonly repository: DatabaseSizeRepository,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), DATABASE_SIZE_REFRESH_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** The last reading (null before the first has ended). */
  lastReading(): (DatabaseSizes & { readAt: number }) | null {
    return this.last;
  }

  /** Reads the sizes now (one read at a time); a failure keeps the last reading, logged. */
  refresh(): Promise<void> {
    this.reading ??= this.repository
      .read(SIZED_TABLES)
      .then((sizes) => {
        this.last = { ...sizes, readAt: this.now() };
      })
      .catch((err: unknown) =>
        this.logger.warn(
          { err: shortReason(err) },
          'Reading the database sizes failed; the last reading stays',
        ),
      )
      .finally(() => (this.reading = null));
    return this.reading;
  }

  observeOn(meter: Meter): void {
    const rows = meter.createObservableGauge(DATABASE_SIZE_GAUGES.tableRows, {
      unit: '{row}',
      description: "A table's rows, as its database's statistics estimate them (read once a minute).",
    });
    const bytes = meter.createObservableGauge(DATABASE_SIZE_GAUGES.tableSize, {
      unit: 'By',
      description: "A table's size with its indexes (read once a minute; not on SQLite).",
    });
    const total = meter.createObservableGauge(DATABASE_SIZE_GAUGES.size, {
      unit: 'By',
      description: 'The whole database (read once a minute).',
    });
    meter.addBatchObservableCallback(
      (result) => {
        const last = this.last;
        if (!last) return;
        if (last.bytes !== null) result.observe(total, last.bytes);
        for (const t of last.tables) {
          if (t.rows !== null) result.observe(rows, t.rows, { table: t.table });
          if (t.bytes !== null) result.observe(bytes, t.bytes, { table: t.table });
        }
      },
      [rows, bytes, total],
    );
  }
}
