/**
 * A fixed-capacity FIFO ring buffer for capture entries (spec: Events, queue mechanics).
 *
 * enqueue() is O(1), never blocks and never throws: the slots are allocated once, so adding an entry
 * stores one reference and moves two integers. When the queue holds its capacity the new entry is dropped
 * and counted; the flush reads and resets that count for CaptureQueueHealth.DroppedCount.
 */
export class BoundedQueue<T> {
  private readonly slots: (T | undefined)[];
  private head = 0;
  private size = 0;
  private dropped = 0;

  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1)
      throw new RangeError('capacity must be a positive integer');
    this.slots = new Array<T | undefined>(capacity).fill(undefined);
  }

  /** Entries waiting. */
  get depth(): number {
    return this.size;
  }

  get full(): boolean {
    return this.size === this.capacity;
  }

  /** Adds an entry; false (and counted) when the queue is full. */
  enqueue(entry: T): boolean {
    if (this.size === this.capacity) {
      this.dropped++;
      return false;
    }
    let tail = this.head + this.size;
    if (tail >= this.capacity) tail -= this.capacity;
    this.slots[tail] = entry;
    this.size++;
    return true;
  }

  /** Counts entries discarded outside enqueue (for example an aggregation over its series limit). */
  countDropped(n: number): void {
    if (n > 0) this.dropped += n;
  }

  /** Entries dropped since the previous call; resets the count. */
  takeDropped(): number {
    const n = this.dropped;
    this.dropped = 0;
    return n;
  }

  /** Removes and returns every waiting entry, oldest first. */
  drain(): T[] {
    const out = new Array<T>(this.size);
    for (let i = 0; i < out.length; i++) {
      let at = this.head + i;
      if (at >= this.capacity) at -= this.capacity;
      out[i] = this.slots[at] as T;
      this.slots[at] = undefined;
    }
    this.head = 0;
    this.size = 0;
    return out;
  }

  /**
   * Puts entries that could not be written back in front of those that arrived meanwhile, keeping the
   * order. Beyond capacity the oldest entries (the front of `entries`) are dropped and counted.
   */
  requeueFront(entries: readonly T[]): void {
    const room = this.capacity - this.size;
    const keep = Math.min(room, entries.length);
    this.dropped += entries.length - keep;
    for (let i = entries.length - 1; i >= entries.length - keep; i--) {
      this.head = this.head === 0 ? this.capacity - 1 : this.head - 1;
      this.slots[this.head] = entries[i];
      this.size++;
    }
  }
}
