import { Logger } from '@nestjs/common';
import Redis from 'ioredis';
import { loadSettings } from '@app/config';
import { startRedisServer, RedisServer } from '../../../test/support/redis-server';
import { waitFor } from '../../../test/support/spawn-server';
import { CacheEventSink } from './cache-event-sink';
import { createChannelSubscriber, createRedisClient } from './redis-client';

describe('a channel subscriber across Redis restarts (a real redis-server)', () => {
  let redis: RedisServer;
  let publisher: Redis;
  let subscriber: Redis;
  const received: string[] = [];
  let reconnects = 0;
  const failures: unknown[] = [];
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  beforeAll(async () => {
    Logger.overrideLogger(false);
    process.on('unhandledRejection', onUnhandled);
    redis = await startRedisServer();
    const settings = loadSettings({ RedisConnectionString: redis.url });
    const sink = new CacheEventSink();
    publisher = createRedisClient(settings, sink, 'test:publisher');
    subscriber = createChannelSubscriber(settings, sink, 'test:subscriber', 'test-channel', {
      message: (payload) => received.push(payload),
      reconnected: () => reconnects++,
      subscribeFailed: (err) => failures.push(err),
    });
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    subscriber.disconnect();
    publisher.disconnect();
    await redis.stop();
  });

  /** Publishes until the subscriber has the payload (its SUBSCRIBE may still be on its way). */
  const deliver = async (payload: string) => {
    await waitFor(
      async () => {
        if (publisher.status === 'ready') await publisher.publish('test-channel', payload).catch(() => 0);
        return received.includes(payload);
      },
      10_000,
      `the subscriber to receive ${payload}`,
    );
  };

  it('ioredis does not subscribe again by itself: its unanswered SUBSCRIBE would end the process', () => {
    expect(subscriber.options.autoResubscribe).toBe(false);
    expect(publisher.options.autoResubscribe).toBe(false);
  });

  it('receives before and after each of three restarts, reports each reconnect, and nothing is unhandled', async () => {
    await deliver('before');
    for (let round = 1; round <= 3; round++) {
      await redis.pause();
      await redis.start();
      await deliver(`after restart ${round}`);
    }
    expect(reconnects).toBe(3);
    expect(unhandled).toEqual([]);
    expect(failures).toEqual([]);
  });

  it('takes only its own channel', async () => {
    await publisher.publish('another-channel', 'not mine');
    await deliver('mine');
    expect(received).not.toContain('not mine');
  });
});
