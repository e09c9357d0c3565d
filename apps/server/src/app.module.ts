import { DynamicModule, Module, Type } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { LoggerModule, Params } from 'nestjs-pino';
import type { Options as PinoHttpOptions } from 'pino-http';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Settings, ConfigModule } from '@app/config';
import { Clock, CommonModule, ProblemFilter, terminalLogStream } from '@app/common';
import { DatabaseModule } from '@app/database';
import { RedisModule } from '@app/redis';
import { IdentityModule } from '@app/identity';
import { HealthModule } from '@app/health';
import { AuthModule } from '@app/auth';
import { GridModule } from '@app/grid';
import { TelemetryModule } from '@app/telemetry';
import { EngineModule } from '@app/engine';
import { SessionsModule } from '@app/sessions';
import { ConsoleModule } from '@app/console';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface AppOverrides {
  clock?: Clock;
  imports?: Type[];
}

/** JSON lines to stdout, or readable lines when stdout is a terminal. */
function withDestination(options: PinoHttpOptions): Params['pinoHttp'] {
  const stream = terminalLogStream();
  return stream ? [options, stream] : options;
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
        LoggerModule.forRoot({
          pinoHttp: withDestination({
            level: settings.LogLevel,
            genReqId: (req: IncomingMessage, res: ServerResponse) => {
              const incoming = req.headers['x-request-id'];
              const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
              res.setHeader('x-request-id', id);
              return id;
            },
            customProps: () => ({ instance: settings.InstanceName }),
            // Secrets never reach a log line.
            redact: {
              paths: [
                'req.headers.authorization',
                'req.headers.cookie',
                'req.headers["x-api-key"]',
                'res.headers["set-cookie"]',
                '*.password',
                '*.newPassword',
                '*.repeatNewPassword',
              ],
              censor: '[redacted]',
            },
            serializers: {
              req: (req: { id: unknown; method: unknown; url: unknown }) => ({
                id: req.id,
                method: req.method,
                url: typeof req.url === 'string' ? req.url.split('?')[0] : req.url,
              }),
            },
          }),
        }),
        DatabaseModule.forRoot(),
        RedisModule,
        AuthModule,
        SessionsModule,
        IdentityModule,
        HealthModule,
        TelemetryModule,
        GridModule,
        ...(overrides.imports ?? []),
        EngineModule,
        ConsoleModule,
      ],
      providers: [{ provide: APP_FILTER, useClass: ProblemFilter }],
    };
  }
}
