import request from 'supertest';
import { Logger } from '@nestjs/common';
import { EVENT_LOOP_DELAY_GAUGES, EventLoopDelay } from '@app/telemetry';
import { createUser, landlordActor } from './factories/identity.factory';
import { signIn } from './support/auth';
import { freePort } from './support/free-port';
import { samples } from './support/prometheus';
import { startTestApp, TestApp } from './support/test-app';

/** Holds the event loop for `ms`, as a long synchronous piece of work would. */
function holdLoop(ms: number): Promise<void> {
  return new Promise((resolve) =>
    setTimeout(() => {
      const until = performance.now() + ms;
      while (performance.now() < until);
      setTimeout(resolve, 30);
    }, 30),
  );
}

/**
 * The event loop's delay as OpenTelemetry's Node.js runtime conventions name it (nodejs.eventloop.delay.*,
 * gauges in seconds), on the Prometheus scrape and at GET /api/Runtime, and the summary warn line.
 */
describe('event loop delay (nodejs.eventloop.delay.*)', () => {
  let t: TestApp;
  let promPort: number;
  let landlordToken: string;
  let userToken: string;
  beforeAll(async () => {
    promPort = await freePort();
    t = await startTestApp('sqlite', {
      EnableOpenTelemetry: 'True',
      OpenTelemetryPrometheusPort: String(promPort),
      EventLoopDelayWarnMilliseconds: '80',
    });
    const landlord = await createUser(t.app, { tenantGuid: (await landlordActor(t.app)).tenantGuid });
    landlordToken = (await signIn(t.url, landlord.name, landlord.password)).token;
    const other = await createUser(t.app);
    userToken = (await signIn(t.url, other.name, other.password)).token;
  });
  afterAll(() => t?.close());

  it('exports the seven gauges with the conventions’ names and unit, the last window’s figures', async () => {
    const monitor = t.app.get(EventLoopDelay);
    const warn = jest.spyOn(Logger.prototype, 'warn');
    try {
      await holdLoop(150);
      monitor.closeWindow();
      const text = await (await fetch(`http://127.0.0.1:${promPort}/metrics`)).text();
      expect(Object.values(EVENT_LOOP_DELAY_GAUGES)).toEqual([
        'nodejs.eventloop.delay.min',
        'nodejs.eventloop.delay.max',
        'nodejs.eventloop.delay.mean',
        'nodejs.eventloop.delay.stddev',
        'nodejs.eventloop.delay.p50',
        'nodejs.eventloop.delay.p90',
        'nodejs.eventloop.delay.p99',
      ]);
      // The exporter writes an SDK instrument's name with underscores and its unit on a # UNIT line.
      for (const name of Object.values(EVENT_LOOP_DELAY_GAUGES).map((n) => n.replace(/\./g, '_'))) {
        expect(text).toContain(`# TYPE ${name} gauge`);
        expect(text).toContain(`# UNIT ${name} s\n`);
      }
      const value = (name: string) => samples(text).find((s) => s.name === name)?.value ?? NaN;
      // The 150 ms hold is the window's longest delay (in seconds); the loop was otherwise free.
      expect(value('nodejs_eventloop_delay_max')).toBeGreaterThan(0.12);
      expect(value('nodejs_eventloop_delay_max')).toBeLessThan(1);
      expect(value('nodejs_eventloop_delay_min')).toBeLessThan(0.05);
      expect(value('nodejs_eventloop_delay_p50')).toBeLessThanOrEqual(value('nodejs_eventloop_delay_p99'));
      // Above EventLoopDelayWarnMilliseconds (80): one summary line at warn.
      const lines = warn.mock.calls.filter(([, m]) => String(m).startsWith('The event loop was held'));
      expect(lines).toHaveLength(1);
      expect(lines[0][0]).toEqual(expect.objectContaining({ windows: 1, thresholdMilliseconds: 80 }));
    } finally {
      warn.mockRestore();
    }
  });

  it('GET /api/Runtime answers the same window to the landlord, 403 to anyone else', async () => {
    const monitor = t.app.get(EventLoopDelay);
    await holdLoop(120);
    monitor.closeWindow();
    const res = await request(t.url).get('/api/Runtime').set('Authorization', `Bearer ${landlordToken}`);
    expect(res.status).toBe(200);
    const w = monitor.lastWindow()!;
    expect(res.body).toEqual({
      eventLoopDelay: expect.objectContaining({
        windowSeconds: 10,
        maxMilliseconds: Math.round(w.max * 100) / 100,
        p99Milliseconds: Math.round(w.p99 * 100) / 100,
        endedAt: new Date(w.endedAt).toISOString(),
      }),
      eventLoopDelayWorstOfLastMinuteMilliseconds: expect.any(Number),
      eventLoopDelayWarnMilliseconds: 80,
      database: expect.objectContaining({ tables: expect.any(Array) }),
    });
    expect(res.body.eventLoopDelay.maxMilliseconds).toBeGreaterThan(100);
    // The first test's 150 ms window is still within the minute.
    expect(res.body.eventLoopDelayWorstOfLastMinuteMilliseconds).toBeGreaterThan(120);
    await request(t.url).get('/api/Runtime').set('Authorization', `Bearer ${userToken}`).expect(403);
    await request(t.url).get('/api/Runtime').expect(401);
  });
});
