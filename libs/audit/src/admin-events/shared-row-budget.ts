import { Logger } from '@nestjs/common';
import type Redis from 'ioredis';
import { TimeoutError, withTimeout } from '@app/runtime';

/** How long a Redis answer may take before this node decides alone. */
const SHARED_BUDGET_TIMEOUT_MS = 250;

/**
 * How many refusal rows one actor may open in one window across every node: a Redis counter per actor and
 * window (INCR, living two windows), so the bound holds for the whole cluster. When Redis cannot answer in time,
 * or there is none, the node decides alone: the caller's own bound per node still holds, so a row is written
 * rather than lost (as SharedWindow does for the sign-out window).
 */
export class SharedRowBudget {
  private readonly logger = new Logger('SharedRowBudget');
  /** The window whose Redis failure was logged last: one line a window, not one per row. */
  private warnedWindow = -1;

  constructor(
    private readonly redis: Redis | null,
    private readonly keyPrefix: string,
    readonly windowMs: number,
    readonly limit: number,
  ) {}

  /** Whether `actorGuid` may open one more row in window `window` (its index: instant ÷ windowMs). */
  async take(actorGuid: string, window: number): Promise<boolean> {
    if (!this.redis) return true;
    const key = `${this.keyPrefix}${window}:${actorGuid}`;
    try {
      const answers = await withTimeout(
        this.redis.multi().incr(key).pexpire(key, 2 * this.windowMs).exec(),
        SHARED_BUDGET_TIMEOUT_MS,
        'Redis INCR',
      );
      const [err, taken] = answers?.[0] ?? [new Error('no answer'), null];
      if (err) throw err;
      return Number(taken) <= this.limit;
    } catch (err) {
      if (this.warnedWindow !== window) {
        this.warnedWindow = window;
        this.logger.warn(
          err instanceof TimeoutError
            ? `Redis did not answer in time: this node bounds ${this.keyPrefix} alone this minute`
            : `Redis refused ${this.keyPrefix} (${err instanceof Error ? err.message : String(err)}): this node bounds it alone this minute`,
        );
      }
      return true;
    }
  }
}
