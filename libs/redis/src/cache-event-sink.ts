import { Logger } from '@nestjs/common';

/** A subscriber to the cache client's events (the capture queues persist them). */
export interface CacheEventListener {
  connectionEvent(event: string, endpoint: string, details: string | null, occurredAt: Date): void;
  sentinelEvent(event: string, endpoint: string, details: string | null, occurredAt: Date): void;
}

type CacheEventKind = 'connectionEvent' | 'sentinelEvent';
interface EarlyEvent {
  kind: CacheEventKind;
  event: string;
  endpoint: string;
  details: string | null;
  occurredAt: Date;
}

/**
 * Receives the Redis client's connection and Sentinel events, logs them and fans them out to subscribers
 * (CacheConnectionEvent / CacheSentinelEvent rows). Events raised before anyone subscribed (the client
 * connects while the application is still being composed) are held, up to EARLY_EVENT_LIMIT, and replayed to
 * the first subscriber. A failing subscriber never reaches the Redis client.
 */
export class CacheEventSink {
  static readonly EARLY_EVENT_LIMIT = 100;
  private readonly logger = new Logger('Redis');
  private readonly listeners: CacheEventListener[] = [];
  private early: EarlyEvent[] | null = [];

  subscribe(listener: CacheEventListener): () => void {
    this.listeners.push(listener);
    const early = this.early;
    this.early = null;
    for (const e of early ?? []) this.deliver(listener, e);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }

  connectionEvent(event: string, endpoint: string, details: string | null): void {
    this.logger.debug({ event, endpoint, details }, 'Redis connection event');
    this.publish({ kind: 'connectionEvent', event, endpoint, details, occurredAt: new Date() });
  }

  sentinelEvent(event: string, endpoint: string, details: string | null): void {
    this.logger.log({ event, endpoint, details }, 'Redis sentinel event');
    this.publish({ kind: 'sentinelEvent', event, endpoint, details, occurredAt: new Date() });
  }

  private publish(e: EarlyEvent): void {
    if (this.early) {
      if (this.early.length < CacheEventSink.EARLY_EVENT_LIMIT) this.early.push(e);
      return;
    }
    for (const l of this.listeners) this.deliver(l, e);
  }

  private deliver(listener: CacheEventListener, e: EarlyEvent): void {
    try {
      listener[e.kind](e.event, e.endpoint, e.details, e.occurredAt);
    } catch (err) {
      this.logger.warn(
        `A cache event subscriber failed: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
}
