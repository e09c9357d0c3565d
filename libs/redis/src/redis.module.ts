import { Global, Inject, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { REDIS_SETTINGS, type RedisClientSettings } from '@app/config';
import { CacheEventSink } from './cache-event-sink';
import { createRedisClient } from './redis-client';
import { SentinelEventWatcher } from './sentinel-event-watcher';

/** The shared Redis client, or null when RedisConnectionString is unset (single-node mode). */
export const REDIS = Symbol('Redis');

@Global()
@Module({
  providers: [
    CacheEventSink,
    {
      provide: REDIS,
      inject: [REDIS_SETTINGS.token, CacheEventSink],
      useFactory: (settings: RedisClientSettings, sink: CacheEventSink) =>
        settings.RedisConnectionString
          ? createRedisClient(settings, sink, `${settings.InstanceName}:main`)
          : null,
    },
    {
      provide: SentinelEventWatcher,
      inject: [REDIS_SETTINGS.token, CacheEventSink],
      useFactory: (settings: RedisClientSettings, sink: CacheEventSink) =>
        settings.RedisConnectionString && settings.redisSentinels.length > 0
          ? new SentinelEventWatcher(
              {
                sentinels: settings.redisSentinels,
                masterName: settings.RedisSentinelMasterName,
                password: settings.RedisSentinelPassword,
                connectionName: `${settings.InstanceName}:sentinel-events`,
              },
              sink,
            )
          : null,
    },
  ],
  exports: [REDIS, CacheEventSink],
})
export class RedisModule implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(REDIS) private readonly redis: Redis | null,
    @Inject(SentinelEventWatcher) private readonly watcher: SentinelEventWatcher | null,
  ) {}

  onApplicationBootstrap(): void {
    this.watcher?.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.watcher?.stop();
    if (this.redis) this.redis.disconnect();
  }
}
