import { Logger } from '@nestjs/common';
import type { Counter } from '@opentelemetry/api';
import { randomBytes } from 'node:crypto';
import type Redis from 'ioredis';

/** Where each node says it has applied an API-key message to its key set: `{ v: 1, ack, node }`. */
export const API_KEY_ACK_CHANNEL = 'decisioning:api-keys:applied';

/** The counter of changes answered before every subscribed node had acknowledged them. */
export const UNACKNOWLEDGED_CHANGES = 'service.api_keys.changes.unacknowledged';

/** An acknowledgement id: 16 random bytes, hex. */
const ACK_ID = /^[0-9a-f]{32}$/;

export function isAckId(value: unknown): value is string {
  return typeof value === 'string' && ACK_ID.test(value);
}

/** What waiting for a change's acknowledgements came to. */
export interface Delivery {
  /** How many subscribers Redis delivered the message to (PUBLISH's answer; 0: no Redis, or it failed). */
  receivers: number;
  acknowledged: number;
  timedOut: boolean;
}

interface Waiter {
  acknowledged: number;
  needed: number;
  done: () => void;
}

/**
 * Closes the other nodes' window of an API-key change: the acting node publishes the change with an id, every
 * node subscribed (itself included) applies it to its key set and then publishes the id on API_KEY_ACK_CHANNEL,
 * and the acting node answers once as many acknowledgements came back as PUBLISH said it reached subscribers.
 * Bounded by `timeoutMs`: a node that does not answer in time is logged and counted, never waited for longer;
 * it still applies the change at its next full reload at the latest.
 */
export class ChangeAcknowledgements {
  private readonly logger = new Logger('ApiKeyCache');
  private readonly waiting = new Map<string, Waiter>();

  constructor(
    private readonly redis: Redis | null,
    private readonly timeoutMs: number,
    private readonly node: string,
    private readonly unacknowledged?: Counter,
  ) {}

  /** A fresh id for a message to be acknowledged. */
  newId(): string {
    return randomBytes(16).toString('hex');
  }

  /**
   * Publishes `payload` (carrying `ack`) on `channel` and waits for its acknowledgements, or the timeout. A
   * failed PUBLISH is logged: the other nodes then apply the change at their next refresh.
   */
  async publish(channel: string, payload: string, ack: string, event: string): Promise<Delivery> {
    if (!this.redis) return { receivers: 0, acknowledged: 0, timedOut: false };
    let finish!: () => void;
    const settled = new Promise<void>((resolve) => (finish = resolve));
    // Registered before PUBLISH: an acknowledgement may arrive before PUBLISH's own answer does.
    const waiter: Waiter = { acknowledged: 0, needed: Infinity, done: finish };
    this.waiting.set(ack, waiter);
    try {
      let receivers: number;
      try {
        receivers = await this.redis.publish(channel, payload);
      } catch (err) {
        // Publish/subscribe is best effort; the periodic reload still bounds the change (spec: API keys 3).
        this.logger.warn(
          { err, event },
          'Could not publish an API key change; other nodes apply it at their next refresh',
        );
        return { receivers: 0, acknowledged: 0, timedOut: false };
      }
      waiter.needed = receivers;
      if (waiter.acknowledged >= receivers)
        return { receivers, acknowledged: waiter.acknowledged, timedOut: false };
      const timer = setTimeout(finish, this.timeoutMs);
      await settled;
      clearTimeout(timer);
      const timedOut = waiter.acknowledged < receivers;
      if (timedOut) this.timedOut(event, receivers, waiter.acknowledged);
      return { receivers, acknowledged: waiter.acknowledged, timedOut };
    } finally {
      this.waiting.delete(ack);
    }
  }

  /** An acknowledgement arrived (a message on API_KEY_ACK_CHANNEL): counted when it is one this node awaits. */
  received(payload: string): void {
    let ack: unknown;
    try {
      ack = (JSON.parse(payload) as { ack?: unknown }).ack;
    } catch {
      return;
    }
    const waiter = isAckId(ack) ? this.waiting.get(ack) : undefined;
    if (!waiter) return;
    waiter.acknowledged++;
    if (waiter.acknowledged >= waiter.needed) waiter.done();
  }

  /** Says on Redis that this node has applied the message `ack`. */
  async acknowledge(ack: string): Promise<void> {
    if (!this.redis) return;
    try {
      await this.redis.publish(API_KEY_ACK_CHANNEL, JSON.stringify({ v: 1, ack, node: this.node }));
    } catch (err) {
      this.logger.warn({ err }, 'Could not acknowledge an API key change');
    }
  }

  private timedOut(event: string, receivers: number, acknowledged: number): void {
    this.unacknowledged?.add(1, { event });
    this.logger.warn(
      { event, receivers, acknowledged, timeoutMs: this.timeoutMs },
      `An API key change was answered before every node applied it (${acknowledged} of ${receivers} acknowledged within ${this.timeoutMs} ms); the others apply it at their next refresh`,
    );
  }
}
