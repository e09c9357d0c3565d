import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import type { BetterSqlite3Driver } from 'typeorm/driver/better-sqlite3/BetterSqlite3Driver';
import { BetterSqlite3QueryRunner } from 'typeorm/driver/better-sqlite3/BetterSqlite3QueryRunner';
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
 * - runs each `DataSource.transaction` in turn, first come first served, on a query runner of its own (the
 *   transactions' runner, on the same native connection): a statement of the transaction is one sent through
 *   its EntityManager (`tx`), so it is told apart by its runner, not by its call chain;
 * - holds every statement of the shared runner (every other one) until the running transaction ends;
 * - runs the ORM's own writes that open a transaction (`save`, `remove`, `softRemove`, `recover` outside any
 *   transaction) the same way, so their rollback cannot take another request's statement with it either;
 * - treats any other transaction the ORM opens by itself on the shared runner (migrations) as holding the
 *   connection until it ends, so a gated transaction cannot nest in it;
 * - fails a wait longer than `waitMs` as SQLITE_BUSY ("database unavailable", a 503), as SQLite's own
 *   busy_timeout would: a transaction that awaits a statement sent outside `tx` cannot deadlock;
 * - fails every wait at once when the DataSource is destroyed, so closing never waits on the line.
 * Inside a transaction every statement must go through `tx` (repositories bound with `in(tx)`): one sent
 * through the DataSource or an unbound repository waits for the transaction itself, and fails after `waitMs`.
 * `preparedRead` reads the native connection directly, so it waits its turn itself (sqliteGateOf), as the shared
 * runner's statements do: it never sees an open transaction's uncommitted writes.
 * A transaction must await only the database: whatever else it awaits (a hash, a network call) holds every
 * other request's statements on SQLite. Work that must come before the write (the instant a password reset
 * takes) is done before the transaction begins.
 */
export class SqliteGate {
  /**
   * Who holds the connection: GATED for a transaction run by `exclusive`; ANONYMOUS for a transaction the ORM
   * opened on the shared runner; RESERVED between a transaction's turn and its start; undefined when free.
   */
  private holder?: object;
  private static readonly GATED = {};
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

  /** Whether a statement of the shared runner must wait (a gated transaction holds the connection). */
  mustWait(): boolean {
    return this.holder !== undefined && this.holder !== SqliteGate.ANONYMOUS;
  }

  /** Waits until a statement of the shared runner may use the connection. */
  async turn(): Promise<void> {
    const deadline = Date.now() + this.waitMs;
    while (this.mustWait()) await this.until(this.freed, deadline);
  }

  /** Runs `work` holding the connection, once its turn comes. */
  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    this.holder = SqliteGate.GATED;
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  /** A transaction the ORM opens by itself on the shared runner: it holds the connection until it ends. */
  async openedOutside(): Promise<void> {
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

/** The gate of each gated DataSource (preparedRead waits on it as the shared runner's statements do). */
const gates = new WeakMap<DataSource, SqliteGate>();

/** The gate of a gated SQLite DataSource; undefined on another database. */
export function sqliteGateOf(dataSource: DataSource): SqliteGate | undefined {
  return gates.get(dataSource);
}

/** The EntityManager writes that open a transaction of their own when none is running (TypeORM's persist). */
const PERSISTING = ['save', 'remove', 'softRemove', 'recover'] as const;

type Method = (...args: unknown[]) => Promise<unknown>;

/**
 * Installs the gate on a SQLite DataSource (no effect on another database): its manager's transactions and
 * persisting writes run in turn on the transactions' runner, the shared runner's statements and ORM-opened
 * transactions wait their turn, and destroying it ends every wait.
 * Answers the gate, or undefined on another database.
 */
export function gateSqliteConnection(
  dataSource: DataSource,
  waitMs = SQLITE_GATE_WAIT_MS,
): SqliteGate | undefined {
  if (providerOf(dataSource.options.type) !== 'sqlite') return undefined;
  const gate = new SqliteGate(waitMs);
  gates.set(dataSource, gate);
  // The transactions' runner: made once and reused (transactions run one at a time; its statement cache is
  // its own), dropped when a failed ROLLBACK left it in a transaction and when the DataSource is destroyed.
  // EntityManager.transaction and the ORM's persist release only a runner they created, so it is never released.
  let own: EntityManager | undefined;
  const transactions = () =>
    (own ??= dataSource.createEntityManager(
      new BetterSqlite3QueryRunner(dataSource.driver as BetterSqlite3Driver),
    )) as unknown as Record<string, Method>;
  const manager = dataSource.manager as unknown as Record<string, Method>;
  for (const name of ['transaction', ...PERSISTING])
    manager[name] = (...args: unknown[]) =>
      gate.exclusive(async () => {
        const on = transactions();
        try {
          return await on[name](...args);
        } finally {
          if (own?.queryRunner?.isTransactionActive) own = undefined;
        }
      });
  const driver = dataSource.driver;
  const create = driver.createQueryRunner.bind(driver);
  driver.createQueryRunner = (mode) => gateRunner(create(mode), gate);
  const destroy = dataSource.destroy.bind(dataSource);
  dataSource.destroy = () => {
    gate.close();
    own = undefined;
    return destroy();
  };
  return gate;
}

/** The driver's shared query runner, once: statements wait their turn; a transaction it opens by itself holds. */
function gateRunner(runner: QueryRunner, gate: SqliteGate): QueryRunner {
  const marked = runner as QueryRunner & { [GATED]?: true };
  if (marked[GATED]) return runner;
  marked[GATED] = true;
  const query = runner.query.bind(runner) as Method;
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
