/* npm run bench:latency — how fast EACH Invoke answers while the pipelines work, open loop: requests sent on a
 * fixed schedule, each answer timed from its scheduled send (a stall cannot hide), against bare Express 5
 * answering the same JSON POST at the same rates in the same run (the ratio is the figure: this machine's
 * absolute times move). Per database: the capacity (a closed loop of 16 connections for BENCH_LATENCY_SECONDS,
 * its worst full 10-s window), then steps at 30 %, 60 % and 80 % of it, the service and Express alternating;
 * during the 60 % step the event loop's delay as the service exports it (nodejs.eventloop.delay.*), beside bare
 * Express's measured the same way in its own process (what the machine alone does to a loop at that rate).
 * Every invocation is a new account (each raises a case). The load generator runs in its own process.
 * Each row also gives every target's main thread during its parts (Linux: /proc/<pid>/task/<pid>/schedstat):
 * its share of the time on a core, its share ready but waiting for one, and its time on a core per answer; the
 * capacity line the same over the closed loop: the open loop's rates are fractions of a closed loop, and the
 * main thread's share, not the fraction, is what a queue's tail follows.
 *   BENCH_LATENCY_DATABASES   postgres,sqlite (default both); PostgreSQL is a throwaway cluster (fsync off)
 *                             unless DATABASE_URL names a server
 *   BENCH_LATENCY_SECONDS     length of the capacity run, and of each step (default 30), run in ROUNDS
 *                             alternating parts of Express and the service, so noise falls on both alike;
 *                             each part is preceded by 2 s of the same load, not measured (new connections)
 *   BENCH_LATENCY_CAPACITY    a capacity measured before (skips the closed loop)
 *   BENCH_LATENCY_FRACTIONS   the steps as fractions of the capacity (default 0.3,0.6,0.8)
 *   BENCH_LATENCY_SETTINGS    settings of the service to try, as JSON (e.g. {"ArchiveBulkCopyIntervalMilliseconds":"200"})
 *   BENCH_LATENCY_VARIANT_FLAGS  Node flags of a second service (its own database), measured in the same
 *                             alternation at the same rates (e.g. "--max-semi-space-size=32"): a change
 *                             weighed within one run, not against another run on a machine whose speed moves
 *   BENCH_LATENCY_VARIANT_SETTINGS  settings of that second service, as JSON, over BENCH_LATENCY_SETTINGS (either
 *                             variant option starts it): a setting weighed within one run, as the flags are
 *   BENCH_LATENCY_VARIANT_ROOT  a checkout (a git worktree of another commit, its node_modules linked) whose
 *                             service is that second service (with the flags and settings above, if any): a
 *                             change of code weighed within one run
 *   BENCH_LATENCY_NEST        1 adds bare Nest 11 answering the same JSON POST (nest-json) as one more target in
 *                             the same alternation: the framework's own tail beside the service's
 *   BENCH_LATENCY_CONTROL     1 adds the control as one more target: bare Express doing a fixed computation an
 *                             answer, calibrated (closed loop, twice) to the service's capacity, nothing else:
 *                             what any server of that capacity shows at these rates on this machine
 *   BENCH_LATENCY_SLOW        list the answers slower than this many ms (default 100) with when they were sent;
 *   BENCH_LATENCY_SLOW_FILE   and append them to this file as "s-into-the-part ms monotonic-ms" lines, to lay
 *                             beside a CPU profile of the service (BENCH_CPU_PROF_DIR: the same clock)
 *   BENCH_LATENCY_PROMOTED    1: during the 60 % step V8's sampling heap profiler in the service, keeping what
 *                             outlived a young collection; prints its 40 largest allocation sites (what feeds the
 *                             Mark-Compacts)
 *   BENCH_SERVICE_NODE_FLAGS  Node flags of the service (e.g. --trace-gc); BENCH_SERVICE_STDOUT a file for its
 *                             output after start (the trace's lines), which is otherwise read and dropped */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { DEMO_MODEL_GUID } from '@app/engine';
import { freePort } from '../test/support/free-port';
import { startPostgresServer } from '../test/support/postgres-server';
import { samples } from '../test/support/prometheus';
import {
  capacity,
  closedLoop,
  openLoop,
  row,
  tail,
  ms,
  WARMUP_SECONDS,
  type Tail,
  type Target,
} from './open-loop';
import { newPostgresDatabase } from './postgres-database';
import { createApiKey, runBench, settle, spawnRung, words, type RungProcess } from './support';

