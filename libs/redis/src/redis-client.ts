import Redis, { type RedisOptions } from 'ioredis';
import type { Settings } from '@app/config';
import type { CacheEventSink } from './cache-event-sink';

/** host:port of a Redis URL, without credentials. */
export function redisEndpoint(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '6379'}`;
  } catch {
    return 'unknown';
  }
}

/** host:port, an IPv6 host in brackets. */
export function formatEndpoint(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** The settings a Redis client is made from. */
export type RedisSettings = Pick<
  Settings,
  'RedisConnectionString' | 'redisSentinels' | 'RedisSentinelMasterName' | 'RedisSentinelPassword'
>;

// Reconnect for ever with a capped back-off: Redis is optional, the service keeps running without it.
const cappedBackOff = (times: number): number => Math.min(times * 200, 2000);

/**
 * ioredis options for Sentinel mode. The Sentinels name the master, so the URL gives only the scheme
 * (rediss: TLS to the master; the Sentinels themselves are spoken to in plain TCP), the credentials and the
 * database; its host and port are ignored.
 */
export function sentinelClientOptions(settings: RedisSettings): RedisOptions {
  const u = new URL(settings.RedisConnectionString ?? '');
  const db = Number(u.pathname.replace(/^\//, '') || '0');
  return {
    sentinels: settings.redisSentinels.map(({ host, port }) => ({ host, port })),
    name: settings.RedisSentinelMasterName,
    sentinelPassword: settings.RedisSentinelPassword,
    sentinelRetryStrategy: cappedBackOff,
    // A +switch-master from any Sentinel drops the connection at once, rather than waiting for the old
    // master to refuse writes.
    failoverDetector: true,
    username: decoded(u.username) || undefined,
    password: decoded(u.password) || undefined,
    db: Number.isSafeInteger(db) ? db : 0,
    ...(u.protocol === 'rediss:' ? { tls: {}, enableTLSForSentinelMode: true } : {}),
  };
}

/** A URL's percent-encoded part, as typed when it is not valid percent-encoding. */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/**
 * A Redis client for RedisConnectionString, through the Sentinels when RedisSentinels is set, reporting its
 * connection events to the sink. The endpoint of those events is host:port of the server (in Sentinel mode
 * the master actually connected to, `sentinel:<master name>` while none is), never credentials.
 */
export function createRedisClient(settings: RedisSettings, sink: CacheEventSink, name: string): Redis {
  const url = settings.RedisConnectionString;
  if (!url) throw new Error('RedisConnectionString is not set');
  const common: RedisOptions = {
    connectionName: name,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: cappedBackOff,
    lazyConnect: false,
    // Off: see createChannelSubscriber, which subscribes again itself.
    autoResubscribe: false,
    // The commands of one turn of the event loop leave in one write: a keyed Invoke's SET NX PX and SET PX share
    // writes with other requests' (docs/performance.md, Idempotency-Key). ioredis keeps subscriptions out of it.
    enableAutoPipelining: true,
  };
  const sentinelMode = settings.redisSentinels.length > 0;
  const client = sentinelMode
    ? new Redis({ ...sentinelClientOptions(settings), ...common })
    : new Redis(url, common);
  const unknown = sentinelMode ? `sentinel:${settings.RedisSentinelMasterName}` : redisEndpoint(url);
  let endpoint = unknown;
  const report = (event: string, arg: unknown) =>
    sink.connectionEvent(
      event,
      endpoint,
      typeof arg === 'string' || typeof arg === 'number' ? String(arg) : null,
    );
  client.on('connect', () => {
    if (sentinelMode) {
      const socket = client.stream;
      endpoint =
        socket.remoteAddress && socket.remotePort
          ? formatEndpoint(socket.remoteAddress, socket.remotePort)
          : unknown;
    }
    report('connect', null);
  });
  for (const event of ['ready', 'reconnecting', 'end'] as const)
    client.on(event, (arg: unknown) => report(event, arg));
  client.on('close', () => {
    report('close', null);
    endpoint = unknown;
  });
  client.on('error', (err: Error) => sink.connectionEvent('error', endpoint, err.message));
  // One Sentinel could not be asked (the client goes on to the next one).
  client.on('sentinelError', (err: Error) => sink.connectionEvent('sentinelError', endpoint, err.message));
  return client;
}

/** What a channel subscriber does with what arrives; none of these may throw. */
export interface ChannelHandlers {
  /** A message on one of the channels (`channel`: which). */
  message(payload: string, channel: string): void;
  /** After a reconnect: messages published while this node was away are lost, so catch up another way. */
  reconnected(): void;
  /** SUBSCRIBE was refused or could not be sent; the next connection tries again. */
  subscribeFailed(err: unknown): void;
}

/**
 * A client of its own (a subscribed connection takes no other command) that subscribes to `channel` (one, or
 * several) on every connection. ioredis's own re-subscription after a reconnect is off: it sends SUBSCRIBE without
 * handling the answer, and when the connection drops again at that moment (the stream already closed, no
 * offline queue) the rejection is unhandled and ends the process. Here every SUBSCRIBE's failure reaches
 * `subscribeFailed`.
 */
export function createChannelSubscriber(
  settings: RedisSettings,
  sink: CacheEventSink,
  name: string,
  channel: string | readonly string[],
  handlers: ChannelHandlers,
): Redis {
  const client = createRedisClient(settings, sink, name);
  const channels = typeof channel === 'string' ? [channel] : [...channel];
  let connectedBefore = false;
  client.on('ready', () => {
    client.subscribe(...channels).catch((err: unknown) => handlers.subscribeFailed(err));
    if (connectedBefore) handlers.reconnected();
    connectedBefore = true;
  });
  client.on('message', (received: string, payload: string) => {
    if (channels.includes(received)) handlers.message(payload, received);
  });
  return client;
}
