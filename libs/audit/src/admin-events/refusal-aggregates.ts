import type { AdminEvent } from '../entities/admin-event.entity';
import type { RefusalCount } from './admin-event.repository';

/** Refusals are counted together per minute, aligned on the clock's minutes so every node has the same ones. */
export const REFUSAL_WINDOW_MS = 60_000;
/** Refusal rows one actor may open per minute (across every node through Redis; per node without it). */
export const REFUSAL_ROWS_PER_ACTOR = 20;
/** Open refusal rows one node keeps counting at once; past it they are all written out and start again. */
export const OPEN_REFUSAL_CAPACITY = 10_000;
/** How often the open rows' counts are written while their minute lasts (what a crash can lose). */
export const REFUSAL_FLUSH_MS = 5_000;

/** Why a refusal is not a row of its own: counted in an open row, past its actor's bound, or its row failed. */
export type UnwrittenReason = 'aggregated' | 'actor-bound' | 'write-failed';
export const UNWRITTEN_REASONS: readonly UnwrittenReason[] = ['aggregated', 'actor-bound', 'write-failed'];

type Row = Omit<AdminEvent, 'Id'>;

/** One refused administrative write, as AdminEvents hands it over. */
export interface Refusal {
  actorGuid: string;
  action: string;
  status: number;
  targetGuid: string | null;
  /** ms since epoch */
  at: number;
  /** Its row, were it the first of its kind this minute (called at once, only then). */
  row: () => Row;
}

/** Where the rows go (AdminEvents: the repository, the actor's tenant's name added). */
export interface RefusalRows {
  open(row: Row): Promise<number>;
  raise(id: number, to: RefusalCount): Promise<void>;
}

/** What the aggregation reports: the shared bound, the counter, the summary and failures. */
export interface RefusalReporting {
  /** Whether the actor may open one more row in this window across the nodes (SharedRowBudget). */
  take(actorGuid: string, window: number): Promise<boolean>;
  unwritten(reason: UnwrittenReason, count: number): void;
  summary(summary: RefusalSummary): void;
  failed(err: unknown, what: string): void;
}

/** One node's minute of refusals, as its summary line says it. */
export interface RefusalSummary {
  /** The minute's start (ISO). */
  window: string;
  refusals: number;
  rows: number;
  aggregated: number;
  actorBound: number;
  writeFailed: number;
  actorsPastBound: number;
  /** The actors with the most refusals this minute, most first (at most three). */
  loudest: { actorUserGuid: string; refusals: number }[];
}

interface ActorTally {
  guid: string;
  /** Rows opened (or being opened) this minute on this node. */
  rows: number;
  pastBound: boolean;
  refusals: number;
}

type AggregateState = 'deciding' | 'open' | 'past-bound' | 'failed';

interface Aggregate {
  actor: ActorTally;
  first: Row;
  count: number;
  lastTargetGuid: string | null;
  lastAt: number;
  state: AggregateState;
  rowId: number | null;
  /** The count the row holds. */
  written: number;
  /** Refusals already reported (counter and summary). */
  reported: number;
  opening: Promise<void>;
}

class RefusalWindow {
  readonly aggregates = new Map<string, Aggregate>();
  readonly actors = new Map<string, ActorTally>();
  readonly totals = { refusals: 0, rows: 0, aggregated: 0, actorBound: 0, writeFailed: 0 };

  constructor(readonly index: number) {}
}

/**
 * Refused administrative writes counted together, so that no caller can fill AdminEvent nor hide another
 * caller's refusal. The first refusal of an actor, action and status in a minute opens a row at once (count 1);
 * the next ones of that minute only raise its count and last target, written every REFUSAL_FLUSH_MS, at the
 * minute's end and on shutdown. An actor opens at most REFUSAL_ROWS_PER_ACTOR rows a minute: past that their
 * refusals are only counted (the counter and the minute's summary line), and never take anything from another
 * actor, whose rows and bound are their own. Memory: one small entry per actor refused this minute and at most
 * OPEN_REFUSAL_CAPACITY open rows (past it every open row is written out and counting starts again).
 */
