import { Logger } from '@nestjs/common';
import type { ServerResponse } from 'node:http';

const logger = new Logger('GridAnswer');

/** An answer produced chunk by chunk (a streamed grid answer, a CSV export), and how to give its read back. */
export interface ChunkedAnswer {
  chunks(): AsyncGenerator<string>;
  close(): Promise<void>;
}

/** Resolves once `res` can take more (its buffer drained) or has gone. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}

/**
 * Sends `answer` as it is produced, with backpressure: the next chunk is asked for only once the previous one
 * was taken by the socket. Nothing is sent before the first chunk exists, so a refusal until then is still a
 * problem answer (thrown); `start` then sets the status and headers. A failure after that cannot become a
 * problem: the connection is cut, so the client sees an incomplete answer, never a short one that looks whole.
 * A client that leaves stops the reading. The read is given back in every case.
 */
export async function sendChunked(
  res: ServerResponse,
  answer: ChunkedAnswer,
  start: () => void,
): Promise<void> {
  const chunks = answer.chunks();
  try {
    const first = await chunks.next();
    start();
    if (!first.done) res.write(first.value);
    for await (const chunk of chunks) {
      if (res.destroyed) break;
      if (!res.write(chunk)) await drained(res);
    }
    if (!res.destroyed) res.end();
  } catch (err) {
    if (!res.headersSent) throw err;
    logger.warn({ err }, 'A streamed answer failed after it began: its connection was cut');
    res.destroy();
  } finally {
    await chunks.return(undefined);
    await answer.close();
  }
}
