import { Logger } from '@nestjs/common';
import { Actor } from '@app/access';
import { Lifecycle, ManualClock } from '@app/runtime';
import { loadSettings, SESSIONS_SETTINGS, sliceValues } from '@app/config';
import { IdentityAuthService } from '@app/identity';
import { EventStreamSink, StreamRegistry } from './stream-registry';

/**
 * spec: Session (JWT), "valid (streaming connection)", and Limits — the streaming-connection session re-check
 * runs every RevokedSessionCheckInterval, default s / 30. Stated as a literal: a stream whose session was
 * revoked with no message reaching this node ends at the 30-second check, not before (fake timers).
 */
const THIRTY_SECONDS = 30_000;
const T0 = Date.UTC(2026, 0, 1);

class RecordingSink implements EventStreamSink {
  readonly chunks: string[] = [];
  ended = false;
  writableLength = 0;
  private readonly closeListeners: (() => void)[] = [];
  write(chunk: string): boolean {
    this.chunks.push(chunk);
    return true;
  }
  end(): void {
    this.ended = true;
    for (const listener of this.closeListeners) listener();
  }
  destroy(): void {
    this.end();
  }
  on(_event: 'close', listener: () => void): this {
    this.closeListeners.push(listener);
    return this;
  }
}

const actor: Actor = {
  userId: 3,
  userGuid: '0195f0d2-0000-7000-8000-000000000003',
  userName: 'operator',
  tenantId: 1,
  tenantGuid: '0195f0d2-0000-7000-8000-000000000001',
  landlord: true,
  permissions: new Set(),
  credential: 'cookie',
  sessionStartedAt: T0,
};
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('streaming-connection session re-check (spec: Limits — default every 30 seconds)', () => {
  beforeAll(() => Logger.overrideLogger(false));
  afterEach(() => jest.useRealTimers());

  it("RevokedSessionCheckInterval defaults to s / 30, and a revoked session's stream ends at the 30-second check", async () => {
    const settings = loadSettings({});
    expect([settings.RevokedSessionCheckInterval, settings.RevokedSessionCheckIntervalValue]).toEqual([
      's',
      30,
    ]);
    expect(settings.revokedSessionCheckMs).toBe(THIRTY_SECONDS);
    jest.useFakeTimers({
      doNotFake: [
        'Date',
        'hrtime',
        'nextTick',
        'performance',
        'queueMicrotask',
        'setImmediate',
        'clearImmediate',
      ],
    });
    // The database says the session was revoked a millisecond after it started; no message says so.
    const identity = {
      sessionUser: () => Promise.resolve({ active: true, tokensValidFrom: T0 + 1 }),
    } as unknown as IdentityAuthService;
    const streams = new StreamRegistry(
      sliceValues(settings, SESSIONS_SETTINGS),
      identity,
      new ManualClock(T0),
      new Lifecycle(),
    );
    streams.onApplicationBootstrap();
    const sink = new RecordingSink();
    try {
      streams.open(actor, sink);
      await jest.advanceTimersByTimeAsync(THIRTY_SECONDS - 1);
      await settle();
      expect(streams.count(actor.userGuid)).toBe(1);
      expect(sink.ended).toBe(false);
      await jest.advanceTimersByTimeAsync(1);
      await settle();
      expect(streams.count(actor.userGuid)).toBe(0);
      expect(sink.ended).toBe(true);
      expect(sink.chunks.at(-1)).toBe('event: closed\ndata: {"reason":"revoked"}\n\n');
    } finally {
      streams.onModuleDestroy();
    }
  });
});
