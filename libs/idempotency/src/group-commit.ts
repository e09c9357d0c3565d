import { chunked } from '@app/database';

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: the items added within one turn of the event loop are written together, at the next check
 * phase (setImmediate), `maxRows` at most per write. `write` answers one result per item, in order; each caller's
 * promise settles when its own write has committed (with its result) or failed (with the write's error, as a
 * statement of its own would have). Nothing waits for a timer: under load the requests one turn reads are one
 * batch; alone, a request waits for nothing but the end of its turn.
 */
export class GroupCommit<T, R> {
  private waiting: Waiting<T, R>[] = [];

  constructor(
    private readonly write: (items: readonly T[]) => Promise<readonly R[]>,
    private readonly maxRows: number,
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      if (this.waiting.push({ item, resolve, reject }) === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const batch = this.waiting;
    this.waiting = [];
    for (const chunk of chunked(batch, this.maxRows)) {
      // a write that throws at once fails its chunk like one that rejects
      void Promise.resolve()
        .then(() => this.write(chunk.map((w) => w.item)))
        .then(
          (results) => chunk.forEach((w, i) => w.resolve(results[i])),
          (error: unknown) => chunk.forEach((w) => w.reject(error)),
        );
    }
  }
}
