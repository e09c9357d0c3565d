import { performance } from 'node:perf_hooks';
import { Problems } from '@app/problems';
import type { GridDefinition } from './grid-definition';
import type { GridEngine, GridHead, GridResponse, GridScope, GridSession } from './grid-engine';
import type { GridQuery } from './grid-query';
import { gridNext, type GridNext } from './grid-next';
import type { Release } from './large-reads';

/**
 * Characters a chunk of a streamed answer holds at most (about): a string above V8's regular object size
 * (128 kB) is allocated among the large objects, freed only by a full collection, and a batch's whole JSON
 * (about 180 kB for AdminEvent) made the heap and RSS grow with every batch until one ran.
 */
export const CHUNK_CHARS = 32_768;

type Row = Record<string, unknown>;

/** What batchText carries from one batch to the next: the opening not yet sent, and whether a row was written. */
interface TextState {
  opening: string;
  first: boolean;
}

/** A batch's text as chunks of about CHUNK_CHARS, the opening first; null when the batches have ended. */
async function nextChunks(
  batches: AsyncGenerator<Row[]>,
  state: TextState,
  render: (row: Row, first: boolean) => string,
): Promise<string[] | null> {
  const batch = await batches.next();
  if (batch.done) return null;
  const out: string[] = [];
  let chunk = state.opening;
  state.opening = '';
  for (const row of batch.value) {
    chunk += render(row, state.first);
    state.first = false;
    if (chunk.length >= CHUNK_CHARS) {
      out.push(chunk);
      chunk = '';
    }
  }
  if (chunk) out.push(chunk);
  return out;
}

/**
 * The text of row batches (a streamed answer's rows, a CSV export's records), chunk by chunk: `opening` first
 * (sent even when there is no row), each row as `render` writes it, and after each batch a `pace` by the time
 * the batch took to read and write. A batch's rows are turned into text inside nextChunks, so no row outlives
 * its batch's reading while the text is written (they die young, instead of filling the old generation).
 */
export async function* batchText(
  batches: AsyncGenerator<Row[]>,
  opening: string,
  render: (row: Row, first: boolean) => string,
  pace: (spentMs: number) => Promise<void>,
): AsyncGenerator<string> {
  const state: TextState = { opening, first: true };
  for (;;) {
    const started = performance.now();
    const out = await nextChunks(batches, state, render);
    if (!out) break;
    const spent = performance.now() - started;
    yield* out;
    await pace(spent);
  }
  if (state.opening) yield state.opening;
}

/** A large grid answer, produced chunk by chunk as it is sent: the JSON text `{ rows, total, statistics }`. */
export interface GridStream {
  /**
   * The answer's text in order: the first chunk holds `{"rows":[` and the first batch (read before anything
   * is sent, so a refusal is still a problem answer), the last one the total, statistics and sample.
   */
  chunks(): AsyncGenerator<string>;
  /** Gives the read's turn and connection back (idempotent; the chunks' end does it too). */
  close(): Promise<void>;
}

/** A grid answer: whole (small reads, cached), or streamed (large reads). */
export type GridAnswer = { response: GridResponse } | { stream: GridStream };

/**
 * True when a statement was cancelled by its time limit: PostgreSQL's statement_timeout (57014,
 * query_canceled) or SQL Server's request timeout (node-mssql ETIMEOUT).
 */
export function isStatementTimeout(error: unknown): boolean {
  const e = error as { code?: unknown; driverError?: { code?: unknown } } | null;
  return [e?.code, e?.driverError?.code].some((c) => c === '57014' || c === 'ETIMEOUT');
}

/** A read that ran out of time as a 503 problem with Retry-After; any other error as it is. */
export function timeoutProblem(error: unknown, timeoutMs: number): unknown {
  if (!isStatementTimeout(error)) return error;
  return Problems.unavailable(
    `The read took longer than ${timeoutMs} ms (GridStatementTimeoutMilliseconds) and was cancelled; try again, or narrow from and to or filter.`,
  );
}

/** The text after the rows: `],"total":…,"statistics":…[,"sample":…],"next":…}`, as JSON.stringify writes the whole. */
function tailOf(head: GridHead, next: GridNext | null): string {
  const rest = JSON.stringify({
    total: head.total,
    statistics: head.statistics,
    ...(head.sample ? { sample: head.sample } : {}),
    next,
  });
  return `],${rest.slice(1)}`;
}

/**
 * A large read streamed: its head (total, statistics; a sort refused) read now, through `session`; its rows
 * by keyset batches as the chunks are asked for, each batch's JSON written from its rows, then `pace`d by the
 * time the batch took to read and write (the node's share of the loop: LargeReadLimit.pause). `release` and the session are given back when the chunks end, fail or are closed; and now,
 * should the head fail.
 */
export async function streamedAnswer(
  engine: GridEngine,
  read: { def: GridDefinition; q: GridQuery; scope: GridScope; seed: number | null },
  session: GridSession,
  release: Release,
  timeoutMs: number,
  pace: (spentMs: number) => Promise<void>,
): Promise<GridStream> {
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    try {
      await session.release();
    } finally {
      release();
    }
  };
  const { def, q, scope, seed } = read;
  let head: GridHead;
  try {
    head = await engine.head(def, q, scope, seed, session.query);
  } catch (err) {
    await close();
    throw timeoutProblem(err, timeoutMs);
  }
  async function* chunks(): AsyncGenerator<string> {
    try {
      const batches = engine.rowBatches(def, q, scope, seed, q.take, session.query);
      // The last row and the count, for the next page (the rows themselves are not kept).
      let last: Row | undefined;
      let count = 0;
      const rows = batchText(
        batches,
        '{"rows":[',
        (row, first) => {
          last = row;
          count++;
          return (first ? '' : ',') + JSON.stringify(row);
        },
        pace,
      );
      yield* rows;
      yield tailOf(head, gridNext(def, q, { last, count, total: head.total }));
    } catch (err) {
      throw timeoutProblem(err, timeoutMs);
    } finally {
      await close();
    }
  }
  return { chunks, close };
}
