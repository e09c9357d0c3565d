import { nextTurn } from '@app/runtime';
import { Problems } from '@app/problems';

/**
 * A read is large when it may answer more rows than this (a grid answer's `take`, a CSV export's rows): it is
 * streamed in batches and takes a turn of the node's large reads. Smaller answers are read in one statement
 * and cached, as before.
 */
export const LARGE_READ_ROWS = 1_000;

/** Reads waiting for a turn beyond which another one is refused at once (a wait is cheap, but not free). */
export const LARGE_READ_QUEUE = 64;

/** Retry-After of a large read refused for want of a turn: about one large read's time. */
export const LARGE_READ_RETRY_SECONDS = 5;

/** The share of the event loop the running large reads take together, at most (about): the rest is the node's. */
export const LARGE_READ_SHARE = 0.5;

/** The longest pause between two batches of a large read. */
const MAX_PAUSE_MS = 250;

/** Given back exactly once, however often it is called. */
export type Release = () => void;

/**
 * The node's turns of large reads: at most `concurrency` run at once; the others wait in arrival order up
 * to `waitMs` (and at most LARGE_READ_QUEUE of them), then are refused with a 503 problem and Retry-After.
 * In memory, per node: each node protects its own event loop and memory.
 */
export class LargeReadLimit {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  /** Reads refused since the start (for tests and the bench). */
  refused = 0;

  constructor(
    private readonly concurrency: number,
    private readonly waitMs: number,
  ) {}

  /** How many large reads run now, and how many wait. */
  get state(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /**
   * The pause after a batch that took `spentMs` to read and write out: long enough that the running large reads
   * together use about LARGE_READ_SHARE of the time, whatever their number (each read's share is divided
   * among them), so cheap requests always find the loop free half of the time.
   */
  pause(spentMs: number): Promise<void> {
    const ms = Math.min(MAX_PAUSE_MS, spentMs * (Math.max(1, this.running) / LARGE_READ_SHARE - 1));
    return ms >= 1 ? new Promise((resolve) => setTimeout(resolve, ms)) : nextTurn();
  }

  /** A turn, once one is free; a 503 problem when none came within the wait. */
  async acquire(): Promise<Release> {
    if (this.running < this.concurrency && this.waiting.length === 0) {
      this.running++;
      return this.releaser();
    }
    if (this.waiting.length >= LARGE_READ_QUEUE || this.waitMs <= 0) throw this.refuse();
    let timer: NodeJS.Timeout | undefined;
    let turn!: () => void;
    const granted = await new Promise<boolean>((resolve) => {
      turn = () => resolve(true);
      this.waiting.push(turn);
      timer = setTimeout(() => resolve(false), this.waitMs);
    });
    clearTimeout(timer);
    if (!granted) {
      const i = this.waiting.indexOf(turn);
      if (i >= 0) this.waiting.splice(i, 1);
      else this.releaser()(); // handed a turn as the wait ended: pass it on
      throw this.refuse();
    }
    return this.releaser();
  }

  /** A turn handed to the next in line (the count stays), or given back. */
  private releaser(): Release {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    };
  }

  private refuse() {
    this.refused++;
    return Problems.unavailable(
      `This node already serves ${this.concurrency} large reads (more than ${LARGE_READ_ROWS} rows); try again shortly, or ask for fewer rows (take).`,
      LARGE_READ_RETRY_SECONDS,
    );
  }
}
