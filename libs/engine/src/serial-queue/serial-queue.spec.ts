import { BACKGROUND_SLICE } from '@app/runtime';
import { SerialConsumer, SerialQueue } from './serial-queue';

/** A consumer that records what it was handed; each hook can be replaced per test. */
function recorder(overrides: Partial<SerialConsumer<number>> = {}) {
  const batches: number[][] = [];
  const failures: { err: unknown; batch: readonly number[] }[] = [];
  const consumer: SerialConsumer<number> = {
    batchSize: () => 3,
    handle: (batch) => {
      batches.push(batch);
    },
    failed: (err, batch) => failures.push({ err, batch }),
    ...overrides,
  };
  return { batches, failures, queue: new SerialQueue(consumer) };
}

/** A promise and the function that settles it, so a test decides when a handler's work ends. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('SerialQueue', () => {
  it('hands the items over in arrival order, in batches of at most batchSize, on a later turn', async () => {
    const { batches, queue } = recorder();
    for (let i = 1; i <= 7; i++) queue.push(i);
    expect(batches).toEqual([]);
    expect(queue.depth).toBe(7);
    await queue.idle();
    expect(batches).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
    expect(queue.depth).toBe(0);
  });

  it('runs one batch at a time: items pushed while a batch is handled wait for the next one', async () => {
    const first = gate();
    let inFlight = 0;
    let most = 0;
    const seen: number[][] = [];
    const { queue } = recorder({
      handle: async (batch) => {
        seen.push(batch);
        most = Math.max(most, ++inFlight);
        if (batch[0] === 1) await first.promise;
        inFlight--;
      },
    });
    queue.push(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual([[1]]);
    queue.push(2);
    queue.push(3);
    expect(queue.depth).toBe(2);
    first.open();
    await queue.idle();
    expect(seen).toEqual([[1], [2, 3]]);
    expect(most).toBe(1);
  });

  it('idle() resolves at once when nothing is queued, and after the last batch otherwise', async () => {
    const { batches, queue } = recorder();
    await expect(queue.idle()).resolves.toBeUndefined();
    queue.push(1);
    const idle = queue.idle();
    await idle;
    expect(batches).toEqual([[1]]);
  });

  it('a batch that throws or rejects is reported with its items and the queue goes on', async () => {
    const boom = new Error('boom');
    const { failures, batches, queue } = recorder({
      batchSize: () => 1,
      handle: (batch) => {
        if (batch[0] === 1) throw boom;
        if (batch[0] === 2) return Promise.reject(boom);
        batches.push(batch);
      },
    });
    [1, 2, 3].forEach((i) => queue.push(i));
    await queue.idle();
    expect(failures).toEqual([
      { err: boom, batch: [1] },
      { err: boom, batch: [2] },
    ]);
    expect(batches).toEqual([[3]]);
  });

  it('pause() holds the consumer with the items in place; resume() lets it go on in order', async () => {
    const { batches, queue } = recorder({ batchSize: () => 2 });
    queue.pause();
    [1, 2, 3].forEach((i) => queue.push(i));
    await queue.idle();
    expect(batches).toEqual([]);
    expect(queue.depth).toBe(3);
    queue.resume();
    await queue.idle();
    expect(batches).toEqual([[1, 2], [3]]);
  });

  it('pausing during a batch stops after that batch and answers the idle waiters', async () => {
    const { batches, queue } = recorder({
      batchSize: () => 1,
      handle: (batch) => {
        batches.push(batch);
        if (batch[0] === 2) queue.pause();
      },
    });
    [1, 2, 3, 4].forEach((i) => queue.push(i));
    await queue.idle();
    expect(batches).toEqual([[1], [2]]);
    expect(queue.depth).toBe(2);
    queue.resume();
    await queue.idle();
    expect(batches).toEqual([[1], [2], [3], [4]]);
  });

  it('ready() holds the next batch with its items still counted, and is asked again when it settles', async () => {
    const room = gate();
    let asked = 0;
    let full = true;
    const { batches, queue } = recorder({
      ready: () => {
        asked++;
        return full ? room.promise : undefined;
      },
    });
    [1, 2].forEach((i) => queue.push(i));
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([]);
    expect(queue.depth).toBe(2);
    full = false;
    room.open();
    await queue.idle();
    expect(batches).toEqual([[1, 2]]);
    expect(asked).toBe(2);
  });

  it('a ready() that fails is reported with no items, and the items are handled once it stops failing', async () => {
    const boom = new Error('no room');
    let failing = 2;
    const { batches, failures, queue } = recorder({
      ready: () => (failing-- > 0 ? Promise.reject(boom) : undefined),
    });
    queue.push(1);
    await queue.idle();
    expect(failures).toEqual([
      { err: boom, batch: [] },
      { err: boom, batch: [] },
    ]);
    expect(batches).toEqual([[1]]);
  });

  it('gives the event loop back every BACKGROUND_SLICE items of a synchronous backlog', async () => {
    const handledBeforeTurn: number[] = [];
    let handled = 0;
    const { queue } = recorder({ batchSize: () => 1, handle: () => void handled++ });
    const items = BACKGROUND_SLICE * 2 + 1;
    for (let i = 0; i < items; i++) queue.push(i);
    // Each check runs on a turn of its own: it sees how far the consumer got between two turns.
    const watch = (): void => {
      handledBeforeTurn.push(handled);
      if (handled < items) setImmediate(watch);
    };
    setImmediate(watch);
    await queue.idle();
    const steps = handledBeforeTurn.map((n, i) => n - (handledBeforeTurn[i - 1] ?? 0));
    expect(Math.max(...steps)).toBeLessThanOrEqual(BACKGROUND_SLICE);
    expect(handled).toBe(items);
  });

  it('keeps the order when taken items are compacted away while more arrive', async () => {
    const seen: number[] = [];
    const { queue } = recorder({
      batchSize: () => 100,
      handle: (batch) => {
        seen.push(...batch);
        // More items arrive while the consumer is past the point where the taken ones are compacted away.
        if (batch[0] === 2_000) for (let i = 3_000; i < 4_000; i++) queue.push(i);
      },
    });
    for (let i = 0; i < 3_000; i++) queue.push(i);
    await queue.idle();
    expect(seen).toEqual(Array.from({ length: 4_000 }, (_, i) => i));
    expect(queue.depth).toBe(0);
  });
});
