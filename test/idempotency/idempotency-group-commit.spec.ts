import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { getRepositoryToken } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { ManualClock } from '@app/runtime';
import { type Claim, DatabaseIdempotencyStore, IdempotencyRecord } from '@app/idempotency';
import { transaction } from '../factories/engine.factory';
import { startTestApp, type TestApp } from '../support/test-app';
import { drainedCounts, idempotencyFixture } from './setup';

/** More keys than one statement carries (ROWS_PER_STATEMENT, 32): a batch of several statements. */
const KEYS = 70;
const CONCURRENT_INVOKES = 40;

/**
 * The database store's group commit: what one turn of the event loop claims or answers is written by a few
 * multi-row statements, and nothing is lost or doubled by it, on SQLite and PostgreSQL.
 */
describe.each(['sqlite', 'postgres'] as const)('Idempotency-Key group commit on %s', (provider) => {
  const clock = new ManualClock();
  let t: TestApp;
  let store: DatabaseIdempotencyStore;
  let records: Repository<IdempotencyRecord>;

  beforeAll(async () => {
    t = await startTestApp(provider, { ArchiveBulkCopyIntervalMilliseconds: '600000' }, { clock });
    store = t.app.get(DatabaseIdempotencyStore);
    records = t.app.get(getRepositoryToken(IdempotencyRecord));
  });
  afterAll(() => t?.close());

  /** The claim statements `work` sent (multi-row INSERTs or MERGEs into the table). */
  async function claimStatements(work: () => Promise<void>): Promise<number> {
    const query = jest.spyOn(records, 'query');
    try {
      await work();
      return query.mock.calls.filter(([sql]) => /^INSERT .*DO NOTHING/.test(sql)).length;
    } finally {
      query.mockRestore();
    }
  }

  it('claims of one turn: each fresh id claimed once, a second request of an id finds the first running, held ids as they are', async () => {
    const fresh = Array.from({ length: KEYS }, () => randomUUID());
    const running = randomUUID();
    const answered = randomUUID();
    const expired = randomUUID();
    expect(await store.claim(running, 'f-running', 60_000)).toEqual({ kind: 'claimed' });
    expect(await store.claim(answered, 'f-answered', 60_000)).toEqual({ kind: 'claimed' });
    await store.complete(answered, 'f-answered', { body: { kept: true } }, 60_000);
    expect(await store.claim(expired, 'f-expired', 1_000)).toEqual({ kind: 'claimed' });
    clock.advance(2_000);

    let claims: Claim[] = [];
    const statements = await claimStatements(async () => {
      claims = await Promise.all([
        ...fresh.map((id) => store.claim(id, `f-${id}`, 60_000)),
        store.claim(fresh[0], `f-${fresh[0]}`, 60_000),
        store.claim(fresh[1], 'another request', 60_000),
        store.claim(running, 'f-running', 60_000),
        store.claim(answered, 'f-answered', 60_000),
        store.claim(expired, 'f-expired-retry', 60_000),
      ]);
    });
    expect(claims.slice(0, KEYS)).toEqual(fresh.map(() => ({ kind: 'claimed' })));
    expect(claims.slice(KEYS)).toEqual([
      { kind: 'running', fingerprint: `f-${fresh[0]}` },
      { kind: 'running', fingerprint: `f-${fresh[1]}` },
      { kind: 'running', fingerprint: 'f-running' },
      { kind: 'answered', fingerprint: 'f-answered', answer: { body: { kept: true } } },
      { kind: 'claimed' },
    ]);
    // 75 claims in statements of at most 32 rows, and the expired record's take-over alone
    expect(statements).toBe(4);
    expect(await records.countBy({})).toBeGreaterThanOrEqual(KEYS + 3);
  });

  it('answers of one turn are each kept (the last of an id wins) and each replayed', async () => {
    const ids = Array.from({ length: KEYS }, () => randomUUID());
    const claims = await Promise.all(ids.map((id) => store.claim(id, `f-${id}`, 60_000)));
    expect(claims.every((c) => c.kind === 'claimed')).toBe(true);
    await Promise.all([
      ...ids.map((id, i) => store.complete(id, `f-${id}`, { body: { i } }, 60_000)),
      store.complete(ids[0], `f-${ids[0]}`, { status: 201, body: { last: true } }, 60_000),
    ]);
    const retries = await Promise.all(ids.map((id) => store.claim(id, `f-${id}`, 60_000)));
    expect(retries).toEqual(
      ids.map((id, i) => ({
        kind: 'answered',
        fingerprint: `f-${id}`,
        answer: i === 0 ? { status: 201, body: { last: true } } : { body: { i } },
      })),
    );
  });

  it(`${CONCURRENT_INVOKES} concurrent Invokes with distinct keys on one node each run once, and each retry replays its own answer`, async () => {
    const fx = await idempotencyFixture(t.app);
    const account = `BATCH-${randomUUID()}`;
    const path = `/api/Invoke/EntityAnalysisModel/${fx.model.guid}`;
    const before = await drainedCounts([t.app], fx.modelId, account);
    const keys = Array.from({ length: CONCURRENT_INVOKES }, () => randomUUID());
    const bodies = keys.map((_, i) => transaction(account, i + 1));
    const invoke = (key: string, i: number) =>
      request(t.url).post(path).set('x-api-key', fx.apiKey).set('Idempotency-Key', key).send(bodies[i]);
    const first = await Promise.all(keys.map(invoke));
    expect(first.map((r) => r.status)).toEqual(keys.map(() => 200));
    expect(first.every((r) => r.headers['idempotent-replayed'] === undefined)).toBe(true);
    const guids = first.map((r) => r.body.entityAnalysisModelInstanceEntryGuid as string);
    expect(new Set(guids).size).toBe(CONCURRENT_INVOKES);
    const retries = await Promise.all(keys.map(invoke));
    expect(retries.map((r) => r.status)).toEqual(keys.map(() => 200));
    expect(retries.every((r) => r.headers['idempotent-replayed'] === 'true')).toBe(true);
    expect(retries.map((r) => r.body)).toEqual(first.map((r) => r.body));
    const after = await drainedCounts([t.app], fx.modelId, account);
    expect(after.archived - before.archived).toBe(CONCURRENT_INVOKES);
  });
});
