import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Worker } from 'node:worker_threads';
import type { DataSource } from 'typeorm';
import { providerOf } from './portable-columns';

/** How often the checkpoint thread copies the write-ahead log into the database file. */
export const SQLITE_CHECKPOINT_INTERVAL_MS = 1_000;
/** A log longer than this many frames (SQLite's own checkpoint threshold, `wal_autocheckpoint`'s default) that
 * is still being written is copied again after SQLITE_CHECKPOINT_FOLLOW_UP_MS instead of a full interval. */
export const SQLITE_CHECKPOINT_FOLLOW_UP_FRAMES = 1_000;
export const SQLITE_CHECKPOINT_FOLLOW_UP_MS = 100;

/** What one checkpoint did: SQLite's `PRAGMA wal_checkpoint` answer (frames in the log, frames copied), and
 * when the thread runs the next one. */
export interface CheckpointRun {
  busy: number;
  log: number;
  checkpointed: number;
  nextInMilliseconds: number;
}

interface WorkerMessage {
  run?: CheckpointRun;
  error?: string;
}

/*
 * The thread's code, in plain JavaScript so that it runs the same from the built service and under the tests'
 * TypeScript loader. It opens a connection of its own to the same file and runs a PASSIVE checkpoint every
 * interval: one that never waits for readers or writers, so the service's statements never wait for it. The
 * log is reused from its start only once a checkpoint has copied all of it; under steady writes a checkpoint a
 * second never catches up (the writes of its own run are left): with bare better-sqlite3, 1 300 rows a second
 * in commits every 25 ms took the log past 100 000 frames (400 MB) in 30 s. So after a checkpoint that found a
 * long log still being written the next comes soon.
 */
const CHECKPOINT_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('synchronous = NORMAL');
let timer;
let lastLog = -1;
const checkpoint = () => {
  let next = workerData.intervalMs;
  try {
    const [run] = db.pragma('wal_checkpoint(PASSIVE)');
    // a long log still being written (or not copied whole): again soon; one copied whole and left alone since
    // is restarted by the next writer, and waits the interval
    const moving = run.log !== lastLog || run.checkpointed < run.log;
    if (run.log > workerData.followUpFrames && moving) next = workerData.followUpMs;
    lastLog = run.log;
    parentPort.postMessage({ run: { ...run, nextInMilliseconds: next } });
  } catch (err) {
    parentPort.postMessage({ error: String((err && err.message) || err) });
  }
  timer = setTimeout(checkpoint, next);
};
timer = setTimeout(checkpoint, workerData.intervalMs);
parentPort.on('message', () => {
  clearTimeout(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * SQLite's checkpoints, off the event loop. In WAL mode SQLite copies the log into the database file (and syncs
 * both) inside whichever commit takes the log past 1 000 pages: on the service's one connection that is a
 * request's or a pipeline's commit, holding the event loop for tens to hundreds of milliseconds (the stalls of
 * bench:latency's SQLite steps). Here a worker thread with its own connection checkpoints every
 * SQLITE_CHECKPOINT_INTERVAL_MS (SQLITE_CHECKPOINT_FOLLOW_UP_MS while a long log is written), and the service's
 * connection stops checkpointing by itself (`wal_autocheckpoint = 0`) once the thread runs. Should the thread
 * fail to start or stop, SQLite's own checkpoints are switched back on, so the log never grows without end.
 * Nothing to do on the other databases.
 */
@Injectable()
export class SqliteCheckpoints implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('SqliteCheckpoints');
  private worker?: Worker;
  private readonly waiting = new Set<(run: CheckpointRun) => void>();
  private failed = false;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async onApplicationBootstrap(): Promise<void> {
    if (providerOf(this.dataSource.options.type) !== 'sqlite') return;
    const worker = new Worker(CHECKPOINT_THREAD, {
      eval: true,
      workerData: {
        driver: require.resolve('better-sqlite3'),
        file: this.dataSource.options.database as string,
        intervalMs: SQLITE_CHECKPOINT_INTERVAL_MS,
        followUpFrames: SQLITE_CHECKPOINT_FOLLOW_UP_FRAMES,
        followUpMs: SQLITE_CHECKPOINT_FOLLOW_UP_MS,
      },
    });
    worker.on('message', (m: WorkerMessage) => this.onMessage(m));
    worker.once('error', (err) => void this.fallBack(err));
    await new Promise<void>((resolve, reject) => {
      worker.once('online', resolve);
      worker.once('error', reject);
    }).catch(() => undefined);
    // Once it runs, and after the listeners (a 'message' listener refs the worker's port again): a ref'd thread
    // would keep a process whose application was never closed (a test's) from ending. Not before: while the
    // service starts, the thread may be all that keeps the event loop alive.
    worker.unref();
    if (this.failed) return;
    this.worker = worker;
    await this.dataSource.query('PRAGMA wal_autocheckpoint = 0');
  }

  async onApplicationShutdown(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('stop');
    await exited;
  }

  /** True while the checkpoint thread runs (and the service's connection leaves checkpoints to it). */
  get running(): boolean {
    return this.worker !== undefined;
  }

  /** The next checkpoint's answer (for tests and diagnostics). */
  nextRun(): Promise<CheckpointRun> {
    return new Promise((resolve) => this.waiting.add(resolve));
  }

  private onMessage(m: WorkerMessage): void {
    if (m.error) {
      this.logger.warn({ reason: m.error }, 'A SQLite checkpoint failed; the next one retries');
      return;
    }
    if (!m.run) return;
    for (const resolve of this.waiting) resolve(m.run);
    this.waiting.clear();
  }

  /** The thread failed: SQLite checkpoints within the service's commits again, as by default. */
  private async fallBack(err: Error): Promise<void> {
    this.failed = true;
    this.worker = undefined;
    this.logger.error(
      { reason: err.message },
      'The SQLite checkpoint thread failed: checkpoints run within commits again',
    );
    if (this.dataSource.isInitialized) await this.dataSource.query('PRAGMA wal_autocheckpoint = 1000');
  }
}
