import { Controller, Get, HttpStatus, Inject } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { TypeOrmHealthIndicator } from '@nestjs/terminus';
import Redis from 'ioredis';
import { ProblemException, ProblemType, Public, withTimeout } from '@app/common';
import { REDIS } from '@app/redis';

type CheckResult = { status: 'up' | 'down'; message?: string };

/** Readiness: the database answers, and Redis when it is configured. Anonymous. */
@ApiTags('Operations')
@Controller('api/Ready')
export class HealthController {
  constructor(
    private readonly db: TypeOrmHealthIndicator,
    @Inject(REDIS) private readonly redis: Redis | null,
  ) {}

  @Get()
  @Public()
  async ready(): Promise<{ status: 'ok'; checks: Record<string, CheckResult> }> {
    const checks: Record<string, CheckResult> = {};
    try {
      await this.db.pingCheck('database', { timeout: 2000 });
      checks.database = { status: 'up' };
    } catch {
      checks.database = { status: 'down', message: 'The database did not answer.' };
    }
    if (this.redis) {
      try {
        await withTimeout(this.redis.ping(), 1000, 'Redis PING');
        checks.redis = { status: 'up' };
      } catch {
        checks.redis = { status: 'down', message: 'Redis did not answer.' };
      }
    }
    if (Object.values(checks).some((c) => c.status === 'down')) {
      throw new ProblemException(
        HttpStatus.SERVICE_UNAVAILABLE,
        'Not Ready',
        'A dependency is not answering.',
        ProblemType.unavailable,
        { checks },
        { 'Retry-After': '5' },
      );
    }
    return { status: 'ok', checks };
  }
}
