import type { AdminEvent } from '../entities/admin-event.entity';
import type { RefusalCount } from './admin-event.repository';
import {
  REFUSAL_ROWS_PER_ACTOR,
  REFUSAL_WINDOW_MS,
  RefusalAggregates,
  type RefusalSummary,
  type UnwrittenReason,
} from './refusal-aggregates';

type Row = Omit<AdminEvent, 'Id'>;

/** The rows as a table would hold them: inserted, and counts only raised (as raiseCount's WHERE). */
class MemoryRows {
  readonly rows = new Map<number, Row>();
  failInserts = 0;
  open = (row: Row): Promise<number> => {
    if (this.failInserts > 0) {
      this.failInserts--;
      return Promise.reject(new Error('database refused'));
    }
    const id = this.rows.size + 1;
    this.rows.set(id, { ...row });
    return Promise.resolve(id);
  };
  raise = (id: number, to: RefusalCount): Promise<void> => {
    const row = this.rows.get(id)!;
    if (row.EventCount < to.count)
      Object.assign(row, { EventCount: to.count, LastTargetGuid: to.lastTargetGuid, LastDate: to.lastDate });
    return Promise.resolve();
  };
  of(actor: string): Row[] {
    return [...this.rows.values()].filter((r) => r.ActorUserGuid === actor);
  }
}

const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);

function setUp(options: { take?: () => Promise<boolean>; capacity?: number } = {}) {
  const rows = new MemoryRows();
  const unwritten: Record<UnwrittenReason, number> = { aggregated: 0, 'actor-bound': 0, 'write-failed': 0 };
  const summaries: RefusalSummary[] = [];
  const failures: string[] = [];
  const aggregates = new RefusalAggregates(
    rows,
    {
      take: options.take ?? (() => Promise.resolve(true)),
      unwritten: (reason, n) => (unwritten[reason] += n),
      summary: (s) => summaries.push(s),
      failed: (_err, what) => failures.push(what),
    },
    T0,
    { rowsPerActor: REFUSAL_ROWS_PER_ACTOR, capacity: options.capacity ?? 10_000 },
  );
  const refuse = (actor: string, action: string, target: string, at = T0, status = 403) =>
    aggregates.add({
      actorGuid: actor,
      action,
      status,
      targetGuid: target,
      at,
      row: () => ({ ActorUserGuid: actor, Action: action, StatusCode: status, TargetGuid: target }) as Row,
    });
  return { rows, unwritten, summaries, failures, aggregates, refuse };
}

const total = (rows: Row[]) => rows.reduce((n, r) => n + r.EventCount, 0);

