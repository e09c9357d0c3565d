import { Logger } from '@nestjs/common';
import Redis from 'ioredis';
import type { SentinelEndpoint } from '@app/config';
import type { CacheEventSink } from './cache-event-sink';
import { formatEndpoint } from './redis-client';

export interface SentinelEventWatcherOptions {
  sentinels: readonly SentinelEndpoint[];
  /** The monitored master whose events are kept. */
  masterName: string;
  /** The Sentinels' own password (RedisSentinelPassword). */
  password?: string;
  connectionName?: string;
}

/** The back-off after the n-th Sentinel in a row could not be reached or subscribed to. */
export function sentinelBackOffMilliseconds(failures: number): number {
  return Math.min(failures * 200, 2000);
}

/**
 * True when a Sentinel event is about the master: its payload names it as a token (`master mymaster ...`,
 * `... @ mymaster ip port`, `+switch-master mymaster old-ip old-port new-ip new-port`). The Sentinels' own
 * gossip (`__sentinel__:hello`) is never kept.
 */
export function concernsMaster(channel: string, payload: string, masterName: string): boolean {
  return !channel.startsWith('__sentinel__') && payload.split(' ').includes(masterName);
}

/**
 * Listens to the events one Sentinel publishes (`PSUBSCRIBE *`) and gives those about the master to the
 * sink (CacheSentinelEvent rows, Endpoint = that Sentinel). One Sentinel at a time: every Sentinel of a
 * quorum publishes the same failover, so listening to all of them would record each event once per Sentinel.
 * When the Sentinel goes away (or refuses the subscription) the watcher moves on to the next one in the
 * list, round robin, with a capped back-off, so events keep coming while any Sentinel is up. Events
 * published while it is between Sentinels are lost: the Sentinels do not keep them.
 */
export class SentinelEventWatcher {
  private readonly logger = new Logger('RedisSentinel');
  private client: Redis | undefined;
  private timer: NodeJS.Timeout | undefined;
  private currentEndpoint = '';
  private next = 0;
  private failures = 0;
  private stopped = true;

  constructor(
    private readonly options: SentinelEventWatcherOptions,
    private readonly sink: CacheEventSink,
  ) {
    if (options.sentinels.length === 0) throw new Error('SentinelEventWatcher needs at least one Sentinel');
  }

  /** host:port of the Sentinel listened to (or being tried); undefined while between two or stopped. */
  get current(): string | undefined {
    return this.client ? this.currentEndpoint : undefined;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.client?.disconnect();
    this.client = undefined;
  }

  private connect(): void {
    const { host, port } = this.options.sentinels[this.next];
    this.next = (this.next + 1) % this.options.sentinels.length;
    const endpoint = formatEndpoint(host, port);
    const client = new Redis({
      host,
      port,
      password: this.options.password,
      connectionName: this.options.connectionName,
      // This class chooses the next Sentinel itself: ioredis never reconnects this client.
      retryStrategy: () => null,
      enableReadyCheck: false,
      autoResubscribe: false,
      connectTimeout: 5000,
      lazyConnect: true,
    });
    this.client = client;
    this.currentEndpoint = endpoint;
    let connected = false;
    client.on('connect', () => {
      connected = true;
      this.sink.connectionEvent('connect', endpoint, null);
    });
    client.on('error', (err: Error) => this.sink.connectionEvent('error', endpoint, err.message));
    client.on('pmessage', (_pattern: string, channel: string, payload: string) => {
      if (concernsMaster(channel, payload, this.options.masterName))
        this.sink.sentinelEvent(channel, endpoint, payload);
    });
    client.once('end', () => {
      if (connected) this.sink.connectionEvent('close', endpoint, null);
      if (this.client !== client || this.stopped) return;
      this.client = undefined;
      this.failures++;
      const delay = sentinelBackOffMilliseconds(this.failures);
      this.logger.warn(
        { sentinel: endpoint, nextInMs: delay },
        'Redis Sentinel unreachable or lost; trying the next one',
      );
      this.timer = setTimeout(() => {
        this.timer = undefined;
        if (!this.stopped) this.connect();
      }, delay);
      this.timer.unref();
    });
    client
      .connect()
      .then(() => client.psubscribe('*'))
      .then(() => {
        this.failures = 0;
        this.logger.log({ sentinel: endpoint }, 'Listening to the Redis Sentinel events');
      })
      .catch((err: unknown) => {
        // 'error' already reported a connection failure; a refused PSUBSCRIBE (NOAUTH) ends it here.
        if (client.status !== 'end') {
          this.sink.connectionEvent('error', endpoint, err instanceof Error ? err.message : String(err));
          client.disconnect();
        }
      });
  }
}