const DATABASES = (process.env.BENCH_LATENCY_DATABASES ?? 'postgres,sqlite').split(',').map((d) => d.trim());
const SECONDS = Number(process.env.BENCH_LATENCY_SECONDS ?? 30);
const GIVEN_CAPACITY = Number(process.env.BENCH_LATENCY_CAPACITY ?? 0);
const FRACTIONS = (process.env.BENCH_LATENCY_FRACTIONS ?? '0.3,0.6,0.8').split(',').map(Number);
const VARIANT_FLAGS = words(process.env.BENCH_LATENCY_VARIANT_FLAGS);
const VARIANT_SETTINGS = JSON.parse(process.env.BENCH_LATENCY_VARIANT_SETTINGS ?? '{}') as Record<
  string,
  string
>;
/** The variant's checkout: another commit's service (a worktree, its node_modules linked), measured beside. */
const VARIANT_ROOT = process.env.BENCH_LATENCY_VARIANT_ROOT;
const WITH_VARIANT =
  VARIANT_FLAGS.length > 0 || Object.keys(VARIANT_SETTINGS).length > 0 || VARIANT_ROOT !== undefined;
/** The variant's row: its checkout, flags and settings. */
const VARIANT_NAME = [
  ...(VARIANT_ROOT ? [basename(VARIANT_ROOT)] : []),
  ...VARIANT_FLAGS,
  ...Object.entries(VARIANT_SETTINGS).map(([k, v]) => `${k}=${v}`),
].join(' ');
const WITH_NEST = process.env.BENCH_LATENCY_NEST === '1';
const WITH_CONTROL = process.env.BENCH_LATENCY_CONTROL === '1';
/** Each step's time is split into this many alternating parts per target (4 with more than one after
 * Express: an even number, so each is first as often). */
const ROUNDS = WITH_VARIANT || WITH_NEST || WITH_CONTROL ? 4 : 3;
/** Between two parts: the pipelines of the part before catch up, so they do not load the next target. */
const SETTLE_MS = 3_000;
/** The machine's CPU time so far, all cores (/proc/stat's first line, in jiffies); null where there is none. */
function cpuTimes(): { busy: number; total: number; steal: number } | null {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
    const total = f.reduce((a, b) => a + (b || 0), 0);
    // steal: time the hypervisor gave this VM's cores to others (counted as busy: the cores were not ours)
    return { busy: total - f[3] - (f[4] || 0), total, steal: f[7] || 0 };
  } catch {
    return null;
  }
}

/**
 * A process's main thread so far (/proc/<pid>/task/<pid>/schedstat, ns): its time on a core and its time ready
 * but waiting for one; null where there is none.
 */
function mainThread(pid: number): { run: number; wait: number } | null {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    return { run, wait };
  } catch {
    return null;
  }
}

/** A target's answers over a step, and how busy the machine's cores were during its parts (%; NaN: unknown). */
interface StepResult {
  tail: Tail;
  machineBusy: number;
  /** Of which stolen by the hypervisor (%). */
  machineSteal: number;
  /** The target's main thread during its parts (the warm-ups included): on a core, and ready but waiting (%). */
  mainBusy: number;
  mainWaiting: number;
  /** Its time on a core per answer sent (µs). */
  mainMicros: number;
  /** When its generator sent (its parts, warm-ups included; Date.now ms). */
  sending: [number, number][];
}

/**
 * A step: ROUNDS rounds of one part of each target, bare Express first, then the service and any variant, the
 * two in turn first (a target that follows another's part may meet what the other left running); the
 * latencies of each target merged, in the targets' order, with the machine's CPU use during its parts (the
 * generator, every server and the database share the cores: a target's tail is also the machine's load).
 */
