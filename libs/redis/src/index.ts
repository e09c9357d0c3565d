export * from './cache-event-sink';
export * from './redis-client';
export * from './sentinel-event-watcher';
export * from './redis.module';
