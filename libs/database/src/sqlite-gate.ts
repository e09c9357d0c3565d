import { AsyncLocalStorage } from 'node:async_hooks';
import type { DataSource, QueryRunner } from 'typeorm';
import { providerOf } from './portable-columns';

/** How long a statement or a transaction waits for the SQLite connection before it fails as busy. */
export const SQLITE_GATE_WAIT_MS = 5_000;

function busy(): Error {
  return Object.assign(new Error('SQLite connection busy: a transaction held it too long'), {
    code: 'SQLITE_BUSY',
  });
}

/**
 * SQLite's one connection, given to one transaction at a time (docs/decisions.md, "SQLite's one connection").
 * TypeORM's better-sqlite3 driver has ONE connection and ONE query runner for the whole process. Unguarded, a
 * transaction that spans awaits takes in every statement other requests send meanwhile (its rollback undoes
 * them), and a second transaction nests in it as a savepoint (the first's commit then only releases it, and a
 * later rollback undoes work already reported committed). The gate:
 * - runs each `DataSource.transaction` (every repository's and `inTransaction`'s) in turn, first come first
 *   served, the transaction's own call chain marked by an AsyncLocalStorage token;
 * - holds a statement from any other call chain until the running transaction ends;
 * - runs the ORM's own writes that open a transaction (`save`, `remove`, `softRemove`, `recover` outside any
 *   transaction) the same way, so their rollback cannot take another chain's statement with it either;
 * - treats any other transaction the ORM opens by itself (migrations) as holding the connection until it ends,
 *   so a gated transaction cannot nest in it;
 * - fails a wait longer than `waitMs` as SQLITE_BUSY ("database unavailable", a 503), as SQLite's own
 *   busy_timeout would: a transaction that awaits a statement of another call chain cannot deadlock;
 * - fails every wait at once when the DataSource is destroyed, so closing never waits on the line.
 * A transaction must therefore await only the database: whatever else it awaits (a hash, a network call) holds
 * every other request's statements on SQLite. Work that must come before the write (the instant a password
 * reset takes) is done before the transaction begins.
 */
export class SqliteGate {
  private readonly chain = new AsyncLocalStorage<object>();
  /**
   * Who holds the connection: a gated transaction's token; ANONYMOUS for a transaction the ORM opened outside
   * the gate; RESERVED between a transaction's turn and its start; undefined when free.
   */
  private holder?: object;
  private static readonly ANONYMOUS = {};
  private static readonly RESERVED = {};
  /** Resolves when the current holder lets go. */
  private freed: Promise<void> = Promise.resolve();
  private free: () => void = () => undefined;
  /** Transactions waiting their turn, first come first served. */
  private readonly queue: (() => void)[] = [];
  /** Rejects once the DataSource is being destroyed: every wait ends at once. */
  private closing?: Error;
  private abort: (err: Error) => void = () => undefined;
  private readonly aborted = new Promise<never>((_, reject) => (this.abort = reject));

  constructor(private readonly waitMs = SQLITE_GATE_WAIT_MS) {
    this.aborted.catch(() => undefined); // observed by the waits that race it; none may be waiting
  }

  /** The DataSource is being destroyed: every waiting statement and transaction fails now, and any later one. */
  close(): void {
    this.closing ??= Object.assign(new Error('SQLite connection closing'), { code: 'SQLITE_BUSY' });
    this.abort(this.closing);
  }

  /** Whether a statement of the current call chain must wait (another chain's transaction holds the connection). */
  mustWait(): boolean {
    return (
      this.holder !== undefined &&
      this.holder !== SqliteGate.ANONYMOUS &&
      this.chain.getStore() !== this.holder
    );
  }

  /** Whether the current call chain runs inside the gated transaction that holds the connection. */
  holds(): boolean {
    return this.holder !== undefined && this.chain.getStore() === this.holder;
  }

  /** Waits until a statement of the current call chain may use the connection. */
  async turn(): Promise<void> {
    const deadline = Date.now() + this.waitMs;
    while (this.mustWait()) await this.until(this.freed, deadline);
  }

