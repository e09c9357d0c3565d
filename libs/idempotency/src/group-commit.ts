import { chunked } from '@app/database';

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/** The waiters of one row: every caller that added an item of its key, and the item written (the last added). */
interface Row<T, R> {
  item: T;
  waiters: Waiting<T, R>[];
}

/**
 * Group commit: the items added within one turn of the event loop are written together, at the next check
 * phase (setImmediate), `maxRows` at most per write. `write` answers one result per item, in order; each caller's
 * promise settles when its own write has committed (with its result) or failed (with the write's error, as a
 * statement of its own would have). Nothing waits for a timer: under load the requests one turn reads are one
 * batch; alone, a request waits for nothing but the end of its turn.
 *
 * With `keyOf`, items of one key in a turn are one row: the last added is written and every caller of the key
 * gets that write's result. The writes of one turn run at once (on a pool, each on its own connection), so two
 * rows of one key in two writes could commit in either order; one row per key leaves no order to lose.
 */
export class GroupCommit<T, R> {
  private waiting: Waiting<T, R>[] = [];

  constructor(
    private readonly write: (items: readonly T[]) => Promise<readonly R[]>,
    private readonly maxRows: number,
    private readonly keyOf?: (item: T) => string,
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      if (this.waiting.push({ item, resolve, reject }) === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const batch = this.waiting;
    this.waiting = [];
    for (const chunk of chunked(this.rows(batch), this.maxRows)) {
      // a write that throws at once fails its chunk like one that rejects
      void Promise.resolve()
        .then(() => this.write(chunk.map((row) => row.item)))
        .then(
          (results) => chunk.forEach((row, i) => row.waiters.forEach((w) => w.resolve(results[i]))),
          (error: unknown) => chunk.forEach((row) => row.waiters.forEach((w) => w.reject(error))),
        );
    }
  }

  private rows(batch: Waiting<T, R>[]): Row<T, R>[] {
    const keyOf = this.keyOf;
    if (!keyOf) return batch.map((w) => ({ item: w.item, waiters: [w] }));
    const byKey = new Map<string, Row<T, R>>();
    for (const w of batch) {
      const key = keyOf(w.item);
      const row = byKey.get(key);
      if (row) {
        row.item = w.item;
        row.waiters.push(w);
      } else byKey.set(key, { item: w.item, waiters: [w] });
    }
    return [...byKey.values()];
  }
}
