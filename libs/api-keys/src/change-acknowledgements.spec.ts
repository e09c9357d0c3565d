import { Logger } from '@nestjs/common';
import type { Counter } from '@opentelemetry/api';
import Redis from 'ioredis';
import { RedisServer, startRedisServer } from '../../../test/support/redis-server';
import { API_KEY_ACK_CHANNEL, ChangeAcknowledgements } from './change-acknowledgements';

const CHANNEL = 'test:api-keys';

/**
 * The acting node waits for as many acknowledgements as PUBLISH reported subscribers, and no longer than its
 * timeout: a subscriber that never acknowledges (a node stuck, or a client that only listens) costs the answer
 * the timeout, and is logged and counted. A real Redis server.
 */
describe('ChangeAcknowledgements (a real Redis)', () => {
  let server: RedisServer;
  const clients: Redis[] = [];
  const client = () => {
    const c = new Redis(server.url);
    clients.push(c);
    return c;
  };
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await server.stop();
  });

  /** A node: subscribed to both channels, acknowledging what it receives when `acknowledges`. */
  async function node(name: string, acknowledges: boolean, timeoutMs: number, counter?: Counter) {
    const acks = new ChangeAcknowledgements(client(), timeoutMs, name, counter);
    const subscriber = client();
    await subscriber.subscribe(CHANNEL, API_KEY_ACK_CHANNEL);
    subscriber.on('message', (channel: string, payload: string) => {
      if (channel === API_KEY_ACK_CHANNEL) return acks.received(payload);
      const { ack } = JSON.parse(payload) as { ack: string };
      if (acknowledges) void acks.acknowledge(ack);
    });
    return acks;
  }

  it('answers once every subscriber acknowledged', async () => {
    const acting = await node('a', true, 60_000);
    await node('b', true, 60_000);
    await node('c', true, 60_000);
    const ack = acting.newId();
    const delivery = await acting.publish(CHANNEL, JSON.stringify({ ack }), ack, 'revoked');
    expect(delivery).toEqual({ receivers: 3, acknowledged: 3, timedOut: false });
  });

  it('a subscriber that never acknowledges: answered at the timeout, logged and counted', async () => {
    const added: unknown[] = [];
    const counter = { add: (n: number, attributes: unknown) => added.push([n, attributes]) } as Counter;
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const acting = await node('d', true, 300, counter);
      await node('e', false, 300);
      const ack = acting.newId();
      const delivery = await acting.publish(CHANNEL, JSON.stringify({ ack }), ack, 'revoked');
      // The earlier test's three nodes are still subscribed and acknowledge: 5 receivers, 4 acknowledgements.
      expect(delivery).toEqual({ receivers: 5, acknowledged: 4, timedOut: true });
      expect(added).toEqual([[1, { event: 'revoked' }]]);
      expect(warn).toHaveBeenCalledWith(
        expect.objectContaining({ receivers: 5, acknowledged: 4 }),
        expect.stringContaining('before every node applied it'),
      );
    } finally {
      warn.mockRestore();
    }
  });

  it('without Redis there is nothing to wait for', async () => {
    const alone = new ChangeAcknowledgements(null, 60_000, 'alone');
    expect(await alone.publish(CHANNEL, '{}', alone.newId(), 'created')).toEqual({
      receivers: 0,
      acknowledged: 0,
      timedOut: false,
    });
  });
});