async function step(targets: Target[], pids: number[], rate: number): Promise<StepResult[]> {
  const part = Math.max(5, Math.round(SECONDS / ROUNDS));
  const latencies = targets.map((): number[] => []);
  const cpu = targets.map(() => ({ busy: 0, total: 0, steal: 0 }));
  const main = targets.map(() => ({ run: 0, wait: 0 }));
  const sending = targets.map((): [number, number][] => []);
  for (let round = 0; round < ROUNDS; round++) {
    const order = targets.map((_, i) => i);
    if (round % 2 === 1) order.splice(1, order.length - 1, ...order.slice(1).reverse());
    for (const i of order) {
      const before = cpuTimes();
      const mainBefore = mainThread(pids[i]);
      const from = Date.now();
      latencies[i].push(...(await openLoop(targets[i], rate, part)));
      sending[i].push([from, Date.now()]);
      const mainAfter = mainThread(pids[i]);
      const after = cpuTimes();
      if (mainBefore && mainAfter) {
        main[i].run += mainAfter.run - mainBefore.run;
        main[i].wait += mainAfter.wait - mainBefore.wait;
      }
      if (before && after) {
        cpu[i].busy += after.busy - before.busy;
        cpu[i].total += after.total - before.total;
        cpu[i].steal += after.steal - before.steal;
      }
      await new Promise((r) => setTimeout(r, SETTLE_MS));
    }
  }
  const offered = Math.round(rate * part) * ROUNDS;
  // the generator sends for the warm-up and the part; the main thread's share is of that time
  const sendingNs = (part + WARMUP_SECONDS) * ROUNDS * 1e9;
  const sent = (sendingNs / 1e9) * rate;
  return latencies.map((l, i) => ({
    tail: tail(l, offered),
    machineBusy: cpu[i].total ? (cpu[i].busy / cpu[i].total) * 100 : NaN,
    machineSteal: cpu[i].total ? (cpu[i].steal / cpu[i].total) * 100 : NaN,
    mainBusy: main[i].run ? (main[i].run / sendingNs) * 100 : NaN,
    mainWaiting: main[i].run ? (main[i].wait / sendingNs) * 100 : NaN,
    mainMicros: main[i].run ? main[i].run / 1e3 / sent : NaN,
    sending: sending[i],
  }));
}

/** One process's event loop delay over a step: the highest of each statistic over its 10-s windows (ms). */
interface LoopSource {
  name: string;
  start(): Promise<void>;
  stop(): Promise<Record<string, number>>;
  /** The same over only the window that lies most within each of these spans (Date.now ms), where it can tell. */
  within?(spans: [number, number][]): Record<string, number>;
}

/** A 10-s window of the export, seen by a scrape within 2 s of its end: its span estimated to ±1 s. */
const WINDOW_SEEN_MS = { from: 11_000, to: 1_000 };

/** The highest of each statistic over these windows' figures. */
function highest(figures: Record<string, number>[]): Record<string, number> {
  const top: Record<string, number> = {};
  for (const f of figures) for (const [k, v] of Object.entries(f)) top[k] = Math.max(top[k] ?? 0, v);
  return top;
}

/** A service's delay as it exports it: its nodejs.eventloop.delay gauges, scraped every 2 s. */
function scraped(name: string, port: number): LoopSource {
  // each window once, when a scrape first saw it (a window's figures differ from the one before)
  const windows: { seenAt: number; figures: Record<string, number> }[] = [];
  let running = false;
  let scraping: Promise<void> = Promise.resolve();
  return {
    name,
    start: () => {
      running = true;
      scraping = (async () => {
        while (running) {
          await new Promise((r) => setTimeout(r, 2_000));
          const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text().catch(() => '');
          const figures: Record<string, number> = {};
          for (const s of samples(text)) {
            const m = /^nodejs_eventloop_delay_(\w+)$/.exec(s.name);
            if (m) figures[m[1]] = s.value * 1000;
          }
          const last = windows.at(-1)?.figures;
          if (Object.keys(figures).length && JSON.stringify(figures) !== JSON.stringify(last))
            windows.push({ seenAt: Date.now(), figures });
        }
      })();
      return Promise.resolve();
    },
    stop: async () => {
      running = false;
      await scraping;
      return highest(windows.map((w) => w.figures));
    },
    within: (spans) => {
      // a part of a few seconds may straddle two windows: each part's window is the one it overlaps most
      const most: Record<string, number>[] = [];
      for (const [a, b] of spans) {
        let best: { overlap: number; figures: Record<string, number> } | undefined;
        for (const w of windows) {
          const [from, to] = [w.seenAt - WINDOW_SEEN_MS.from, w.seenAt - WINDOW_SEEN_MS.to];
          const overlap = Math.min(b, to) - Math.max(a, from);
          if (overlap > 0 && overlap > (best?.overlap ?? 0)) best = { overlap, figures: w.figures };
        }
        if (best) most.push(best.figures);
      }
      return highest(most);
    },
  };
}

