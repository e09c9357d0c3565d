import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { CacheEventSink } from '@app/redis';
import { CaptureQueues } from './capture-queues.service';

/** Puts the cache client's events in the CacheConnectionEvent and CacheSentinelEvent queues. */
@Injectable()
export class CacheEventCapture implements OnModuleInit, OnModuleDestroy {
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly sink: CacheEventSink,
    private readonly queues: CaptureQueues,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.sink.subscribe({
      connectionEvent: (event, endpoint, details, occurredAt) =>
        this.queues.enqueueCacheConnectionEvent(event, endpoint, details, occurredAt),
      sentinelEvent: (event, endpoint, details, occurredAt) =>
        this.queues.enqueueCacheSentinelEvent(event, endpoint, details, occurredAt),
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }
}
