import { randomUUID } from 'node:crypto';
import { Agent } from 'node:http';
import { transaction } from '../factories/engine.factory';
import { send } from '../support/cluster';
import type { RedisServer } from '../support/redis-server';
import { startTestApp, startTwoNodesSharingRedis, type TestApp } from '../support/test-app';
import { drainedCounts, idempotencyFixture } from './setup';

const REQUESTS = 50;

/**
 * 50 Invokes with one Idempotency-Key at once: one runs, the others find it running (409) or answered (a
 * replay of the same entry guid). One archived invocation and at most one case, however the requests land.
 */
async function fiftyAtOnce(nodes: TestApp[]) {
  const fx = await idempotencyFixture(nodes[0].app);
  const account = `CONCURRENT-${randomUUID()}`;
  const before = await drainedCounts(
    nodes.map((n) => n.app),
    fx.modelId,
    account,
  );
  const key = randomUUID();
  const body = JSON.stringify(transaction(account, 10));
  const agent = new Agent({ keepAlive: true, maxSockets: REQUESTS });
  const answers = await Promise.all(
    Array.from({ length: REQUESTS }, (_, i) =>
      send(
        agent,
        `${nodes[i % nodes.length].url}/api/Invoke/EntityAnalysisModel/${fx.model.guid}`,
        'POST',
        { 'x-api-key': fx.apiKey, 'content-type': 'application/json', 'idempotency-key': key },
        body,
      ),
    ),
  );
  agent.destroy();
  const after = await drainedCounts(
    nodes.map((n) => n.app),
    fx.modelId,
    account,
  );
  const ok = answers.filter((a) => a.status === 200);
  const guids = new Set(
    ok.map(
      (a) =>
        (JSON.parse(a.body) as { entityAnalysisModelInstanceEntryGuid: string })
          .entityAnalysisModelInstanceEntryGuid,
    ),
  );
  return {
    statuses: new Set(answers.map((a) => a.status)),
    ok: ok.length,
    guids: guids.size,
    archived: after.archived - before.archived,
    cases: after.cases - before.cases,
  };
}

function expectOneRun(r: Awaited<ReturnType<typeof fiftyAtOnce>>) {
  expect([...r.statuses].every((s) => s === 200 || s === 409)).toBe(true);
  expect(r.ok).toBeGreaterThanOrEqual(1);
  expect(r.guids).toBe(1);
  expect(r.archived).toBe(1);
  expect(r.cases).toBeLessThanOrEqual(1);
}

describe('50 concurrent Invokes with one Idempotency-Key', () => {
  describe('two nodes on PostgreSQL sharing Redis', () => {
    let redis: RedisServer;
    let a: TestApp;
    let b: TestApp;
    beforeAll(async () => {
      ({ redis, a, b } = await startTwoNodesSharingRedis({ ArchiveBulkCopyIntervalMilliseconds: '600000' }));
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
      await redis?.stop();
    });

    it('give one archived invocation, at most one case, one entry guid in every 200 (the rest 409)', async () => {
      expectOneRun(await fiftyAtOnce([a, b]));
    });
  });

  describe('one node on SQLite (the database store)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp('sqlite', { ArchiveBulkCopyIntervalMilliseconds: '600000' });
    });
    afterAll(() => t?.close());

    it('give one archived invocation, at most one case, one entry guid in every 200 (the rest 409)', async () => {
      expectOneRun(await fiftyAtOnce([t]));
    });
  });
});
