import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import Redis from 'ioredis';
import { withTimeout } from '@app/runtime';
import { REDIS } from '@app/redis';

/**
 * Redis is optional for a node's work: while it is away, cross-node messages wait for the periodic refresh
 * and rate limits are counted per node, but no request fails and no row is lost. So it never takes the node
 * out of a load balancer: it is reported `up` with `degraded: true` (and a message) to signed-in callers.
 */
@Injectable()
export class RedisHealthIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    @Inject(REDIS) private readonly redis: Redis | null,
  ) {}

  get configured(): boolean {
    return this.redis !== null;
  }

  async check(key: 'redis'): Promise<HealthIndicatorResult<'redis'>> {
    const session = this.indicators.check(key);
    try {
      await withTimeout(this.redis!.ping(), 1000, 'Redis PING');
      return session.up();
    } catch {
      return session.up({
        degraded: true,
        message: 'Redis did not answer: cross-node messages wait for the periodic refresh.',
      });
    }
  }
}
