import 'reflect-metadata';
import { ManualClock } from '@app/runtime';
import { DatabaseIdempotencyStore, IdempotencyRecord } from '@app/idempotency';
import { expectSqlServerAccepts, NOW, recordedSqlServer } from './recorded';

/** The Idempotency-Key database store's statements on SQL Server (recorded.ts), bound as @0…@n-1. */
describe('SQL Server statements, recorded without a server: the Idempotency-Key store', () => {
  const r = recordedSqlServer();
  const [fresh, other, held] = ['a', 'b', 'c'].map((c) => c.repeat(43));

  it('claims and answers a batch with one MERGE each, releases and purges in T-SQL', async () => {
    const store = new DatabaseIdempotencyStore(r.ds.getRepository(IdempotencyRecord), new ManualClock(NOW));
    // the claim's MERGE outputs the ids it inserted: every one but the held record's
    r.recorder.answer(
      /^MERGE "IdempotencyRecord" WITH \(UPDLOCK, HOLDLOCK\).*OUTPUT inserted\."Id";$/s,
      (s) =>
        s.parameters
          .filter((_, k) => k % 3 === 0)
          .map((p) => ({ Id: p.value }))
          .filter((row) => row.Id !== held),
    );
    r.recorder.answer(/^SELECT "Id", "Record", "ExpiresAt" FROM "IdempotencyRecord" WHERE "Id" IN \(@0\)$/, [
      { Id: held, Record: JSON.stringify({ f: 'g'.repeat(43) }), ExpiresAt: String(NOW + 1_000) },
    ]);
    const statements = await r.recording(async () => {
      expect(
        await Promise.all([
          store.claim(fresh, 'f'.repeat(43), 60_000),
          store.claim(other, 'f'.repeat(43), 60_000),
          store.claim(held, 'f'.repeat(43), 60_000),
        ]),
      ).toEqual([{ kind: 'claimed' }, { kind: 'claimed' }, { kind: 'running', fingerprint: 'g'.repeat(43) }]);
      await Promise.all([
        store.complete(fresh, 'f'.repeat(43), { body: { ok: true } }, 3_600_000),
        store.complete(other, 'f'.repeat(43), { body: { ok: false } }, 3_600_000),
      ]);
      await store.release(fresh);
      expect(await store.purgeExpired(1_000)).toBe(0);
    });
    expectSqlServerAccepts(statements);
    const [claim, read, answer] = statements;
    expect(claim.sql).toMatch(
      /^MERGE "IdempotencyRecord" WITH \(UPDLOCK, HOLDLOCK\) AS t USING \(VALUES \(@0, @1, @2\), \(@3, @4, @5\), \(@6, @7, @8\)\) AS s .* WHEN NOT MATCHED THEN INSERT .* OUTPUT inserted\."Id";$/,
    );
    expect(claim.parameters.map((p) => p.type)).toEqual(
      Array(3).fill(['nvarchar', 'nvarchar', 'bigint']).flat(),
    );
    expect(read.sql).toMatch(/WHERE "Id" IN \(@0\)$/);
    expect(answer.sql).toMatch(
      /^MERGE "IdempotencyRecord" WITH \(UPDLOCK, HOLDLOCK\) AS t USING \(VALUES \(@0, @1, @2\), \(@3, @4, @5\)\) AS s .* WHEN MATCHED THEN UPDATE SET .* WHEN NOT MATCHED THEN INSERT .*;$/,
    );
    expect(statements.filter((s) => /^MERGE/.test(s.sql))).toHaveLength(2);
    expect(statements.some((s) => /FETCH NEXT/.test(s.sql))).toBe(true);
  });

  it('takes an expired record over alone: deleted while still expired, then claimed again', async () => {
    const store = new DatabaseIdempotencyStore(r.ds.getRepository(IdempotencyRecord), new ManualClock(NOW));
    // the batch's MERGE finds it held (the newest answer is used first); the read shows it expired; the
    // take-over's MERGE inserts it
    r.recorder.answer(/^MERGE "IdempotencyRecord".*OUTPUT/s, [{ Id: held }], 1);
    r.recorder.answer(/^MERGE "IdempotencyRecord".*OUTPUT/s, [], 1);
    r.recorder.answer(/^SELECT "Id", "Record", "ExpiresAt"/, [
      { Id: held, Record: JSON.stringify({ f: 'g'.repeat(43) }), ExpiresAt: String(NOW - 1) },
    ]);
    const statements = await r.recording(async () => {
      expect(await store.claim(held, 'f'.repeat(43), 60_000)).toEqual({ kind: 'claimed' });
    });
    expectSqlServerAccepts(statements);
    expect(statements.map((s) => s.sql.split(' ')[0])).toEqual(['MERGE', 'SELECT', 'DELETE', 'MERGE']);
    expect(statements[2].sql).toBe('DELETE FROM "IdempotencyRecord" WHERE "Id" = @0 AND "ExpiresAt" < @1');
  });
});
