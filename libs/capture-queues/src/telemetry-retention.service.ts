import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { EntityTarget, ObjectLiteral } from 'typeorm';
import { type DatabaseProvider, CAPTURE_QUEUE_SETTINGS, type CaptureQueueSettings } from '@app/config';
import { CaptureRepository } from './capture.repository';
import { CAPTURE_ENTITIES } from './entities';

/**
 * Rows deleted per statement, and statements per table per run: bounded work, short locks. SQL Server
 * escalates a statement's row locks to a table lock at 5000 locks on one object (blocking every capture
 * write and grid read of that table), so its batches stay below that, page locks included. SQLite's driver
 * runs a statement on the event loop itself: 1 000 rows keeps each delete to a few milliseconds (40 a run
 * still trim two full capture queues a minute).
 */
export const RETENTION_BATCH: Readonly<Record<DatabaseProvider, number>> = {
  sqlite: 1_000,
  postgres: 5_000,
  mssql: 4_000,
};
export const RETENTION_BATCHES_PER_RUN = 40;

/** spec: UserLogin rule 4 and UserLogout rule 3 — the audit trails are never purged. */
const NEVER_TRIMMED = new Set(['UserLogin', 'UserLogout']);

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Keeps each telemetry table at its newest TelemetryRetentionRows rows (spec: each grid holds the last
 * 100000), deleting older rows in the background in bounded batches. Tables join by register(); the capture
 * tables are registered here, other telemetry tables (the stage rollups) register from their own module.
 * A table must have an ever-growing Id.
 */
@Injectable()
export class TelemetryRetention implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('TelemetryRetention');
  private readonly tables = new Set<EntityTarget<ObjectLiteral>>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | null = null;
  private stopped = false;

  constructor(
    private readonly repository: CaptureRepository,
    @Inject(CAPTURE_QUEUE_SETTINGS.token) private readonly settings: CaptureQueueSettings,
  ) {
    for (const entity of CAPTURE_ENTITIES) this.register(entity);
  }

  /** Adds a telemetry table to the trim. Refuses the permanent audit trails. */
  register(table: EntityTarget<ObjectLiteral>): void {
    const name = typeof table === 'function' ? table.name : typeof table === 'string' ? table : '';
    if (NEVER_TRIMMED.has(name)) throw new Error(`${name} is a permanent audit trail and is never trimmed`);
    this.tables.add(table);
  }

  onApplicationBootstrap(): void {
    this.schedule();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /** One trim pass over every registered table (runs are never concurrent); returns rows deleted. */
  trimAll(): Promise<number> {
    this.running ??= this.trimPass().finally(() => (this.running = null));
    return this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.trimAll().finally(() => this.schedule());
    }, this.settings.TelemetryRetentionIntervalMilliseconds);
    this.timer.unref();
  }

  private async trimPass(): Promise<number> {
    let total = 0;
    const batch = RETENTION_BATCH[this.repository.provider];
    for (const table of this.tables) {
      try {
        for (let i = 0; i < RETENTION_BATCHES_PER_RUN && !this.stopped; i++) {
          const deleted = await this.repository.trimOldest(
            table,
            this.settings.TelemetryRetentionRows,
            batch,
          );
          total += deleted;
          if (deleted < batch) break;
          // Let requests and the flush run between batches.
          await new Promise<void>((r) => setImmediate(r));
        }
      } catch (err) {
        this.logger.warn(`Retention trim failed, retried next time: ${message(err)}`);
      }
    }
    return total;
  }
}
