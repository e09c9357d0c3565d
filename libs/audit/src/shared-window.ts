import { Logger } from '@nestjs/common';
import type Redis from 'ioredis';
import { TimeoutError, withTimeout } from '@app/runtime';
import { AddressWindow } from './address-window';

/** How long a Redis answer may take before this node decides alone. */
const SHARED_WINDOW_TIMEOUT_MS = 250;

/**
 * "At most once per window per key" across every node: this node's bounded window first (AddressWindow), then
 * Redis (SET NX with the window as its lifetime: the first node to set the key admits it). When Redis cannot
 * answer in time the node decides alone, so a row is written rather than lost (the sign-out window's rule).
 */
export class SharedWindow {
  private readonly logger = new Logger('SharedWindow');
  private readonly local: AddressWindow;

  constructor(
    private readonly redis: Redis | null,
    private readonly keyPrefix: string,
    readonly windowMs: number,
    capacity: number,
  ) {
    this.local = new AddressWindow(windowMs, capacity);
  }

  async admit(key: string, now: number): Promise<boolean> {
    if (!this.local.admit(key, now)) return false;
    if (!this.redis) return true;
    try {
      const answer = await withTimeout(
        this.redis.set(`${this.keyPrefix}${key}`, '1', 'PX', this.windowMs, 'NX'),
        SHARED_WINDOW_TIMEOUT_MS,
        'Redis SET',
      );
      return answer === 'OK';
    } catch (err) {
      this.logger.warn(
        err instanceof TimeoutError
          ? `Redis did not answer in time: this node applies ${this.keyPrefix} alone`
          : `Redis refused ${this.keyPrefix} (${err instanceof Error ? err.message : String(err)}): this node applies it alone`,
      );
      return true;
    }
  }
}
