import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ManualClock } from '@app/runtime';
import { CaseWorkflow } from '../../libs/engine/src/entities';
import { InvokeAdmission, InvokeRefused } from '../../libs/engine/src/invoke/invoke-admission';
import {
  DatabaseIdempotencyStore,
  IDEMPOTENCY_STORE,
  IdempotencyPurgeService,
  IdempotencyRecord,
  idempotencyRecordId,
  type IdempotencyStore,
  requestFingerprint,
} from '@app/idempotency';
import { REDIS } from '@app/redis';
import type Redis from 'ioredis';
import { transaction } from '../factories/engine.factory';
import { redisUrl } from '../support/databases';
import { startTestApp, TestApp } from '../support/test-app';
import { drainedCounts, idempotencyFixture, INVOKE_ROUTE } from './setup';

const HOUR = 3_600_000;

/**
 * Each rule of Idempotency-Key, on both stores: the database (SQLite and PostgreSQL, no Redis) and Redis
 * (PostgreSQL with RedisConnectionString). The clock is manual, so the database store's expiry can be passed.
 */
describe.each([
  ['the database store (SQLite)', 'sqlite', {}],
  ['the database store (PostgreSQL)', 'postgres', {}],
  ['Redis (PostgreSQL)', 'postgres', { RedisConnectionString: redisUrl() }],
] as [string, 'sqlite' | 'postgres', Record<string, string>][])(
  'Idempotency-Key with %s',
  (_name, provider, env) => {
    const clock = new ManualClock();
    let t: TestApp;
    let fx: Awaited<ReturnType<typeof idempotencyFixture>>;
    let invokePath: string;

    beforeAll(async () => {
      t = await startTestApp(provider, { ...env, ArchiveBulkCopyIntervalMilliseconds: '600000' }, { clock });
      fx = await idempotencyFixture(t.app);
      invokePath = `/api/Invoke/EntityAnalysisModel/${fx.model.guid}`;
    });
    afterAll(() => t?.close());

    const invoke = (body: object, key?: string, path = invokePath) => {
      const r = request(t.url).post(path).set('x-api-key', fx.apiKey);
      return (key === undefined ? r : r.set('Idempotency-Key', key)).send(body);
    };

    it('without the header, every request runs (two archived invocations, two entry guids)', async () => {
      const body = transaction('NO-KEY', 1);
      const [a, b] = [await invoke(body), await invoke(body)];
      expect([a.status, b.status]).toEqual([200, 200]);
      expect(a.body.entityAnalysisModelInstanceEntryGuid).not.toBe(
        b.body.entityAnalysisModelInstanceEntryGuid,
      );
      expect(a.headers['idempotent-replayed']).toBeUndefined();
    });

    it('a retry with the same key and body gets the first answer back, marked, and runs nothing', async () => {
      const before = await drainedCounts([t.app], fx.modelId, 'RETRY');
      const key = randomUUID();
      const body = transaction('RETRY', 2);
      const first = await invoke(body, key);
      const retry = await invoke(body, key);
      expect(first.status).toBe(200);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      expect(retry.status).toBe(200);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.body).toEqual(first.body);
      const after = await drainedCounts([t.app], fx.modelId, 'RETRY');
      expect(after.archived - before.archived).toBe(1);
      expect(after.cases).toBe(1);
    });

    it('the same key with another body, or another path, is a 422 problem', async () => {
      const key = randomUUID();
      expect((await invoke(transaction('MISMATCH', 1), key)).status).toBe(200);
      const other = await invoke(transaction('MISMATCH', 9), key);
      expect(other.status).toBe(422);
      expect(other.headers['content-type']).toContain('application/problem+json');
      expect(other.body.errors[0].field).toBe('Idempotency-Key');
      const traced = await invoke(transaction('MISMATCH', 1), key, `${invokePath}?trace=true`);
      expect(traced.status).toBe(422);
    });

    it('a retry while the first still runs is a 409 problem with Retry-After', async () => {
      const key = randomUUID();
      const body = transaction('RUNNING', 1);
      const store = t.app.get<IdempotencyStore>(IDEMPOTENCY_STORE);
      const id = idempotencyRecordId(fx.admin.userId, INVOKE_ROUTE, key);
      // What a first request on any node holds while it runs.
      expect(await store.claim(id, requestFingerprint(invokePath, body), 60_000)).toEqual({
        kind: 'claimed',
      });
      const retry = await invoke(body, key);
      expect(retry.status).toBe(409);
      expect(retry.headers['retry-after']).toBe('1');
      expect(retry.headers['content-type']).toContain('application/problem+json');
      await store.release(id);
      expect((await invoke(body, key)).status).toBe(200);
    });

    it('an overload refusal written by its own filter gives the key up: the retry runs', async () => {
      const key = randomUUID();
      const body = transaction('SHED', 1);
      const admission = t.app.get(InvokeAdmission);
      const admit = jest.spyOn(admission, 'admit').mockImplementationOnce(() => {
        throw new InvokeRefused('archiver');
      });
      try {
        const shed = await invoke(body, key);
        expect(shed.status).toBe(503);
        expect(shed.headers['idempotent-replayed']).toBeUndefined();
      } finally {
        admit.mockRestore();
      }
      // The key is given up once the refused answer's connection is done with it: wait for that.
      const store = t.app.get<IdempotencyStore>(IDEMPOTENCY_STORE);
      const id = idempotencyRecordId(fx.admin.userId, INVOKE_ROUTE, key);
      const fingerprint = requestFingerprint(invokePath, body);
      while ((await store.claim(id, fingerprint, 60_000)).kind !== 'claimed')
        await new Promise(setImmediate);
      await store.release(id);
      const retry = await invoke(body, key);
      expect(retry.status).toBe(200);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
    });

    it('a key that is empty, longer than 255 or not printable ASCII is a 400 problem', async () => {
      for (const key of ['', 'x'.repeat(256), 'caf\u00e9', 'tab\there']) {
        const res = await invoke(transaction('BAD-KEY', 1), key);
        expect(res.status).toBe(400);
        expect(res.body.errors[0].field).toBe('Idempotency-Key');
      }
      expect((await invoke(transaction('BAD-KEY', 1), 'x'.repeat(255))).status).toBe(200);
    });

    it('a refusal of the request itself is kept too: the retry gets the same 422, marked', async () => {
      const key = randomUUID();
      const first = await invoke({ amount: 1 }, key);
      expect(first.status).toBe(422);
      const retry = await invoke({ amount: 1 }, key);
      expect(retry.status).toBe(422);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.body).toEqual(first.body);
    });

    it('a create replays its 201, Location and ETag, and makes one record', async () => {
      const key = randomUUID();
      const name = `Idempotent workflow ${key}`;
      const post = () =>
        request(t.url)
          .post('/api/CaseWorkflow')
          .set('x-api-key', fx.apiKey)
          .set('Idempotency-Key', key)
          .send({ name });
      const first = await post();
      const retry = await post();
      expect([first.status, retry.status]).toEqual([201, 201]);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.headers.location).toBe(first.headers.location);
      expect(retry.headers.etag).toBe(first.headers.etag);
      expect(retry.body.guid).toBe(first.body.guid);
      expect(await t.app.get(DataSource).getRepository(CaseWorkflow).countBy({ Name: name })).toBe(1);
    });

    it('keys are per route: one key on Invoke and on a create is two requests', async () => {
      const key = randomUUID();
      expect((await invoke(transaction('ROUTES', 1), key)).status).toBe(200);
      const created = await request(t.url)
        .post('/api/CaseWorkflow')
        .set('x-api-key', fx.apiKey)
        .set('Idempotency-Key', key)
        .send({ name: `Per route ${key}` });
      expect(created.status).toBe(201);
      expect(created.headers['idempotent-replayed']).toBeUndefined();
    });

    it('the answer is kept for IdempotencyRetentionHours, then the key is free again (and purged)', async () => {
      const key = randomUUID();
      const body = transaction('RETENTION', 1);
      const first = await invoke(body, key);
      const id = idempotencyRecordId(fx.admin.userId, INVOKE_ROUTE, key);
      if ('RedisConnectionString' in env) {
        // Redis expires the record itself: its time to live is the retention.
        const ttl = await t.app.get<Redis>(REDIS).pttl(`idem:${id}`);
        expect(ttl).toBeGreaterThan(24 * HOUR - 60_000);
        expect(ttl).toBeLessThanOrEqual(24 * HOUR);
        return;
      }
      clock.advance(24 * HOUR - 1_000);
      expect((await invoke(body, key)).headers['idempotent-replayed']).toBe('true');
      clock.advance(2_000);
      const records = t.app.get(DataSource).getRepository(IdempotencyRecord);
      const again = await invoke(body, key);
      expect(again.status).toBe(200);
      expect(again.headers['idempotent-replayed']).toBeUndefined();
      expect(again.body.entityAnalysisModelInstanceEntryGuid).not.toBe(
        first.body.entityAnalysisModelInstanceEntryGuid,
      );
      // The purge deletes what has expired and nothing else.
      clock.advance(24 * HOUR + 1_000);
      expect(await records.countBy({ Id: id })).toBe(1);
      await t.app.get(IdempotencyPurgeService).purge(t.app.get(DatabaseIdempotencyStore));
      expect(await records.count()).toBe(0);
    });
  },
);
