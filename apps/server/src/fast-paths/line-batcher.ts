import type { DestinationStream } from 'pino';

/** Longest time a request line waits in its batch before it is written (on a quiet service). */
export const LOG_FLUSH_MILLISECONDS = 250;

/** What every line batcher still holds, written out when the process exits (the exit listener: once). */
const pendingBatches = new Set<() => void>();

function writePendingBatches(): void {
  for (const flush of pendingBatches) flush();
}

/**
 * Characters of request lines a batcher collects before it hands them to the destination in one write: just under
 * sonic-boom's largest write (16 KiB), so a batch leaves in one `write(2)`.
 */
export const REQUEST_LINE_BATCH = 16_000;

/**
 * Fast path (README.md, "request-line batching"): request lines handed to `stream` in batches, never one write per line: each write is a system call, and pino's
 * destination measures what it is given (Buffer.byteLength) on every write.
 * - `batch` > 0: the lines wait until `batch` characters are pending, or LOG_FLUSH_MILLISECONDS after the first
 *   of them: one write for about 70 lines under load, a line at most LOG_FLUSH_MILLISECONDS late when the service
 *   is quiet. (`npm run bench:request-lines` prints what a line costs each way.)
 * - `batch` 0: the lines of one event-loop turn, in one write at the end of the turn (setImmediate): for a
 *   terminal, where a person reads them as they come.
 * The application's own lines may come before the request lines written around them (each line carries its
 * time). When the process exits (normally, on a handled signal, on an uncaught error) what a batch holds is
 * written before it ends; with a synchronous destination it leaves after every line written earlier.
 */
export function lineBatcher(stream: DestinationStream, batch = 0): (text: string) => void {
  let pending = '';
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (!pending) return;
    const text = pending;
    pending = '';
    stream.write(text);
  };
  const late = () => {
    timer = undefined;
    flush();
  };
  if (pendingBatches.size === 0) process.on('exit', writePendingBatches);
  pendingBatches.add(flush);
  if (batch <= 0)
    return (text) => {
      if (!pending) setImmediate(flush);
      pending += text;
    };
  return (text) => {
    pending += text;
    if (pending.length >= batch) flush();
    else timer ??= setTimeout(late, LOG_FLUSH_MILLISECONDS).unref();
  };
}
