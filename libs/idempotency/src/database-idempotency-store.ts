import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, Repository } from 'typeorm';
import { Clock } from '@app/runtime';
import { isUniqueViolation } from '@app/problems';
import { Claim, claimOf, IdempotencyStore, RecordText, StoredAnswer } from './idempotency-store';
import { IdempotencyRecord } from './idempotency-record.entity';

/**
 * The statements, written once with `:name` placeholders (the driver binds every value). Plain statements rather
 * than the repository's insert/update: those build each statement from the entity's metadata on every call, which
 * cost more than the write itself on every keyed request (docs/performance.md, Idempotency-Key).
 */
const SQL = {
  claim: 'INSERT INTO "IdempotencyRecord" ("Id", "Record", "ExpiresAt") VALUES (:id, :record, :expiresAt)',
  dropExpired: 'DELETE FROM "IdempotencyRecord" WHERE "Id" = :id AND "ExpiresAt" < :now',
  read: 'SELECT "Record", "ExpiresAt" FROM "IdempotencyRecord" WHERE "Id" = :id',
  complete: 'UPDATE "IdempotencyRecord" SET "Record" = :record, "ExpiresAt" = :expiresAt WHERE "Id" = :id',
  release: 'DELETE FROM "IdempotencyRecord" WHERE "Id" = :id',
} as const;

/**
 * Records in the database (when RedisConnectionString is unset), shared by every node of that database: the
 * claim is an INSERT, which the primary key refuses for a second request (a unique violation: someone has it). A
 * record past its expiry is deleted (only if still expired) and the INSERT tried again, so of two requests that
 * find it expired only one takes it. The purge (purgeExpired) bounds the table.
 */
@Injectable()
export class DatabaseIdempotencyStore implements IdempotencyStore {
  constructor(
    @InjectRepository(IdempotencyRecord) private readonly records: Repository<IdempotencyRecord>,
    private readonly clock: Clock,
  ) {}

  private run<T>(sql: string, parameters: Record<string, unknown>): Promise<T> {
    const [text, values] = this.records.manager.connection.driver.escapeQueryWithParameters(sql, parameters);
    return this.records.query<T>(text, values);
  }

  async claim(id: string, fingerprint: string, leaseMs: number): Promise<Claim> {
    const running: RecordText = { f: fingerprint };
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = this.clock.now();
      try {
        await this.run(SQL.claim, { id, record: JSON.stringify(running), expiresAt: now + leaseMs });
        return { kind: 'claimed' };
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
      const [held] = await this.run<{ Record: string; ExpiresAt: string | number }[]>(SQL.read, { id });
      if (held && Number(held.ExpiresAt) >= now) return claimOf(held.Record);
      // Past its expiry: deleted unless another request took it meanwhile; then the INSERT again. (Purged
      // meanwhile: the INSERT again.)
      if (held) await this.run(SQL.dropExpired, { id, now });
    }
    return { kind: 'running', fingerprint };
  }

  async complete(id: string, fingerprint: string, answer: StoredAnswer, retentionMs: number): Promise<void> {
    const record: RecordText = { f: fingerprint, a: answer };
    await this.run(SQL.complete, {
      id,
      record: JSON.stringify(record),
      expiresAt: this.clock.now() + retentionMs,
    });
  }

  async release(id: string): Promise<void> {
    await this.run(SQL.release, { id });
  }

  /** Deletes up to `limit` expired records; returns how many went. */
  async purgeExpired(limit: number): Promise<number> {
    const expired = await this.records.find({
      where: { ExpiresAt: LessThan(this.clock.now()) },
      select: { Id: true },
      take: limit,
    });
    if (expired.length === 0) return 0;
    await this.records.delete(expired.map((r) => r.Id));
    return expired.length;
  }
}
