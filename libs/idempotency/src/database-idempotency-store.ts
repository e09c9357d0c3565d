import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, Repository } from 'typeorm';
import { Clock, isUniqueViolation } from '@app/common';
import { Claim, claimOf, IdempotencyStore, RecordText, StoredAnswer } from './idempotency-store';
import { IdempotencyRecord } from './idempotency-record.entity';

/**
 * Records in the database (when RedisConnectionString is unset), shared by every node of that database: the
 * claim is an INSERT, which the primary key refuses for a second request (a unique violation: someone has it);
 * an expired record is taken over by an UPDATE conditioned on its expiry, so only one request can take it.
 * The purge (purgeExpired) bounds the table.
 */
@Injectable()
export class DatabaseIdempotencyStore implements IdempotencyStore {
  constructor(
    @InjectRepository(IdempotencyRecord) private readonly records: Repository<IdempotencyRecord>,
    private readonly clock: Clock,
  ) {}

  async claim(id: string, fingerprint: string, leaseMs: number): Promise<Claim> {
    const running: RecordText = { f: fingerprint };
    for (let attempt = 0; attempt < 3; attempt++) {
      const now = this.clock.now();
      const row = { Id: id, Record: JSON.stringify(running), ExpiresAt: now + leaseMs };
      try {
        await this.records.insert(row);
        return { kind: 'claimed' };
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
      const taken = await this.records.update({ Id: id, ExpiresAt: LessThan(now) }, row);
      if (taken.affected === 1) return { kind: 'claimed' };
      const held = await this.records.findOne({ where: { Id: id }, select: { Record: true } });
      // Purged between the INSERT and the SELECT: try again.
      if (held) return claimOf(held.Record);
    }
    return { kind: 'running', fingerprint };
  }

  async complete(id: string, fingerprint: string, answer: StoredAnswer, retentionMs: number): Promise<void> {
    const record: RecordText = { f: fingerprint, a: answer };
    await this.records.update(
      { Id: id },
      { Record: JSON.stringify(record), ExpiresAt: this.clock.now() + retentionMs },
    );
  }

  async release(id: string): Promise<void> {
    await this.records.delete({ Id: id });
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
