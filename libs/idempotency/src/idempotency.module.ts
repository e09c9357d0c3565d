import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type Redis from 'ioredis';
import { REDIS } from '@app/redis';
import { DatabaseIdempotencyStore } from './database-idempotency-store';
import { IdempotencyPurgeService } from './idempotency-purge.service';
import { IdempotencyRecord } from './idempotency-record.entity';
import { IDEMPOTENCY_STORE } from './idempotency-store';
import { IdempotencyGuard } from './idempotency.guard';
import { IdempotencyService } from './idempotency.service';
import { RedisIdempotencyStore } from './redis-idempotency-store';

/**
 * Idempotency-Key for the routes marked `@Idempotent()`. The store is chosen once, at start: Redis when
 * RedisConnectionString is set (shared by every node, expiring by itself), otherwise the database (shared by
 * the nodes of that database, purged). Global: the guard is resolved in the module of each controller.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([IdempotencyRecord])],
  providers: [
    DatabaseIdempotencyStore,
    {
      provide: IDEMPOTENCY_STORE,
      inject: [REDIS, DatabaseIdempotencyStore],
      useFactory: (redis: Redis | null, database: DatabaseIdempotencyStore) =>
        redis ? new RedisIdempotencyStore(redis) : database,
    },
    IdempotencyService,
    IdempotencyGuard,
    IdempotencyPurgeService,
  ],
  exports: [IdempotencyService, IdempotencyGuard, IDEMPOTENCY_STORE],
})
export class IdempotencyModule {}
