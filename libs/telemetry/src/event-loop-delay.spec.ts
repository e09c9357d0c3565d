import { Logger } from '@nestjs/common';
import { EventLoopDelay } from './event-loop-delay';
import type { DatabaseSizeGauges } from './database-size-gauges';
import { RuntimeController } from './runtime.controller';

/** Holds the event loop for `ms` once the sampler has ticked, then lets it tick again. */
function holdLoop(ms: number): Promise<void> {
  return new Promise((resolve) =>
    setTimeout(() => {
      const until = performance.now() + ms;
      while (performance.now() < until);
      setTimeout(resolve, 25);
    }, 25),
  );
}

describe('EventLoopDelay: windows and the summary warn line', () => {
  let now = 1_000_000;
  let monitor: EventLoopDelay;
  const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  const lines = () => warn.mock.calls.filter(([, m]) => String(m).startsWith('The event loop was held'));
  beforeEach(() => {
    warn.mockClear();
    monitor = new EventLoopDelay(50, () => now);
    monitor.start();
  });
  afterEach(() => monitor.stop());
  afterAll(() => warn.mockRestore());

  it('reports nothing before the first window ends; an idle window reads about 0, not the 10 ms interval', async () => {
    expect(monitor.lastWindow()).toBeNull();
    expect(monitor.worstOfLastMinute()).toBeNull();
    // GET /api/Runtime then: the window's members null, not a made-up 0
    const noSizes = { lastReading: () => null } as unknown as DatabaseSizeGauges;
    expect(new RuntimeController(monitor, noSizes).runtime()).toEqual({
      eventLoopDelay: {
        endedAt: null,
        windowSeconds: 10,
        samples: null,
        minMilliseconds: null,
        meanMilliseconds: null,
        p50Milliseconds: null,
        p90Milliseconds: null,
        p99Milliseconds: null,
        maxMilliseconds: null,
      },
      eventLoopDelayWorstOfLastMinuteMilliseconds: null,
      eventLoopDelayWarnMilliseconds: 50,
      database: { readAt: null, bytes: null, tables: [] },
    });
    await new Promise((r) => setTimeout(r, 120));
    monitor.closeWindow();
    const w = monitor.lastWindow()!;
    expect(w.samples).toBeGreaterThan(3);
    expect(w.p50).toBeLessThan(8);
    expect(w.max).toBeLessThan(50);
    expect(lines()).toHaveLength(0);
  });

  it('a window held past the threshold: one line at once, then at most one a minute, counting the windows between', async () => {
    await holdLoop(80);
    monitor.closeWindow();
    expect(monitor.lastWindow()!.max).toBeGreaterThan(60);
    expect(lines()).toHaveLength(1);
    expect(lines()[0][0]).toEqual(expect.objectContaining({ windows: 1, thresholdMilliseconds: 50 }));

    now += 30_000; // within the minute: counted, not said
    await holdLoop(120);
    monitor.closeWindow();
    expect(lines()).toHaveLength(1);

    now += 31_000; // a minute after the line: said, with both windows since
    await holdLoop(70);
    monitor.closeWindow();
    expect(lines()).toHaveLength(2);
    expect(lines()[1][0]).toEqual(expect.objectContaining({ windows: 2 }));
    expect((lines()[1][0] as { worstMilliseconds: number }).worstMilliseconds).toBeGreaterThan(100);
    // The last minute's worst: the 120 ms window ended 31 s ago, within it.
    expect(monitor.worstOfLastMinute()).toBeGreaterThan(100);
  });
});