/** A bare server's delay, measured in its process by the same EventLoopDelay (its 10-s windows). */
function measuredIn(name: string, rung: RungProcess): LoopSource {
  return {
    name,
    start: () => rung.ask<void>('loop-start'),
    stop: () => rung.ask<Record<string, number>>('loop-stop'),
  };
}

/** Each source's event loop delay while `during` ran. */
async function loopDelayWhile(
  sources: LoopSource[],
  during: Promise<StepResult[]>,
  /** Each source's target among the step's results (for LoopSource.within), by the source's name. */
  targetOf: Map<string, number>,
): Promise<[StepResult[], LoopReport]> {
  await Promise.all(sources.map((s) => s.start()));
  const results = await during;
  // the window that was open when the load ended closes within 10 s: read it too
  await new Promise((r) => setTimeout(r, 10_500));
  const worst = await Promise.all(sources.map((s) => s.stop()));
  const report: LoopReport = new Map();
  sources.forEach((s, i) => {
    const target = targetOf.get(s.name);
    const within = s.within && target !== undefined ? s.within(results[target].sending) : undefined;
    report.set(s.name, { worst: worst[i], within });
  });
  return [results, report];
}

/** By source: the highest of each statistic over the step's windows, and over those within its own parts. */
type LoopReport = Map<string, { worst: Record<string, number>; within?: Record<string, number> }>;

/** The service's allocation sites by what outlived a young collection, in bytes per measured answer of the step
 * (the parts' unmeasured warm-ups allocate too: about WARMUP_SECONDS / part more than the answers counted). */
function printPromoted(sites: { bytes: number; site: string }[], answers: number): void {
  const all = sites.reduce((n, s) => n + s.bytes, 0);
  console.log(
    `  outlived a young collection during the 60 % step (sampled; the 40 largest sites, ${(all / answers).toFixed(0)} bytes per measured answer in all, warm-ups included):`,
  );
  for (const s of sites) console.log(`    ${(s.bytes / answers).toFixed(1)} B  ${s.site}`);
}

/** The service (or its variant) with these flags, its Invoke as a target, and its Prometheus port. */
async function startService(
  settings: Record<string, string>,
  flags: string[],
  /** The variant's own settings, over every other. */
  overrides: Record<string, string> = {},
  /** The checkout whose service runs (the variant's may be another). */
  root?: string,
): Promise<{ process: RungProcess; target: Target; promPort: number }> {
  const promPort = await freePort();
  const service = await spawnRung(
    'service',
    {
      LogLevel: 'info',
      EnableOpenTelemetry: 'True',
      OpenTelemetryPrometheusPort: String(promPort),
      ...settings,
      ...(JSON.parse(process.env.BENCH_LATENCY_SETTINGS ?? '{}') as Record<string, string>),
      ...overrides,
    },
    [],
    flags,
    root,
  );
  const target: Target = {
    url: service.url,
    path: `/api/Invoke/EntityAnalysisModel/${DEMO_MODEL_GUID}`,
    apiKey: await createApiKey(service.url, service.token, 'latency'),
  };
  return { process: service, target, promPort };
}

/** The service's closed loop (its capacity) with its main thread's time on a core over it. */
async function closedLoopOf(
  target: Target,
  pid: number,
): Promise<{ worst: number; busy: number; waiting: number; micros: number }> {
  const before = mainThread(pid);
  const started = performance.now();
  const r = await closedLoop(target, SECONDS);
  const wallNs = (performance.now() - started) * 1e6;
  const after = mainThread(pid);
  if (!before || !after) return { worst: r.worst, busy: NaN, waiting: NaN, micros: NaN };
  return {
    worst: r.worst,
    busy: ((after.run - before.run) / wallNs) * 100,
    waiting: ((after.wait - before.wait) / wallNs) * 100,
    micros: (after.run - before.run) / 1e3 / r.answers,
  };
}

const mainOf = (c: { busy: number; waiting: number; micros: number }) =>
  `the main thread on a core ${c.busy.toFixed(0)} % (waiting for one ${c.waiting.toFixed(0)} %), ${c.micros.toFixed(0)} µs an answer`;

/** A bare server's POST as a target. */
const bareTarget = (rung: RungProcess, path: string): Target => ({ url: rung.url, path, apiKey: 'unused' });

