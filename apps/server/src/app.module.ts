import { DynamicModule, Module, Type } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { LoggerModule } from 'nestjs-pino';
import { Settings, ConfigModule } from '@app/config';
import { Clock, CommonModule } from '@app/runtime';
import { ProblemFilter } from '@app/problems';
import { DatabaseModule } from '@app/database';
import { RedisModule } from '@app/redis';
import { IdempotencyModule } from '@app/idempotency';
import { IdentityModule } from '@app/identity';
import { HealthModule } from '@app/health';
import { AuthModule } from '@app/auth';
import { GridModule } from '@app/grid';
import { TelemetryModule } from '@app/telemetry';
import { EngineModule } from '@app/engine';
import { SessionsModule } from '@app/sessions';
import { ConsoleModule } from '@app/console';
import { requestLogging } from './request-logging.middleware';

export interface AppOverrides {
  clock?: Clock;
  imports?: Type[];
}

/** Composition only: every feature lives in libs/. */
@Module({})
export class AppModule {
  /** `overrides`: a replacement time source and extra modules, for tests and benchmarks. */
  static forRoot(settings: Settings, overrides: AppOverrides = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(settings),
        CommonModule.forRoot(overrides.clock),
        LoggerModule.forRoot(requestLogging(settings)),
        DatabaseModule.forRoot(),
        // Routes are registered in this order, and Express tries them in turn for every request (a path match
        // per route before the one that answers): the probes, then the invocation routes, ahead of the
        // configuration, security and console routes (docs/performance.md). Extra modules of tests and
        // benchmarks sit beside the probes.
        HealthModule,
        ...(overrides.imports ?? []),
        EngineModule,
        RedisModule,
        IdempotencyModule,
        AuthModule,
        SessionsModule,
        IdentityModule,
        TelemetryModule,
        GridModule,
        ConsoleModule,
      ],
      providers: [{ provide: APP_FILTER, useClass: ProblemFilter }],
    };
  }
}
