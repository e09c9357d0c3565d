import { Logger } from '@nestjs/common';
import { CacheEventSink, type CacheEventListener } from './cache-event-sink';

describe('CacheEventSink', () => {
  beforeAll(() => Logger.overrideLogger(false));

  const recorder = () => {
    const seen: string[] = [];
    const listener: CacheEventListener = {
      connectionEvent: (event, endpoint, details) => seen.push(`connection:${event}:${endpoint}:${details}`),
      sentinelEvent: (event, endpoint) => seen.push(`sentinel:${event}:${endpoint}`),
    };
    return { seen, listener };
  };

  it('holds the events raised before anyone subscribed and replays them, in order, to the first subscriber', () => {
    const sink = new CacheEventSink();
    sink.connectionEvent('connect', 'h:1', null);
    sink.sentinelEvent('+switch-master', 'h:2', 'x');
    const first = recorder();
    sink.subscribe(first.listener);
    sink.connectionEvent('ready', 'h:1', null);
    expect(first.seen).toEqual([
      'connection:connect:h:1:null',
      'sentinel:+switch-master:h:2',
      'connection:ready:h:1:null',
    ]);
  });

  it('holds at most EARLY_EVENT_LIMIT events, and a failing subscriber reaches neither the client nor the others', () => {
    const sink = new CacheEventSink();
    for (let i = 0; i < CacheEventSink.EARLY_EVENT_LIMIT + 10; i++)
      sink.connectionEvent('reconnecting', 'h:1', String(i));
    const failing: CacheEventListener = {
      connectionEvent: () => {
        throw new Error('boom');
      },
      sentinelEvent: () => undefined,
    };
    sink.subscribe(failing);
    const second = recorder();
    const unsubscribe = sink.subscribe(second.listener);
    expect(() => sink.connectionEvent('error', 'h:1', 'ECONNREFUSED')).not.toThrow();
    expect(second.seen).toEqual(['connection:error:h:1:ECONNREFUSED']);
    unsubscribe();
    sink.connectionEvent('end', 'h:1', null);
    expect(second.seen).toHaveLength(1);
  });
});