  /** Runs `work` holding the connection; inside the holding transaction already, `work` joins it. */
  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    if (this.holds()) return work();
    await this.acquire();
    const token = {};
    this.holder = token;
    try {
      return await this.chain.run(token, work);
    } finally {
      this.release();
    }
  }

  /** A transaction the ORM opens by itself (outside `exclusive`): it holds the connection until it ends. */
  async openedOutside(): Promise<void> {
    if (this.holds()) return;
    await this.acquire();
    this.holder = SqliteGate.ANONYMOUS;
  }

  /** The end of a transaction the ORM opened by itself. */
  endedOutside(): void {
    if (this.holder === SqliteGate.ANONYMOUS) this.release();
  }

  /** Waits for a turn; answers with the connection RESERVED for the caller. */
  private async acquire(): Promise<void> {
    if (this.holder === undefined && this.queue.length === 0) {
      this.reserve();
      return;
    }
    let resolve!: () => void;
    const turn = new Promise<void>((r) => (resolve = r));
    this.queue.push(resolve);
    try {
      await this.until(turn, Date.now() + this.waitMs);
    } catch (err) {
      const i = this.queue.indexOf(resolve);
      if (i >= 0) this.queue.splice(i, 1);
      else void turn.then(() => this.release()); // handed over as it gave up: pass it on
      throw err;
    }
  }

  private reserve(): void {
    this.holder = SqliteGate.RESERVED;
    this.freed = new Promise<void>((r) => (this.free = r));
  }

  /** Lets go: to the next transaction in line (reserved for it at once), else free. */
  private release(): void {
    const free = this.free;
    const next = this.queue.shift();
    if (next) {
      this.reserve();
      next();
    } else this.holder = undefined;
    free();
  }

  private async until(p: Promise<void>, deadline: number): Promise<void> {
    if (this.closing) throw this.closing;
    const left = deadline - Date.now();
    if (left <= 0) throw busy();
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        p,
        this.aborted,
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(busy()), left))),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
}

const GATED = Symbol('sqlite-gate');

/** The EntityManager writes that open a transaction of their own when none is running (TypeORM's persist). */
const PERSISTING = ['save', 'remove', 'softRemove', 'recover'] as const;

/**
 * Installs the gate on a SQLite DataSource (no effect on another database): its manager's transactions and
 * persisting writes run through `exclusive`, its one query runner's statements and ORM-opened transactions wait
 * their turn, and destroying it ends every wait.
 * Answers the gate, or undefined on another database.
 */
export function gateSqliteConnection(
  dataSource: DataSource,
  waitMs = SQLITE_GATE_WAIT_MS,
): SqliteGate | undefined {
  if (providerOf(dataSource.options.type) !== 'sqlite') return undefined;
  const gate = new SqliteGate(waitMs);
  const manager = dataSource.manager as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const name of ['transaction', ...PERSISTING]) {
    const original = manager[name].bind(manager);
    manager[name] = (...args: unknown[]) => gate.exclusive(() => original(...args));
  }
  const driver = dataSource.driver;
  const create = driver.createQueryRunner.bind(driver);
  driver.createQueryRunner = (mode) => gateRunner(create(mode), gate);
  const destroy = dataSource.destroy.bind(dataSource);
  dataSource.destroy = () => {
    gate.close();
    return destroy();
  };
  return gate;
}

/** The driver's one query runner, once: statements wait their turn; a transaction it opens by itself holds. */
function gateRunner(runner: QueryRunner, gate: SqliteGate): QueryRunner {
  const marked = runner as QueryRunner & { [GATED]?: true };
  if (marked[GATED]) return runner;
  marked[GATED] = true;
  const query = runner.query.bind(runner) as (...args: unknown[]) => Promise<unknown>;
  runner.query = ((...args: unknown[]) =>
    gate.mustWait() ? gate.turn().then(() => query(...args)) : query(...args)) as QueryRunner['query'];
  const start = runner.startTransaction.bind(runner);
  runner.startTransaction = async (isolation) => {
    if (!runner.isTransactionActive) await gate.openedOutside();
    try {
      await start(isolation);
    } catch (err) {
      if (!runner.isTransactionActive) gate.endedOutside();
      throw err;
    }
  };
  for (const end of ['commitTransaction', 'rollbackTransaction'] as const) {
    const original = runner[end].bind(runner);
    runner[end] = async () => {
      let failed = true;
      try {
        await original();
        failed = false;
      } finally {
        // a failed ROLLBACK leaves TypeORM's flag set: the connection is let go all the same
        if (!runner.isTransactionActive || (failed && end === 'rollbackTransaction')) gate.endedOutside();
      }
    };
  }
  return runner;
}
