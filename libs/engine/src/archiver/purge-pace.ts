import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/** Rest after a batch, as a multiple of the batch's time, when the node is idle: half of one connection. */
export const IDLE_REST_RATIO = 1;
/** The rest's multiple when the node is busy: a tenth of one connection, so the answers keep the machine. */
export const BUSY_REST_RATIO = 9;
/** Event-loop utilisation at or under which the node counts as idle, and at or over which as busy. */
export const IDLE_UTILISATION = 0.1;
export const BUSY_UTILISATION = 0.4;

/**
 * The rest's multiple for the node's event-loop utilisation since the last rest began (that rest and the batch after it): IDLE_REST_RATIO when
 * idle, BUSY_REST_RATIO when busy, in proportion between. The event loop's share is the node's own measure of
 * the requests it serves, read for free; the purge gives way to them and catches up when they stop.
 */
export function restRatio(utilisation: number): number {
  const share = (utilisation - IDLE_UTILISATION) / (BUSY_UTILISATION - IDLE_UTILISATION);
  const busy = Math.min(1, Math.max(0, share));
  return IDLE_REST_RATIO + busy * (BUSY_REST_RATIO - IDLE_REST_RATIO);
}

/** The pacing of one purge walk: after each batch, a rest of the batch's time × restRatio(utilisation). */
export class PurgePace {
  private mark: EventLoopUtilization;

  /** `loop`: the event loop's utilisation so far, Node's own unless given (a test's). */
  constructor(
    private readonly loop: (now?: EventLoopUtilization, mark?: EventLoopUtilization) => EventLoopUtilization = (
      now,
      mark,
    ) => performance.eventLoopUtilization(now, mark),
  ) {
    this.mark = this.loop();
  }

  /** Rests after a batch that took `tookMs`; answers the rest's length in ms. */
  async rest(tookMs: number): Promise<number> {
    const now = this.loop();
    const since = this.loop(now, this.mark);
    const ms = Math.max(1, tookMs * restRatio(since.utilization));
    this.mark = now;
    await new Promise((resolve) => setTimeout(resolve, ms));
    return ms;
  }
}