describe('RefusalAggregates: refusals counted together, bounded per actor', () => {
  it("one actor's flood on one action is one row: opened at once, its count and last target written at the flush", async () => {
    const { rows, unwritten, aggregates, refuse } = setUp();
    for (let i = 0; i < 1000; i++) refuse('loud', 'TenantRegistry.Update', `t${i}`, T0 + i);
    await aggregates.settled();
    expect(rows.of('loud').map((r) => r.TargetGuid)).toEqual(['t0']);
    await aggregates.flush(T0 + 1000);
    const [row] = rows.of('loud');
    expect([row.EventCount, row.TargetGuid, row.LastTargetGuid, row.LastDate?.getTime()]).toEqual([
      1000,
      't0',
      't999',
      T0 + 999,
    ]);
    expect(unwritten).toEqual({ aggregated: 999, 'actor-bound': 0, 'write-failed': 0 });
  });

  it("an actor opens at most REFUSAL_ROWS_PER_ACTOR rows a minute; the rest are counted; another actor's rows are their own", async () => {
    const { rows, unwritten, summaries, aggregates, refuse } = setUp();
    const actions = Array.from({ length: 30 }, (_, i) => `Record${i}.Delete`);
    for (let round = 0; round < 10; round++)
      for (const action of actions) refuse('loud', action, `r${round}`, T0 + round);
    refuse('quiet', 'UserRegistry.ResetPassword', 'administrator', T0 + 20);
    refuse('quiet', 'UserRegistry.Delete', 'administrator', T0 + 21);
    await aggregates.flush(T0 + 30);
    expect(rows.of('loud')).toHaveLength(REFUSAL_ROWS_PER_ACTOR);
    expect(total(rows.of('loud'))).toBe(REFUSAL_ROWS_PER_ACTOR * 10);
    expect(rows.of('quiet').map((r) => [r.Action, r.EventCount])).toEqual([
      ['UserRegistry.ResetPassword', 1],
      ['UserRegistry.Delete', 1],
    ]);
    expect(unwritten['actor-bound']).toBe((30 - REFUSAL_ROWS_PER_ACTOR) * 10);
    // Every refusal is a row, counted in one, or counted past the bound.
    expect(total([...rows.rows.values()]) + unwritten['actor-bound']).toBe(302);
    expect(unwritten.aggregated).toBe(total([...rows.rows.values()]) - rows.rows.size);

    // The minute's end: one summary line with the counts.
    refuse('quiet', 'UserRegistry.Delete', 'administrator', T0 + REFUSAL_WINDOW_MS);
    await aggregates.settled();
    expect(summaries).toEqual([
      {
        window: new Date(T0).toISOString(),
        refusals: 302,
        rows: REFUSAL_ROWS_PER_ACTOR + 2,
        aggregated: REFUSAL_ROWS_PER_ACTOR * 9,
        actorBound: 100,
        writeFailed: 0,
        actorsPastBound: 1,
        loudest: [
          { actorUserGuid: 'loud', refusals: 300 },
          { actorUserGuid: 'quiet', refusals: 2 },
        ],
      },
    ]);
    // A new minute: a new row, and the bound starts again.
    expect(rows.of('quiet').filter((r) => r.Action === 'UserRegistry.Delete')).toHaveLength(2);
  });

  it("a row still open when its minute ends is written with its whole count, then nothing of it is kept", async () => {
    const { rows, summaries, aggregates, refuse } = setUp();
    refuse('a', 'RoleRegistry.Update', 'role', T0);
    await aggregates.settled();
    for (let i = 1; i < 50; i++) refuse('a', 'RoleRegistry.Update', 'role', T0 + i);
    await aggregates.settled();
    expect(rows.of('a')[0].EventCount).toBe(1);
    // No refusal comes after: the periodic flush at the next minute closes this one.
    await aggregates.flush(T0 + REFUSAL_WINDOW_MS);
    expect(rows.of('a').map((r) => r.EventCount)).toEqual([50]);
    expect(summaries.map((s) => [s.refusals, s.rows, s.aggregated])).toEqual([[50, 1, 49]]);
    refuse('a', 'RoleRegistry.Update', 'role', T0 + REFUSAL_WINDOW_MS + 1);
    await aggregates.flush(T0 + REFUSAL_WINDOW_MS + 2);
    expect(rows.of('a').map((r) => r.EventCount)).toEqual([50, 1]);
  });

  it('on shutdown (close) every open count is written', async () => {
    const { rows, aggregates, refuse } = setUp();
    for (let i = 0; i < 7; i++) refuse('a', 'UserRegistry.Delete', `u${i}`, T0 + i);
    await aggregates.close();
    expect(rows.of('a').map((r) => [r.EventCount, r.LastTargetGuid])).toEqual([[7, 'u6']]);
  });

  it('past the bound the cluster shares (Redis says no), the refusals are counted, not written', async () => {
    const { rows, unwritten, aggregates, refuse } = setUp({ take: () => Promise.resolve(false) });
    for (let i = 0; i < 5; i++) refuse('a', 'UserRegistry.Delete', `u${i}`, T0 + i);
    await aggregates.flush(T0 + 10);
    expect(rows.rows.size).toBe(0);
    expect(unwritten).toEqual({ aggregated: 0, 'actor-bound': 5, 'write-failed': 0 });
  });

  it('a row the database refused is tried again with its whole count; still refused at the minute end, it is counted as lost', async () => {
    const { rows, unwritten, failures, aggregates, refuse } = setUp();
    rows.failInserts = 1;
    for (let i = 0; i < 3; i++) refuse('a', 'UserRegistry.Delete', `u${i}`, T0 + i);
    await aggregates.flush(T0 + 10);
    expect(rows.of('a').map((r) => r.EventCount)).toEqual([3]);
    expect(failures).toHaveLength(1);
    rows.failInserts = 2;
    refuse('b', 'UserRegistry.Delete', 'u', T0 + 11);
    refuse('b', 'UserRegistry.Delete', 'u', T0 + 12);
    await aggregates.close();
    expect(rows.of('b')).toEqual([]);
    expect(unwritten['write-failed']).toBe(2);
  });

  it('past the open-row capacity every open row is written out; counts and the bound stay exact', async () => {
    const { rows, unwritten, aggregates, refuse } = setUp({ capacity: 3 });
    for (let round = 0; round < 4; round++)
      for (const actor of ['a', 'b', 'c', 'd', 'e'])
        refuse(actor, 'UserRegistry.Delete', `${actor}${round}`, T0 + round);
    await aggregates.close();
    for (const actor of ['a', 'b', 'c', 'd', 'e']) expect(total(rows.of(actor))).toBe(4);
    expect(rows.rows.size).toBeLessThanOrEqual(5 * 4);
    expect(unwritten.aggregated).toBe(20 - rows.rows.size);
  });
});
