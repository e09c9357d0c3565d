import type Redis from 'ioredis';
import { Claim, claimOf, IdempotencyStore, RecordText, StoredAnswer } from './idempotency-store';

const PREFIX = 'idem:';

/**
 * Records in Redis, shared by every node: the claim is `SET NX PX` (the running record, for the lease), the
 * answer replaces it with the retention as its expiry; Redis drops expired keys itself.
 */
export class RedisIdempotencyStore implements IdempotencyStore {
  constructor(private readonly redis: Redis) {}

  async claim(id: string, fingerprint: string, leaseMs: number): Promise<Claim> {
    const running: RecordText = { f: fingerprint };
    // A record that expires between the SET and the GET is gone: try again (twice is plenty).
    for (let attempt = 0; attempt < 3; attempt++) {
      const set = await this.redis.set(PREFIX + id, JSON.stringify(running), 'PX', leaseMs, 'NX');
      if (set === 'OK') return { kind: 'claimed' };
      const held = await this.redis.get(PREFIX + id);
      if (held !== null) return claimOf(held);
    }
    return { kind: 'running', fingerprint };
  }

  async complete(id: string, fingerprint: string, answer: StoredAnswer, retentionMs: number): Promise<void> {
    const record: RecordText = { f: fingerprint, a: answer };
    await this.redis.set(PREFIX + id, JSON.stringify(record), 'PX', retentionMs);
  }

  async release(id: string): Promise<void> {
    await this.redis.del(PREFIX + id);
  }
}
