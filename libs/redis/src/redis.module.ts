import { Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { SETTINGS, Settings } from '@app/config';

/** The shared Redis client, or null when RedisConnectionString is unset (single-node mode). */
export const REDIS = Symbol('Redis');

/** Receives the Redis client's connection events (persisted later as CacheConnectionEvent rows). */
export abstract class CacheEventSink {
  abstract connectionEvent(event: string, endpoint: string, details: string | null): void;
  abstract sentinelEvent(event: string, endpoint: string, details: string | null): void;
}

/** Default sink: logs only. */
export class LoggingCacheEventSink extends CacheEventSink {
  private readonly logger = new Logger('Redis');
  connectionEvent(event: string, endpoint: string, details: string | null): void {
    this.logger.log({ event, endpoint, details }, 'Redis connection event');
  }
  sentinelEvent(event: string, endpoint: string, details: string | null): void {
    this.logger.log({ event, endpoint, details }, 'Redis sentinel event');
  }
}

/** host:port of a Redis URL, without credentials. */
export function redisEndpoint(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '6379'}`;
  } catch {
    return 'unknown';
  }
}

export function createRedisClient(url: string, sink: CacheEventSink, name: string): Redis {
  const client = new Redis(url, {
    connectionName: name,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    // Reconnect for ever with a capped back-off: Redis is optional, the service keeps running without it.
    retryStrategy: (times) => Math.min(times * 200, 2000),
    lazyConnect: false,
  });
  const endpoint = redisEndpoint(url);
  for (const event of ['connect', 'ready', 'close', 'reconnecting', 'end'] as const) {
    client.on(event, (arg: unknown) =>
      sink.connectionEvent(event, endpoint, typeof arg === 'string' || typeof arg === 'number' ? String(arg) : null),
    );
  }
  client.on('error', (err: Error) => sink.connectionEvent('error', endpoint, err.message));
  return client;
}

@Global()
@Module({
  providers: [
    { provide: CacheEventSink, useClass: LoggingCacheEventSink },
    {
      provide: REDIS,
      inject: [SETTINGS, CacheEventSink],
      useFactory: (settings: Settings, sink: CacheEventSink) =>
        settings.RedisConnectionString
          ? createRedisClient(settings.RedisConnectionString, sink, `${settings.InstanceName}:main`)
          : null,
    },
  ],
  exports: [REDIS, CacheEventSink],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis | null) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.redis) this.redis.disconnect();
  }
}
