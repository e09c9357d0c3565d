import 'reflect-metadata';
import { ManualClock } from '@app/runtime';
import { DatabaseIdempotencyStore, IdempotencyRecord } from '@app/idempotency';
import { expectSqlServerAccepts, NOW, recordedSqlServer } from './recorded';

/** The Idempotency-Key database store's statements on SQL Server (recorded.ts), bound as @0…@n-1. */
describe('SQL Server statements, recorded without a server: the Idempotency-Key store', () => {
  const r = recordedSqlServer();

  it('claims, answers, releases and purges in T-SQL', async () => {
    const store = new DatabaseIdempotencyStore(r.ds.getRepository(IdempotencyRecord), new ManualClock(NOW));
    const id = 'a'.repeat(43);
    const statements = await r.recording(async () => {
      expect(await store.claim(id, 'f'.repeat(43), 60_000)).toEqual({ kind: 'claimed' });
      await store.complete(id, 'f'.repeat(43), { body: { ok: true } }, 3_600_000);
      await store.release(id);
      expect(await store.purgeExpired(1_000)).toBe(0);
    });
    expectSqlServerAccepts(statements);
    expect(statements[0].sql).toMatch(/^INSERT INTO "IdempotencyRecord" .*VALUES \(@0, @1, @2\)$/);
    expect(statements.some((s) => /FETCH NEXT/.test(s.sql))).toBe(true);
  });
});