export class RefusalAggregates {
  private current: RefusalWindow;
  /** Writes run one after another: a flush never overtakes the one before it. */
  private queue: Promise<void> = Promise.resolve();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly rows: RefusalRows,
    private readonly reporting: RefusalReporting,
    now: number,
    private readonly limits = { rowsPerActor: REFUSAL_ROWS_PER_ACTOR, capacity: OPEN_REFUSAL_CAPACITY },
  ) {
    this.current = new RefusalWindow(Math.floor(now / REFUSAL_WINDOW_MS));
  }

  /** One refusal: counted in its open row, or opening one; synchronous, one Map look-up when the row is open. */
  add(refusal: Refusal): void {
    const window = this.windowAt(refusal.at);
    window.totals.refusals++;
    const key = `${refusal.actorGuid}\n${refusal.action}\n${refusal.status}`;
    const open = window.aggregates.get(key);
    if (open) {
      open.actor.refusals++;
      open.count++;
      open.lastTargetGuid = refusal.targetGuid;
      open.lastAt = Math.max(open.lastAt, refusal.at);
      return;
    }
    if (window.aggregates.size >= this.limits.capacity) this.writeOut(window);
    const actor = this.tally(window, refusal.actorGuid);
    actor.refusals++;
    const aggregate: Aggregate = {
      actor,
      first: refusal.row(),
      count: 1,
      lastTargetGuid: refusal.targetGuid,
      lastAt: refusal.at,
      state: 'deciding',
      rowId: null,
      written: 0,
      reported: 0,
      opening: Promise.resolve(),
    };
    window.aggregates.set(key, aggregate);
    if (actor.pastBound || actor.rows >= this.limits.rowsPerActor) {
      actor.pastBound = true;
      aggregate.state = 'past-bound';
      return;
    }
    actor.rows++;
    aggregate.opening = this.track(this.open(window, aggregate));
  }

  /** Brings every open row's count up to date; closes the minute first when it is over. */
  flush(now: number): Promise<void> {
    const window = this.windowAt(now);
    return this.enqueue(() => this.writeAll(window, [...window.aggregates.values()]));
  }

  /** Closes the current minute (shutdown): every count written, its summary reported. */
  close(): Promise<void> {
    const window = this.current;
    this.current = new RefusalWindow(window.index + 1);
    return this.enqueue(() => this.closeWindow(window));
  }

  /** Resolves when every row being opened or written is done. */
  async settled(): Promise<void> {
    while (this.inFlight.size) await Promise.all([...this.inFlight]);
  }

  private windowAt(at: number): RefusalWindow {
    const index = Math.floor(at / REFUSAL_WINDOW_MS);
    // A clock that went backwards stays in the current minute.
    if (index > this.current.index) {
      const over = this.current;
      this.current = new RefusalWindow(index);
      void this.enqueue(() => this.closeWindow(over));
    }
    return this.current;
  }

  private tally(window: RefusalWindow, guid: string): ActorTally {
    let actor = window.actors.get(guid);
    if (!actor) {
      actor = { guid, rows: 0, pastBound: false, refusals: 0 };
      window.actors.set(guid, actor);
    }
    return actor;
  }

  /** Too many open rows: all are written out now and forgotten; the actors' bounds stay as they are. */
  private writeOut(window: RefusalWindow): void {
    const all = [...window.aggregates.values()];
    window.aggregates.clear();
    void this.enqueue(() => this.writeAll(window, all, true));
  }

  private async open(window: RefusalWindow, aggregate: Aggregate): Promise<void> {
    if (!(await this.reporting.take(aggregate.actor.guid, window.index))) {
      aggregate.actor.pastBound = true;
      aggregate.state = 'past-bound';
      return;
    }
    await this.insert(window, aggregate);
  }

  private async insert(window: RefusalWindow, aggregate: Aggregate): Promise<void> {
    const count = aggregate.count;
    try {
      aggregate.rowId = await this.rows.open({
        ...aggregate.first,
        EventCount: count,
        LastTargetGuid: aggregate.lastTargetGuid,
        LastDate: new Date(aggregate.lastAt),
      });
      aggregate.written = count;
      aggregate.state = 'open';
      window.totals.rows++;
    } catch (err) {
      aggregate.state = 'failed';
      this.reporting.failed(err, 'Recording a refused administrative write failed');
    }
  }

  private async writeAll(window: RefusalWindow, aggregates: Aggregate[], last = false): Promise<void> {
    for (const aggregate of aggregates) {
      await aggregate.opening;
      // A row that could not be inserted is tried again with its whole count.
      if (aggregate.state === 'failed') await this.insert(window, aggregate);
      if (aggregate.state === 'open' && aggregate.count > aggregate.written) {
        const to = {
          count: aggregate.count,
          lastTargetGuid: aggregate.lastTargetGuid,
          lastDate: new Date(aggregate.lastAt),
        };
        try {
          await this.rows.raise(aggregate.rowId!, to);
          aggregate.written = Math.max(aggregate.written, to.count);
        } catch (err) {
          this.reporting.failed(err, 'Raising the count of a refused administrative write failed');
        }
      }
      this.report(window, aggregate, last);
    }
  }

  /** Counts what the rows do not hold as rows of their own; at the minute's end, also what they failed to hold. */
  private report(window: RefusalWindow, aggregate: Aggregate, last: boolean): void {
    const { totals } = window;
    if (aggregate.state === 'past-bound') {
      const n = aggregate.count - aggregate.reported;
      aggregate.reported = aggregate.count;
      totals.actorBound += n;
      if (n) this.reporting.unwritten('actor-bound', n);
      return;
    }
    if (aggregate.written > aggregate.reported) {
      // The row's first refusal is the row itself; the others are counted in it.
      const n = aggregate.written - aggregate.reported - (aggregate.reported === 0 ? 1 : 0);
      aggregate.reported = aggregate.written;
      totals.aggregated += n;
      if (n) this.reporting.unwritten('aggregated', n);
    }
    if (last && aggregate.count > aggregate.reported) {
      const n = aggregate.count - aggregate.reported;
      aggregate.reported = aggregate.count;
      totals.writeFailed += n;
      this.reporting.unwritten('write-failed', n);
    }
  }

  private async closeWindow(window: RefusalWindow): Promise<void> {
    await this.writeAll(window, [...window.aggregates.values()], true);
    window.aggregates.clear();
    const { totals } = window;
    if (!totals.aggregated && !totals.actorBound && !totals.writeFailed) return;
    const actors = [...window.actors.values()];
    this.reporting.summary({
      window: new Date(window.index * REFUSAL_WINDOW_MS).toISOString(),
      refusals: totals.refusals,
      rows: totals.rows,
      aggregated: totals.aggregated,
      actorBound: totals.actorBound,
      writeFailed: totals.writeFailed,
      actorsPastBound: actors.filter((a) => a.pastBound).length,
      loudest: actors
        .sort((a, b) => b.refusals - a.refusals)
        .slice(0, 3)
        .map((a) => ({ actorUserGuid: a.guid, refusals: a.refusals })),
    });
  }

  private enqueue(work: () => Promise<void>): Promise<void> {
    const next = this.queue
      .then(work)
      .catch((err: unknown) => this.reporting.failed(err, 'Writing refused administrative writes failed'));
    this.queue = next;
    return this.track(next);
  }

  private track(work: Promise<void>): Promise<void> {
    const tracked = work.finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
    return tracked;
  }
}
