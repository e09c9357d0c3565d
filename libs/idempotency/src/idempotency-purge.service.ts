import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { IDEMPOTENCY_SETTINGS, type IdempotencySettings } from '@app/config';
import { nextTurn } from '@app/runtime';
import { shortReason } from '@app/problems';
import { IDEMPOTENCY_STORE, type IdempotencyStore } from './idempotency-store';
import { DatabaseIdempotencyStore } from './database-idempotency-store';

/** Expired records one statement deletes: its ids fit any database's parameter limit (SQL Server: 2 100). */
const PURGE_BATCH = 1_000;

/**
 * Bounds the database store: every ArchivePurgeIntervalMilliseconds, expired records are deleted in batches,
 * giving the event loop back between two. Redis expires its records itself: nothing runs then.
 */
@Injectable()
export class IdempotencyPurgeService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('IdempotencyPurge');
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    @Inject(IDEMPOTENCY_STORE) private readonly store: IdempotencyStore,
    @Inject(IDEMPOTENCY_SETTINGS.token) private readonly settings: IdempotencySettings,
  ) {}

  onApplicationBootstrap(): void {
    if (this.store instanceof DatabaseIdempotencyStore) this.schedule(this.store);
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** Deletes every expired record of the database store; returns how many went. */
  async purge(store: DatabaseIdempotencyStore): Promise<number> {
    let deleted = 0;
    for (;;) {
      const n = await store.purgeExpired(PURGE_BATCH);
      deleted += n;
      if (n < PURGE_BATCH || this.stopped) return deleted;
      await nextTurn();
    }
  }

  private schedule(store: DatabaseIdempotencyStore): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.purge(store)
        .catch((err: unknown) =>
          this.logger.error({ err: shortReason(err) }, 'The Idempotency-Key purge failed'),
        )
        .finally(() => this.schedule(store));
    }, this.settings.ArchivePurgeIntervalMilliseconds);
    this.timer.unref();
  }
}
