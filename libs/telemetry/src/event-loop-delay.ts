import { Logger } from '@nestjs/common';
import type { Meter } from '@opentelemetry/api';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

/**
 * OpenTelemetry's semantic conventions for the Node.js runtime: the event loop's delay, as gauges in seconds.
 * https://opentelemetry.io/docs/specs/semconv/runtime/nodejs-metrics/
 */
export const EVENT_LOOP_DELAY_GAUGES = {
  min: 'nodejs.eventloop.delay.min',
  max: 'nodejs.eventloop.delay.max',
  mean: 'nodejs.eventloop.delay.mean',
  stddev: 'nodejs.eventloop.delay.stddev',
  p50: 'nodejs.eventloop.delay.p50',
  p90: 'nodejs.eventloop.delay.p90',
  p99: 'nodejs.eventloop.delay.p99',
} as const;
export type EventLoopDelayStatistic = keyof typeof EVENT_LOOP_DELAY_GAUGES;

/** The sampling timer's interval (Node's default): each sample is how much later than due it ran. */
export const EVENT_LOOP_SAMPLE_MS = 10;
/** Each exported figure describes one completed window of this length, whoever reads it and how often. */
export const EVENT_LOOP_WINDOW_MS = 10_000;
/** The warn line is a summary: at most one per this. */
const WARN_EVERY_MS = 60_000;

/** One window's delays in milliseconds, and when it ended (ms since epoch). */
export type EventLoopWindow = Record<EventLoopDelayStatistic, number> & { endedAt: number; samples: number };

/**
 * The event loop's delay: `perf_hooks.monitorEventLoopDelay` samples every EVENT_LOOP_SAMPLE_MS; each sample is
 * how late the sampling timer ran beyond its interval (so an idle loop reads 0, not the interval). Every
 * EVENT_LOOP_WINDOW_MS the window's statistics are kept and the histogram reset, so every reader (the capture
 * flush, a Prometheus scrape, OTLP, the console) sees the same last window: the runtime instrumentation package
 * resets on each read instead, which with several readers makes each figure cover a different span. A window
 * whose longest delay passes EventLoopDelayWarnMilliseconds is counted, and said in one warn line a minute.
 */
export class EventLoopDelay {
  private readonly logger = new Logger('EventLoop');
  private readonly histogram: IntervalHistogram;
  private timer?: NodeJS.Timeout;
  private last: EventLoopWindow | null = null;
  /** The highest max of the windows of the last minute, kept with their end times. */
  private recent: { endedAt: number; max: number }[] = [];
  private held = { windows: 0, worst: 0, since: 0 };
  private lastWarnAt = -Infinity;

  constructor(
    /** EventLoopDelayWarnMilliseconds. */
    readonly warnMilliseconds: number,
    private readonly now: () => number = Date.now,
  ) {
    this.histogram = monitorEventLoopDelay({ resolution: EVENT_LOOP_SAMPLE_MS });
  }

  start(): void {
    this.histogram.enable();
    this.timer = setInterval(() => this.closeWindow(), EVENT_LOOP_WINDOW_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.histogram.disable();
  }

  /** The last completed window, or null before the first has ended. */
  lastWindow(): EventLoopWindow | null {
    return this.last;
  }

  /** The longest delay of the windows that ended in the last minute, in ms (null: none yet). */
  worstOfLastMinute(): number | null {
    const from = this.now() - WARN_EVERY_MS;
    const inMinute = this.recent.filter((w) => w.endedAt > from);
    return inMinute.length ? Math.max(...inMinute.map((w) => w.max)) : null;
  }

  /** The seven gauges on `meter`, each reporting the last completed window (nothing before the first). */
  observeOn(meter: Meter): void {
    const gauges = Object.fromEntries(
      (Object.keys(EVENT_LOOP_DELAY_GAUGES) as EventLoopDelayStatistic[]).map((k) => [
        k,
        meter.createObservableGauge(EVENT_LOOP_DELAY_GAUGES[k], {
          unit: 's',
          description: `Event loop delay, ${k} of the last ${EVENT_LOOP_WINDOW_MS / 1000}-second window: how much later than due a timer ran.`,
        }),
      ]),
    ) as Record<EventLoopDelayStatistic, ReturnType<Meter['createObservableGauge']>>;
    meter.addBatchObservableCallback((result) => {
      const w = this.last;
      if (!w) return;
      for (const k of Object.keys(gauges) as EventLoopDelayStatistic[])
        result.observe(gauges[k], w[k] / 1000);
    }, Object.values(gauges));
  }

  /** Ends the current window: its statistics kept, the histogram reset, the warn line when due. */
  closeWindow(): void {
    const h = this.histogram;
    const late = (ns: number) => (Number.isFinite(ns) ? Math.max(0, ns / 1e6 - EVENT_LOOP_SAMPLE_MS) : 0);
    const endedAt = this.now();
    const samples = h.count;
    this.last = {
      min: late(h.min),
      max: late(h.max),
      mean: late(h.mean),
      stddev: Number.isFinite(h.stddev) ? h.stddev / 1e6 : 0,
      p50: late(h.percentile(50)),
      p90: late(h.percentile(90)),
      p99: late(h.percentile(99)),
      endedAt,
      samples,
    };
    h.reset();
    this.recent = [
      ...this.recent.filter((w) => w.endedAt > endedAt - WARN_EVERY_MS),
      { endedAt, max: this.last.max },
    ];
    this.noteHeld(this.last);
  }

  private noteHeld(w: EventLoopWindow): void {
    if (w.max > this.warnMilliseconds) {
      if (!this.held.windows) this.held.since = w.endedAt - EVENT_LOOP_WINDOW_MS;
      this.held.windows++;
      this.held.worst = Math.max(this.held.worst, w.max);
    }
    if (!this.held.windows || w.endedAt - this.lastWarnAt < WARN_EVERY_MS) return;
    this.logger.warn(
      {
        worstMilliseconds: Math.round(this.held.worst),
        windows: this.held.windows,
        windowSeconds: EVENT_LOOP_WINDOW_MS / 1000,
        since: new Date(this.held.since).toISOString(),
        thresholdMilliseconds: this.warnMilliseconds,
      },
      `The event loop was held up to ${Math.round(this.held.worst)} ms (over EventLoopDelayWarnMilliseconds) in ${this.held.windows} window(s) since ${new Date(this.held.since).toISOString()}`,
    );
    this.lastWarnAt = w.endedAt;
    this.held = { windows: 0, worst: 0, since: 0 };
  }
}