/**
 * The control: bare Express doing `micros` of computation an answer, the micros set so that its closed loop's
 * capacity is `cap` (from bare Express's own, then corrected once by what the first guess measured: the
 * generator shares the cores, so a microsecond of work is not exactly a microsecond less a second).
 */
async function control(cap: number): Promise<{ rung: RungProcess; name: string }> {
  let micros = 0;
  let rung = await spawnRung('express-work');
  let measured = await capacity(bareTarget(rung, '/control'), SECONDS);
  for (let i = 0; i < 2; i++) {
    micros = Math.max(0, micros + 1e6 * (1 / cap - 1 / measured));
    await rung.stop();
    rung = await spawnRung('express-work', { WorkMicroseconds: String(micros) });
    measured = await capacity(bareTarget(rung, '/control'), SECONDS);
  }
  const name = ` control: Express + ${micros.toFixed(0)} µs of work an answer (its capacity ${measured}/s, ${(measured / cap).toFixed(2)}× the service's)`;
  return { rung, name };
}

/** A target's row of a step, beside bare Express's (`base`). */
function stepLine(label: string, r: StepResult, base: StepResult): string {
  const t = r.tail;
  const busy = (x: StepResult) => `${x.machineBusy.toFixed(0)} % (${x.machineSteal.toFixed(0)} %)`;
  const thread = (x: StepResult) =>
    `${x.mainBusy.toFixed(0)} % (${x.mainWaiting.toFixed(0)} %), ${x.mainMicros.toFixed(0)} µs`;
  return (
    `| ${label} | ${row(t)} | ${row(base.tail)} | ${(t.p99 / base.tail.p99).toFixed(2)}× | ` +
    `${(t.p999 / base.tail.p999).toFixed(2)}× | ${t.ok} / ${t.offered} | ${busy(r)} / ${busy(base)} | ${thread(r)} / ${thread(base)} |`
  );
}

/** Each source's event loop delay over the 60 % step. */
function printLoopDelays(loop: LoopReport): void {
  const names = ['min', 'mean', 'p50', 'p90', 'p99', 'max'];
  const figures = (f: Record<string, number>) =>
    Object.keys(f).length ? names.map((n) => `${n} ${ms(f[n] ?? 0)}`).join(', ') : 'none exported';
  for (const [name, { worst, within }] of loop) {
    const who = name === 'service' ? 'the service as it exports it' : name;
    console.log(
      `  event loop delay during the 60 % step (highest 10-s window, ms), ${who}: ${figures(worst)}`,
    );
    // a service's windows while other targets ran hold its pipelines' catch-up on cores others were using
    if (within)
      console.log(
        `    the same, of the window most within each of its own parts (the load it answered): ${figures(within)}`,
      );
  }
}

