import { BACKGROUND_SLICE, nextTurn } from '@app/runtime';

/** What a SerialQueue's one consumer does with the items, in arrival order. */
export interface SerialConsumer<T> {
  /** The most items one call of `handle` takes (read before each batch, so it may be a setting). */
  batchSize(): number;
  /**
   * Asked before each batch is taken: a promise holds the consumer until it settles, and the items stay in
   * the queue meanwhile, so they still count in its depth (the Archiver waits here for room in its buffer).
   */
  ready?(): Promise<void> | undefined;
  /** Handles a batch. A synchronous handler costs no promise per batch. */
  handle(batch: T[]): Promise<void> | void;
  /** `handle` or `ready` threw: the queue goes on with the next batch, so the consumer reports it here. */
  failed(err: unknown, batch: readonly T[]): void;
}

/** Taken items are compacted away once this many sit at the front and they are most of the array. */
const COMPACT_AFTER = 1024;

/**
 * A first-in first-out queue consumed by ONE consumer at a time: items are taken in arrival order, in
 * batches of at most `batchSize()`, on a later turn than the push that woke the consumer, giving the event
 * loop back every BACKGROUND_SLICE items so a backlog never holds it for long. The queue itself is unbounded:
 * its owner bounds it (depth) before pushing. pause() holds the consumer; the items keep their place.
 */
export class SerialQueue<T> {
  private readonly items: T[] = [];
  private head = 0;
  private running = false;
  private paused = false;
  private readonly idleWaiters: (() => void)[] = [];

  constructor(private readonly consumer: SerialConsumer<T>) {}

  /** Items waiting (not yet taken by the consumer). */
  get depth(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
    this.wake();
  }

  /** Holds the consumer after the batch it is handling; the items stay queued. */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.wake();
  }

  /**
   * Resolves once the consumer has stopped with nothing it may take: the queue is empty, or paused (a paused
   * queue's waiters are answered when its consumer stops, not held until it resumes).
   */
  idle(): Promise<void> {
    if (!this.running && (this.depth === 0 || this.paused)) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private wake(): void {
    if (this.running || this.paused || this.depth === 0) return;
    this.running = true;
    setImmediate(() => void this.consume());
  }

  /** The next `n` items, in arrival order. */
  private take(n: number): T[] {
    const batch = this.items.slice(this.head, this.head + Math.max(1, n));
    this.items.fill(undefined as T, this.head, this.head + batch.length);
    this.head += batch.length;
    if (this.head > COMPACT_AFTER && this.head * 2 > this.items.length) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
    return batch;
  }

  private async consume(): Promise<void> {
    let sinceTurn = 0;
    try {
      while (this.depth > 0 && !this.paused) {
        if (sinceTurn >= BACKGROUND_SLICE) {
          sinceTurn = 0;
          await nextTurn();
          continue;
        }
        const waiting = this.waitForConsumer();
        if (waiting) {
          await waiting;
          continue;
        }
        const batch = this.take(this.consumer.batchSize());
        sinceTurn += batch.length;
        const pending = this.handle(batch);
        if (pending) await pending;
      }
    } finally {
      this.running = false;
      if (this.depth > 0 && !this.paused) this.wake();
      else for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  /**
   * The consumer's wait before the next batch, if it asked for one (never a promise when it did not, so the
   * common case costs no await). A wait that failed is reported and followed by a turn, so a consumer that
   * keeps failing cannot hold the loop.
   */
  private waitForConsumer(): Promise<void> | undefined {
    let waiting: Promise<void> | undefined;
    try {
      waiting = this.consumer.ready?.();
    } catch (err) {
      this.consumer.failed(err, []);
      return nextTurn();
    }
    return waiting?.catch((err: unknown) => {
      this.consumer.failed(err, []);
      return nextTurn();
    });
  }

  /** One batch; a synchronous handler is not awaited. */
  private handle(batch: T[]): Promise<void> | undefined {
    try {
      const pending = this.consumer.handle(batch);
      if (pending) return pending.catch((err: unknown) => this.consumer.failed(err, batch));
    } catch (err) {
      this.consumer.failed(err, batch);
    }
    return undefined;
  }
}
