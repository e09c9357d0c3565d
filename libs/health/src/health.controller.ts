import { Controller, Get, HttpStatus, Req, ServiceUnavailableException } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiPropertyOptional,
  ApiTags,
} from '@nestjs/swagger';
import {
  HealthCheckResult,
  HealthCheckService,
  HealthIndicatorResult,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import { ApiProblemResponses, ProblemException, ProblemType } from '@app/problems';
import { CredentialOptional, RequestWithActor } from '@app/access';
import { Lifecycle } from '@app/runtime';
import { RedisHealthIndicator } from './redis.health';

type Check = { status: 'up' | 'down' | 'degraded'; message?: string };

/** What a signed-in caller sees of each dependency. */
function checksOf(result: HealthCheckResult): Record<string, Check> {
  const checks: Record<string, Check> = {};
  for (const [name, detail] of Object.entries(result.details)) {
    const { status, degraded, message } = detail as { status: string; degraded?: boolean; message?: string };
    checks[name] = degraded
      ? { status: 'degraded', message: message ?? `The ${name} did not answer.` }
      : status === 'up'
        ? { status: 'up' }
        : { status: 'down', message: `The ${name} did not answer.` };
  }
  return checks;
}

export class DependencyCheckDto {
  @ApiProperty({ enum: ['up', 'down', 'degraded'] }) status!: 'up' | 'down' | 'degraded';
  @ApiPropertyOptional() message?: string;
}

export class ReadyDto {
  @ApiProperty({ enum: ['ok'] }) status!: 'ok';
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { $ref: '#/components/schemas/DependencyCheckDto' },
    description: 'A signed-in caller only: each dependency (database, redis) by name',
  })
  checks?: Record<string, DependencyCheckDto>;
}

/**
 * Readiness (a load balancer acts on it): 503 while the database does not answer, 200 otherwise, also while
 * the optional Redis is away (reported degraded). Anonymous callers (the balancer) get the status code and
 * `{ status }` only; a signed-in caller also gets each dependency's state.
 */
@ApiTags('Operations')
@Controller('api/Ready')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly redis: RedisHealthIndicator,
    private readonly lifecycle: Lifecycle,
  ) {}

  @Get()
  @CredentialOptional()
  @ApiOperation({ operationId: 'getReadiness', summary: 'Readiness: 200 while the database answers' })
  @ApiExtraModels(DependencyCheckDto)
  @ApiOkResponse({ type: ReadyDto })
  @ApiProblemResponses({
    503: 'Not ready: the database is not answering, or the node is shutting down (urn:problem-type:service-unavailable); Retry-After. A signed-in caller also gets `checks`',
  })
  async ready(@Req() request: RequestWithActor): Promise<{ status: 'ok'; checks?: Record<string, Check> }> {
    const indicators = [
      (): Promise<HealthIndicatorResult> => this.db.pingCheck('database', { timeout: 2000 }),
      ...(this.redis.configured ? [() => this.redis.check('redis')] : []),
    ];
    const signedIn = request.actor !== undefined;
    // Shutting down (SIGTERM): out of the balancer first, while in-flight and arriving requests are served.
    if (this.lifecycle.draining)
      throw new ProblemException(
        HttpStatus.SERVICE_UNAVAILABLE,
        'Not Ready',
        signedIn ? 'This node is shutting down.' : undefined,
        ProblemType.unavailable,
        {},
        { 'Retry-After': '5' },
      );
    let result: HealthCheckResult;
    try {
      result = await this.health.check(indicators);
    } catch (err) {
      if (!(err instanceof ServiceUnavailableException)) throw err;
      throw new ProblemException(
        HttpStatus.SERVICE_UNAVAILABLE,
        'Not Ready',
        signedIn ? 'A dependency is not answering.' : undefined,
        ProblemType.unavailable,
        signedIn ? { checks: checksOf(err.getResponse() as HealthCheckResult) } : {},
        { 'Retry-After': '5' },
      );
    }
    return signedIn ? { status: 'ok', checks: checksOf(result) } : { status: 'ok' };
  }
}
