/* Open-loop measurement shared by bench:latency and bench:archive-purge: requests sent on a fixed schedule, each
 * answer timed from its scheduled send (a stall cannot hide); the closed loop's capacity. The load generator runs in a process of its own (bench/soak-generator.ts). */
import { appendFileSync } from 'node:fs';
import { percentile, soakLoad } from './soak-measure';

/** Sent before each part's measured seconds, not measured: the generator's new connections, warm caches. */
export const WARMUP_SECONDS = 2;

export interface Tail {
  p50: number;
  p99: number;
  p999: number;
  max: number;
  ok: number;
  offered: number;
}

export interface Target {
  url: string;
  path: string;
  apiKey: string;
}

let nextIndex = 0;

/** The threshold of the slow answers listed (the generator's own: BENCH_LATENCY_SLOW, default 100 ms). */
const SLOW_LISTED_MS =
  Number(process.env.BENCH_LATENCY_SLOW) > 1 ? Number(process.env.BENCH_LATENCY_SLOW) : 100;

/**
 * One part of a step: WARMUP_SECONDS then `seconds` of open loop at `rate` (a new generator process opens its
 * connections first); the latencies of the 200s after the warm-up.
 */
export async function openLoop(target: Target, rate: number, seconds: number): Promise<number[]> {
  const r = await soakLoad({
    ...target,
    rate,
    seconds: seconds + WARMUP_SECONDS,
    firstIndex: nextIndex,
    latencies: true,
    warmupSeconds: WARMUP_SECONDS,
  });
  nextIndex += r.sent;
  // every answer that was not a 200 is said (a 503 is a shed request; others by status or socket error)
  const shed = r.windows.reduce((n, w) => n + w.shed, 0);
  const notSent = r.windows.reduce((n, w) => n + w.notSent, 0);
  if (shed || notSent || Object.keys(r.others).length)
    console.log(
      `  ${target.path === '/' ? 'express' : 'service'} at ${rate}/s: not 200: ${JSON.stringify({ shed, notSent, ...r.others })}`,
    );
  if (process.env.BENCH_LATENCY_SLOW_FILE)
    appendFileSync(process.env.BENCH_LATENCY_SLOW_FILE, r.slow.map((s) => s.join(' ') + '\n').join(''));
  if (process.env.BENCH_LATENCY_SLOW && r.slow.length) {
    const by = new Map<number, number[]>();
    for (const [at, ms] of r.slow)
      by.set(Math.floor(at * 10) / 10, [...(by.get(Math.floor(at * 10) / 10) ?? []), ms]);
    console.log(
      `  ${target.path === '/' ? 'express' : 'service'} answers over ${SLOW_LISTED_MS} ms (s into the part: count, max ms): ` +
        [...by].map(([at, l]) => `${at.toFixed(1)}: ${l.length}, ${Math.max(...l)}`).join('; ') +
        ` (the generator's own loop: longest delay ${r.generatorLoopMaxMs} ms)`,
    );
  }
  return r.latencies;
}

export function tail(latencies: number[], offered: number): Tail {
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    p999: percentile(latencies, 99.9),
    max: latencies.reduce((m, v) => (v > m ? v : m), 0),
    ok: latencies.length,
    offered,
  };
}

/** The closed loop's worst full 10-second window, in 200s a second. */
export async function capacity(target: Target, seconds: number): Promise<number> {
  return (await closedLoop(target, seconds)).worst;
}

/** A closed loop of 16 connections: its worst full 10-s window (200s a second) and every 200 it got. */
export async function closedLoop(
  target: Target,
  seconds: number,
): Promise<{ worst: number; answers: number }> {
  const r = await soakLoad({ ...target, connections: 16, seconds, firstIndex: nextIndex });
  nextIndex += r.sent;
  const full = r.windows.slice(0, -1);
  return {
    worst: Math.floor(Math.min(...full.map((w) => w.ok)) / 10),
    answers: r.windows.reduce((n, w) => n + w.ok, 0),
  };
}

export const ms = (v: number) => (v < 10 ? v.toFixed(1) : v.toFixed(0));
export const row = (t: Tail) => `${ms(t.p50)} / ${ms(t.p99)} / ${ms(t.p999)} / ${ms(t.max)}`;
