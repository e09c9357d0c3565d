/**
 * How much background work (a pipeline's batch, a flush) does in one turn of the event loop: at most this many
 * items, so that no turn holds the loop for more than a few milliseconds and every answer waiting behind it
 * goes out in between (docs/performance.md, "Latency").
 */
export const BACKGROUND_SLICE = 256;

/** Resolves on a later turn of the event loop, after the I/O waiting now: background work gives the loop back. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * `work` over consecutive slices of at most `size` items, in order, one at a time, giving the loop back
 * between two slices; the answers in slice order.
 */
export async function inSlices<T, R>(
  items: readonly T[],
  work: (slice: T[], offset: number) => R | Promise<R>,
  size = BACKGROUND_SLICE,
): Promise<R[]> {
  const out: R[] = [];
  for (let from = 0; from < items.length; from += size) {
    if (from > 0) await nextTurn();
    out.push(await work(items.slice(from, from + size), from));
  }
  return out;
}
