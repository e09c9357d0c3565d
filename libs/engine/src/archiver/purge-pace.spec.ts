import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { BUSY_REST_RATIO, IDLE_REST_RATIO, PurgePace, restRatio } from './purge-pace';

describe('the purge rests longer while the node is busy', () => {
  it('rests IDLE_REST_RATIO × the batch when idle, BUSY_REST_RATIO × when busy, in proportion between', () => {
    expect(restRatio(0)).toBe(IDLE_REST_RATIO);
    expect(restRatio(0.1)).toBe(IDLE_REST_RATIO);
    expect(restRatio(0.4)).toBe(BUSY_REST_RATIO);
    expect(restRatio(1)).toBe(BUSY_REST_RATIO);
    const middle = restRatio(0.25);
    expect(middle).toBeCloseTo((IDLE_REST_RATIO + BUSY_REST_RATIO) / 2, 6);
    expect(restRatio(0.2)).toBeLessThan(middle);
    expect(restRatio(0.3)).toBeGreaterThan(middle);
  });

  it('measures the loop it runs on: a loop held by synchronous work gets the busy rest', async () => {
    const pace = new PurgePace();
    const until = performance.now() + 60;
    while (performance.now() < until); // the loop held, as by requests
    expect(await pace.rest(4)).toBeCloseTo(4 * BUSY_REST_RATIO, 6);
  });

  it('weighs the loop since the last rest began: the rest and the batch after it', async () => {
    // a loop whose utilisation is stepped by the test: each reading is the cumulative active and idle time
    const readings: EventLoopUtilization[] = [];
    let active = 0;
    let idle = 0;
    const loop = (now?: EventLoopUtilization, mark?: EventLoopUtilization): EventLoopUtilization => {
      if (now && mark) {
        const a = now.active - mark.active;
        const i = now.idle - mark.idle;
        return { active: a, idle: i, utilization: a / (a + i) };
      }
      const r = { active, idle, utilization: active / (active + idle || 1) };
      readings.push(r);
      return r;
    };
    const pace = new PurgePace(loop);
    active += 50; // the first batch ran while requests held the loop half the time
    idle += 50;
    expect(await pace.rest(2)).toBeCloseTo(2 * BUSY_REST_RATIO, 6);
    idle += 100; // then the requests stopped
    expect(await pace.rest(2)).toBeCloseTo(2 * IDLE_REST_RATIO, 6);
    active += 25; // a quarter busy: half way between
    idle += 75;
    expect(await pace.rest(2)).toBeCloseTo(2 * restRatio(0.25), 6);
    expect(readings).toHaveLength(4);
  });

  it('never rests less than a millisecond', async () => {
    expect(await new PurgePace().rest(0)).toBe(1);
  });
});
