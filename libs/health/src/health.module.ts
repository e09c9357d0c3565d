import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller';
import { LiveController } from './live.controller';
import { RedisHealthIndicator } from './redis.health';

@Module({
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [HealthController, LiveController],
  providers: [RedisHealthIndicator],
})
export class HealthModule {}
