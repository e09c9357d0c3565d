import { Logger } from '@nestjs/common';
import type { EntityTarget, ObjectLiteral } from 'typeorm';
import { ManualClock } from '@app/runtime';
import { CaptureFlusher } from './capture-flusher';
import { CAPTURE_QUEUE_CAPACITY, CaptureQueueId } from './capture-queue-id';
import { CaptureQueues } from './capture-queues.service';
import { CaptureWriter } from './capture.repository';
import { CaptureQueueHealth, ModelInvokeWarning, type CaptureQueueHealthEntry } from './entities';

/**
 * The flush against an in-memory writer (the real databases are exercised in test/capture-queues*.spec.ts):
 * failures, refusals and concurrency that are hard to provoke on a real server on demand.
 */
class FakeWriter extends CaptureWriter {
  readonly tables = new Map<EntityTarget<ObjectLiteral>, object[]>();
  failure: Error | null = null;
  refuse: (row: object) => boolean = () => false;
  delayMs = 0;
  /** Runs inside the write, before it fails or succeeds (entries arriving while a flush writes). */
  during: (() => void) | null = null;
  active = 0;
  maxActive = 0;
  calls = 0;
  /** The next write commits, then fails as if the reply to COMMIT was lost. */
  loseReply = false;
  /** landed() fails as if the database were still away. */
  ledgerDown = false;
  readonly ledger = new Set<string>();
  readonly asked: string[] = [];

  landed(batch: string): Promise<boolean> {
    this.asked.push(batch);
    if (this.ledgerDown) return Promise.reject(unreachable);
    return Promise.resolve(this.ledger.has(batch));
  }

  async insert(
    table: EntityTarget<ObjectLiteral>,
    rows: readonly object[],
    constants: Record<string, unknown>,
    batch: string,
  ) {
    this.calls++;
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    try {
      if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
      this.during?.();
      if (this.failure) throw this.failure;
      if (rows.some((r) => this.refuse(r)))
        throw Object.assign(new Error('value too long'), { code: '22001' });
      const list = this.tables.get(table) ?? [];
      list.push(...rows.map((r) => ({ ...r, ...constants })));
      this.tables.set(table, list);
      this.ledger.add(batch);
      if (this.loseReply) {
        this.loseReply = false;
        throw Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
      }
    } finally {
      this.active--;
    }
  }

  rows<T>(table: EntityTarget<ObjectLiteral>): T[] {
    return (this.tables.get(table) ?? []) as T[];
  }
}

const unreachableError = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
const unreachable = unreachableError();