/** `database`: a new database's settings (each service, and the variant, on its own). */
async function oneDatabase(provider: string, database: () => Promise<Record<string, string>>): Promise<void> {
  const service = await startService(await database(), []);
  const variant = WITH_VARIANT
    ? await startService(await database(), VARIANT_FLAGS, VARIANT_SETTINGS, VARIANT_ROOT)
    : undefined;
  const { promPort } = service;
  const invoke = service.target;
  const express: RungProcess = await spawnRung('express-json');
  const nest = WITH_NEST ? await spawnRung('nest-json') : undefined;
  let controlled: { rung: RungProcess; name: string } | undefined;
  try {
    const bare = bareTarget(express, '/');
    const measuredCapacity = GIVEN_CAPACITY ? undefined : await closedLoopOf(invoke, service.process.pid);
    const cap = GIVEN_CAPACITY || measuredCapacity!.worst;
    // the control measured once the service's pipelines have caught up with its capacity run
    if (WITH_CONTROL) await settle(service.process);
    controlled = WITH_CONTROL ? await control(cap) : undefined;
    // after the service: each further target beside Express, with the name of its row
    const others: { name: string; target: Target }[] = [
      ...(variant ? [{ name: ` ${VARIANT_NAME}`, target: variant.target }] : []),
      ...(nest ? [{ name: ' bare Nest 11', target: bareTarget(nest, '/invoke') }] : []),
      ...(controlled ? [{ name: controlled.name, target: bareTarget(controlled.rung, '/control') }] : []),
    ];
    const targets = [bare, invoke, ...others.map((o) => o.target)];
    const pids = [
      express.pid,
      service.process.pid,
      ...(variant ? [variant.process.pid] : []),
      ...(nest ? [nest.pid] : []),
      ...(controlled ? [controlled.rung.pid] : []),
    ];
    console.log(
      `\n## ${provider}: capacity ${cap}/s (${GIVEN_CAPACITY ? 'given' : `closed loop, 16 connections, worst 10-s window of ${SECONDS} s; ${mainOf(measuredCapacity!)}`})`,
    );
    console.log(
      "| rate | service p50 / p99 / p99.9 / max ms | bare Express 5 p50 / p99 / p99.9 / max ms | p99 ratio | p99.9 ratio | service 200s / offered | cores busy (stolen): its parts / Express's | main thread on a core (waiting for one), µs an answer: its / Express's |",
    );
    console.log('|---|---|---|---|---|---|---|---|');
    // the variant is warmed as the capacity run warmed the service (its code compiled, its pools open)
    if (variant) await openLoop(variant.target, Math.round(cap * 0.8), SECONDS);
    // the 60 % step's event loop delay: the service's own export, its variant's, and bare Express's (and
    // Nest's) measured in their processes the same way: what the machine alone does to a loop at that rate
    const loopSources = [
      scraped('service', promPort),
      ...(variant ? [scraped(VARIANT_NAME, variant.promPort)] : []),
      measuredIn('bare Express 5', express),
      ...(nest ? [measuredIn('bare Nest 11', nest)] : []),
      ...(controlled ? [measuredIn('the control', controlled.rung)] : []),
    ];
    let loop: LoopReport = new Map();
    const targetOf = new Map([
      ['service', 1],
      [VARIANT_NAME, 2],
    ]);
    for (const fraction of FRACTIONS) {
      const rate = Math.round(cap * fraction);
      let results: StepResult[];
      const sampling = fraction === 0.6 && process.env.BENCH_LATENCY_PROMOTED === '1';
      if (sampling) await service.process.ask('promoted-start');
      if (fraction === 0.6)
        [results, loop] = await loopDelayWhile(loopSources, step(targets, pids, rate), targetOf);
      else results = await step(targets, pids, rate);
      const [base, svc, ...rest] = results;
      const label = `${rate}/s (${fraction * 100} %)`;
      console.log(stepLine(label, svc, base));
      rest.forEach((r, i) => console.log(stepLine(label + others[i].name, r, base)));
      if (sampling) printPromoted(await service.process.ask('promoted-stop'), svc.tail.ok);
      await new Promise((r) => setTimeout(r, 5_000)); // the pipelines catch up between steps
    }
    // The database grew by every invocation of the steps (SQLite's inserts slow as its b-trees grow) and the
    // machine's speed moves: the closed loop once more says what the last steps were fractions of.
    const after = await closedLoopOf(invoke, service.process.pid);
    console.log(
      `  capacity again after the steps: ${after.worst}/s (closed loop, ${(after.worst / cap).toFixed(2)}× the first; ${mainOf(after)})`,
    );
    printLoopDelays(loop);
  } finally {
    await express.stop();
    await nest?.stop();
    await controlled?.rung.stop();
    await variant?.process.stop();
    await service.process.stop();
  }
}

async function main(): Promise<void> {
  console.log(
    `bench:latency (${SECONDS} s a step; the machine may be shared: the figures are ratios within this run)`,
  );
  const pg =
    DATABASES.includes('postgres') && !process.env.DATABASE_URL ? await startPostgresServer() : undefined;
  try {
    for (const provider of DATABASES) {
      const dir = () => mkdtempSync(join(tmpdir(), `bench-latency-${provider}-`));
      if (provider !== 'postgres') {
        await oneDatabase(provider, () =>
          Promise.resolve({ DatabaseProvider: 'sqlite', DataDirectory: dir() }),
        );
        continue;
      }
      const serverUrl = process.env.DATABASE_URL ?? pg!.url;
      console.log(
        process.env.DATABASE_URL
          ? '\nPostgreSQL: the server DATABASE_URL names'
          : '\nPostgreSQL: a throwaway cluster (fsync and synchronous commit off)',
      );
      await oneDatabase(provider, async () => ({
        DatabaseProvider: 'postgres',
        ConnectionString: await newPostgresDatabase(serverUrl, 'latency'),
        DataDirectory: dir(),
      }));
    }
  } finally {
    pg?.stop();
  }
}

runBench(main);