describe('CaptureFlusher', () => {
  let clock: ManualClock;
  let queues: CaptureQueues;
  let writer: FakeWriter;
  let flusher: CaptureFlusher;

  const warn = (message: string) =>
    queues.enqueueModelInvokeWarning({
      entityAnalysisModelGuid: 'g',
      entityAnalysisModelName: 'm',
      entityAnalysisModelInstanceEntryGuid: 'e',
      message,
      elapsedMicroseconds: 1,
      sinceLastEntryMicroseconds: 1,
    });
  const messages = () => writer.rows<ModelInvokeWarning>(ModelInvokeWarning).map((r) => r.Message);
  const healthOf = (id: CaptureQueueId) =>
    writer.rows<CaptureQueueHealthEntry>(CaptureQueueHealth).filter((h) => h.QueueId === id);

  beforeAll(() => Logger.overrideLogger(false));

  beforeEach(() => {
    clock = new ManualClock(Date.UTC(2026, 0, 1));
    queues = new CaptureQueues(clock);
    writer = new FakeWriter();
    flusher = new CaptureFlusher(queues, writer, null, clock, { instance: 'node-1', intervalMs: 10 });
  });

  it('keeps rows and health rows while the database is unreachable, then writes each once', async () => {
    warn('a');
    warn('b');
    writer.failure = unreachable;
    const failed = await flusher.flush();
    expect(failed.deferred).toBe(true);
    expect(queues.modelInvokeWarning.depth).toBe(2);
    warn('c');
    clock.advance(60_000);
    writer.failure = null;
    const ok = await flusher.flush();
    expect(ok.deferred).toBe(false);
    expect(messages()).toEqual(['a', 'b', 'c']);
    expect(writer.rows<{ Instance: string }>(ModelInvokeWarning).every((r) => r.Instance === 'node-1')).toBe(
      true,
    );
    const health = healthOf(CaptureQueueId.ModelInvokeWarning);
    expect(health.map((h) => [h.QueueDepth, h.CreatedDate.getTime()])).toEqual([
      [2, Date.UTC(2026, 0, 1)],
      [0, Date.UTC(2026, 0, 1, 0, 1)],
    ]);
    expect(writer.rows(CaptureQueueHealth)).toHaveLength(12);
    await flusher.flush();
    expect(messages()).toEqual(['a', 'b', 'c']);
  });

  it('a write that committed but whose reply was lost is not written again; one that did not commit is', async () => {
    warn('a');
    warn('b');
    writer.loseReply = true;
    const lost = await flusher.flush();
    expect(lost.deferred).toBe(true);
    expect(messages()).toEqual(['a', 'b']); // committed, though the flusher could not know
    expect(queues.modelInvokeWarning.depth).toBe(2);
    warn('c');
    // The database is still away when the next flush asks: nothing is decided, nothing lost.
    writer.ledgerDown = true;
    const undecided = await flusher.flush();
    expect(undecided.deferred).toBe(true);
    expect(queues.modelInvokeWarning.depth).toBe(3);
    writer.ledgerDown = false;
    const settled = await flusher.flush();
    expect(settled.deferred).toBe(false);
    expect(messages()).toEqual(['a', 'b', 'c']);
    // The health rows of the lost flush were never written (its write came after the failure): they follow.
    expect(healthOf(CaptureQueueId.ModelInvokeWarning).map((h) => h.QueueDepth)).toEqual([2, 3, 0]);

    // A health write that committed with its reply lost is settled the same way.
    writer.asked.length = 0;
    const health = writer.rows(CaptureQueueHealth).length;
    writer.during = () => {
      // Only the health write of this flush (the queues are empty).
      writer.during = null;
      writer.loseReply = true;
    };
    expect((await flusher.flush()).healthWritten).toBe(false);
    expect(writer.rows(CaptureQueueHealth)).toHaveLength(health + 6);
    expect((await flusher.flush()).healthWritten).toBe(true);
    expect(writer.asked).toHaveLength(1);
    expect(writer.rows(CaptureQueueHealth)).toHaveLength(health + 12);
  });

  it('a full queue drops newcomers; rows put back beyond capacity drop the oldest; both counted', async () => {
    for (let i = 0; i < CAPTURE_QUEUE_CAPACITY; i++) warn(`old-${i}`);
    expect(warn('refused-at-enqueue')).toBe(false);
    writer.failure = unreachable;
    // Five entries arrive while the failing write is in flight: the put-back batch no longer fits whole.
    writer.during = () => {
      writer.during = null;
      for (let i = 0; i < 5; i++) warn(`new-${i}`);
    };
    await flusher.flush();
    expect(queues.modelInvokeWarning.depth).toBe(CAPTURE_QUEUE_CAPACITY);
    writer.failure = null;
    await flusher.flush();
    const written = messages();
    expect(written).toHaveLength(CAPTURE_QUEUE_CAPACITY);
    expect(written[0]).toBe('old-5');
    expect(written.slice(-5)).toEqual(['new-0', 'new-1', 'new-2', 'new-3', 'new-4']);
    expect(healthOf(CaptureQueueId.ModelInvokeWarning).map((h) => h.DroppedCount)).toEqual([6, 0]);
  });

  it('isolates a row the database refuses: the others are written, that one dropped and counted', async () => {
    for (let i = 0; i < 9; i++) warn(i === 6 ? 'bad' : `ok-${i}`);
    writer.refuse = (r) => (r as ModelInvokeWarning).Message === 'bad';
    const report = await flusher.flush();
    expect(report.refused).toBe(1);
    expect(messages()).toEqual(['ok-0', 'ok-1', 'ok-2', 'ok-3', 'ok-4', 'ok-5', 'ok-7', 'ok-8']);
    expect(healthOf(CaptureQueueId.ModelInvokeWarning)[0].DroppedCount).toBe(1);
  });

  it('never runs two flushes at once, whether from the timer or a direct call', async () => {
    writer.delayMs = 15;
    warn('x');
    // Four flushes: the two direct ones, and at least two the timer started while they were writing or after.
    const fourFlushes = new Promise<void>((resolve) => {
      let flushes = 0;
      flusher.onFlushed(() => {
        if (++flushes === 4) resolve();
      });
    });
    flusher.start();
    const direct = [flusher.flush(), flusher.flush()];
    await fourFlushes;
    await Promise.all(direct);
    const last = await flusher.stop();
    expect(last.health).toHaveLength(6);
    expect(writer.maxActive).toBe(1);
    expect(writer.rows(CaptureQueueHealth).length).toBeGreaterThanOrEqual(6 * 4);
    expect(messages()).toEqual(['x']);
  });

  it('writes a queue 256 rows a transaction, giving the event loop back between two; a failure keeps the rest', async () => {
    for (let i = 0; i < 600; i++) warn(`w${i}`);
    const order: string[] = [];
    writer.during = () => {
      order.push(`write ${writer.calls}`);
      // queued during a write: it may run only once the flush has given the loop back
      setImmediate(() => order.push(`other work after write ${writer.calls}`));
    };
    await flusher.flush();
    expect(messages()).toEqual(Array.from({ length: 600 }, (_, i) => `w${i}`));
    // three slices (256, 256, 88) and the health rows; other work ran between the slices
    expect(order.slice(0, 4)).toEqual([
      'write 1',
      'other work after write 1',
      'write 2',
      'other work after write 2',
    ]);
    expect(writer.calls).toBe(4);

    // the second slice fails: the first is written once, the rest kept, in order, for the next flush
    for (let i = 0; i < 600; i++) warn(`v${i}`);
    writer.during = () => {
      if (writer.calls === 6) writer.failure = unreachable;
    };
    const failed = await flusher.flush();
    expect(failed.deferred).toBe(true);
    expect(failed.written[CaptureQueueId.ModelInvokeWarning]).toBe(256);
    expect(queues.modelInvokeWarning.depth).toBe(344);
    writer.failure = null;
    writer.during = null;
    await flusher.flush();
    expect(messages().slice(600)).toEqual(Array.from({ length: 600 }, (_, i) => `v${i}`));
  });
});
