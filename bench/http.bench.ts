/*
 * npm run bench:http — the HTTP ladder, in one run: every rung a server process of its own
 * (bench/http-rung.ts), the load generator another (autocannon, 16 connections), rounds alternating the rungs'
 * order so drift on a shared machine hits every rung alike.
 *   bare node:http · bare Express 5 · the same on the service's HTTP server (its requests born with Express's
 *   prototypes) · bare Nest 11 · the same on the service's adapter · that with the service's middleware and
 *   request logging · the service (request lines at `info`): GET /api/Live, a bearer JWT, the session cookie and an API key on a cheap authenticated route (/bench/authenticated,
 *   the same answer as Live's behind the credential guard), POST /api/Invoke/... with an API key on the demo
 *   model.
 * Before every rung each server process is left to go quiet (under a tenth of a core over 300 ms), and a
 * rung's CPU runs until its server is quiet again: work its answers left behind (Invoke's case creation and
 * archiving) is counted in that rung, never in the next one; each rung's measured run follows a second of the
 * same load, not counted (a process that sat idle while others ran starts cold).
 * Prints req/s (median of rounds), p50 and p99 latency, each rung's ratio to bare Express and bare Nest, the
 * service's rungs against its Live, the targets (each service rung against bare Express: the median of the
 * rounds' own ratios), and each process's peak RSS.
 * The service runs with every hardening on and its request metrics recorded (EnableOpenTelemetry, a Prometheus
 * port nobody reads); nothing is switched off for the figures. Nothing is asserted.
 * BENCH_SECONDS (default 10) is split over the rounds: BENCH_HTTP_ROUNDS (default 5) runs of 1.5 × SECONDS / ROUNDS
 * (at least 2 s) each. A service rung's ratio to Live is the median of each round's own ratio (the two measured
 * minutes apart at most), which drift on a shared machine moves far less than a ratio of two medians; beside it
 * the lowest and highest of the rounds' ratios, and the widest such spread of any rung, said to be too wide past
 * 15 points: how far the run's ratios can be trusted on the machine as it was.
 * BENCH_HTTP_RUNGS (the service's rung labels separated by semicolons, e.g. `Invoke (API key, demo);Invoke +
 * Idempotency-Key`) runs only those, on the service alone (no bare servers), and prints their figures and the
 * keyed Invoke's ratio when both Invokes ran.
 */
import {
  load,
  rate,
  routeRequest,
  RouteRequest,
  runBench,
  RungProcess,
  SECONDS,
  SERVICE_ROUTES,
  ServiceRoute,
  settle,
  spawnRung,
} from './support';
import { freePort } from '../test/support/free-port';

const ROUNDS = Number(process.env.BENCH_HTTP_ROUNDS ?? 5);
const RUN_SECONDS = Math.max(2, Math.round((1.5 * SECONDS) / ROUNDS));
const ONLY = process.env.BENCH_HTTP_RUNGS?.split(';').map((label) => label.trim());

interface Rung {
  label: string;
  server: () => RungProcess;
  request: () => RouteRequest;
}

interface Sample {
  rate: number;
  /** Answers per CPU second of the server process: steadier than wall time on a shared machine. */
  cpu: number;
  p50: number;
  p99: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A rung's sample: its load after a second of the same, uncounted; its CPU up to quiet (Invoke's work after
 * its answers is counted in its own rung, never the next one's: every process is quiet before a rung starts). */
async function runRung(rung: Rung, seconds: number, processes: RungProcess[]): Promise<Sample> {
  const { path, ...rest } = rung.request();
  const server = rung.server();
  await Promise.all(processes.map(settle));
  // A process that sat idle while other rungs ran (its heap shrunk by V8's memory reducer, its caches cold)
  // would otherwise charge its warm-up to this rung.
  await load({ url: `${server.url}${path}`, connections: 16, duration: 1, ...rest });
  const before = await server.ask<NodeJS.CpuUsage>('cpu');
  const result = await load({ url: `${server.url}${path}`, connections: 16, duration: seconds, ...rest });
  await settle(server);
  const after = await server.ask<NodeJS.CpuUsage>('cpu');
  const cpuSeconds = (after.user - before.user + after.system - before.system) / 1e6;
  return {
    rate: rate(result),
    cpu: result['2xx'] / cpuSeconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
  };
}

/**
 * Every rung in ROUNDS rounds, after a warm-up: the order rotated each round and run backwards every other
 * round, so a rung measured right after another on the same process (which finds it warm) comes first as
 * often as second.
 */
async function measure(rungs: Rung[], processes: RungProcess[]): Promise<Map<Rung, Sample[]>> {
  for (const rung of rungs) await runRung(rung, 1, processes); // warm-up
  const samples = new Map<Rung, Sample[]>(rungs.map((r) => [r, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const rotated = rungs.map((_, i) => rungs[(i + round * 3) % rungs.length]);
    const order = round % 2 ? rotated.reverse() : rotated;
    for (const rung of order) samples.get(rung)!.push(await runRung(rung, RUN_SECONDS, processes));
    process.stdout.write(`  round ${round + 1} of ${ROUNDS} done\n`);
  }
  return samples;
}

/** What the tables read: each rung's medians, and each round's ratio of one rung to another. */
class Figures {
  constructor(
    readonly rungs: Rung[],
    readonly samples: Map<Rung, Sample[]>,
    readonly service: RungProcess,
  ) {}

  private rung(label: string): Rung {
    return this.rungs.find((r) => r.label === label)!;
  }

  of(r: Rung | string): Sample {
    const s = this.samples.get(typeof r === 'string' ? this.rung(r) : r)!;
    const m = (k: keyof Sample) => median(s.map((x) => x[k]));
    return { rate: m('rate'), cpu: m('cpu'), p50: m('p50'), p99: m('p99') };
  }

  /** Each round's ratio of `label` to `against` (both measured in the same round). */
  rounds(label: string, against: string, k: 'rate' | 'cpu'): number[] {
    const theirs = this.samples.get(this.rung(against))!;
    return this.samples.get(this.rung(label))!.map((x, round) => x[k] / theirs[round][k]);
  }
}

const pct = (x: number) => `${(x * 100).toFixed(0)} %`;
const points = (x: number) => (x * 100).toFixed(0);
/** The lowest and highest of some ratios, as `lo to hi` with `format`. */
const range = (values: number[], format: (x: number) => string) =>
  `${format(Math.min(...values))} to ${format(Math.max(...values))}`;

/** One table (per wall-clock second or per CPU second): every rung, and its ratios to Express, Nest and Live. */
function printTable(f: Figures, k: 'rate' | 'cpu', title: string): void {
  const express = f.of('bare Express 5')[k];
  const nest = f.of('bare Nest 11')[k];
  const liveRounds = (label: string) => f.rounds(label, 'service Live', k);
  process.stdout.write(
    `\n${title}\n(× Live: the median of each round's ratio; rounds: the lowest and highest of them)\n${'rung'.padEnd(28)}${'req/s'.padStart(8)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}${'×Express'.padStart(10)}${'×Nest'.padStart(8)}${'×Live'.padStart(8)}${'rounds'.padStart(14)}\n`,
  );
  for (const rung of f.rungs) {
    const s = f.of(rung);
    const ofService = rung.server() === f.service;
    process.stdout.write(
      `${rung.label.padEnd(28)}${s[k].toFixed(0).padStart(8)}${s.p50.toFixed(1).padStart(8)}${s.p99.toFixed(1).padStart(8)}` +
        `${(s[k] / express).toFixed(2).padStart(10)}${(s[k] / nest).toFixed(2).padStart(8)}` +
        `${ofService ? median(liveRounds(rung.label)).toFixed(2).padStart(8) + range(liveRounds(rung.label), (x) => x.toFixed(2)).padStart(14) : ''}\n`,
    );
  }
  printSummary(f, k);
}

/** The HTTP targets against bare Express (docs/performance.md), the service's routes against Live, and how far the rounds agree. */
function printSummary(f: Figures, k: 'rate' | 'cpu'): void {
  const live = f.of('service Live')[k];
  const ofLive = (label: string) => median(f.rounds(label, 'service Live', k));
  // the widest disagreement of the rounds on a ratio to Live: how far any single ratio can be trusted
  const widest = Math.max(
    ...f.rungs
      .filter((r) => r.server() === f.service && r.label !== 'service Live')
      .map((r) => {
        const v = f.rounds(r.label, 'service Live', k);
        return Math.max(...v) - Math.min(...v);
      }),
  );
  const keyed = median(f.rounds('Invoke + Idempotency-Key', 'Invoke (API key, demo)', k));
  /** The median of the rounds' ratios to bare Express, the rounds' range, and the target. */
  const target = (name: string, label: string, goal: number) => {
    const v = f.rounds(label, 'bare Express 5', k);
    const m = median(v);
    return `${name} ${m.toFixed(2)}× (rounds ${range(v, (x) => x.toFixed(2))}; target >= ${goal}: ${m >= goal ? 'met' : 'NOT met'})`;
  };
  process.stdout.write(
    `against bare Express 5 (the HTTP targets): ${target('Live', 'service Live', 1.3)}; ` +
      `${target('API key', 'API key (cheap route)', 1.2)}; ${target('bearer JWT', 'bearer JWT (cheap route)', 0.9)}; ` +
      `${target('Invoke', 'Invoke (API key, demo)', 0.6)}\n` +
      `Invoke with an Idempotency-Key (a fresh key a request) ${keyed.toFixed(2)}× Invoke without (rounds ${range(
        f.rounds('Invoke + Idempotency-Key', 'Invoke (API key, demo)', k),
        (x) => x.toFixed(2),
      )}; target >= 0.9: ${keyed >= 0.9 ? 'met' : 'NOT met'})\n` +
      `against Live: bearer JWT ${pct(ofLive('bearer JWT (cheap route)'))}, cookie ${pct(ofLive('cookie JWT (cheap route)'))}, ` +
      `API key ${pct(ofLive('API key (cheap route)'))}, Invoke ${pct(ofLive('Invoke (API key, demo)'))}; ` +
      `Live ${pct(live / f.of('bare Nest 11')[k])} of bare Nest\n` +
      `the rounds' ratios to Live differ by up to ${points(widest)} points on one rung` +
      `${widest > 0.15 ? ': too noisy a machine to settle a ratio to better than that' : ''}\n` +
      `against the frameworks on the service's HTTP server: Live ${(live / f.of('Express, objects born')[k]).toFixed(2)}× ` +
      `Express (objects born), ${pct(live / f.of('Nest, service adapter')[k])} of Nest (service adapter)\n`,
  );
}

/** The ladder's rungs: the bare frameworks' hello-world, then the service's routes. */
function ladder(
  bare: Record<string, RungProcess>,
  service: RungProcess,
  routes: Record<ServiceRoute, RouteRequest>,
): Rung[] {
  const hello = (label: string, server: RungProcess): Rung => ({
    label,
    server: () => server,
    request: () => ({ path: '/' }),
  });
  const route = (label: string, r: ServiceRoute): Rung => ({
    label,
    server: () => service,
    request: () => routes[r],
  });
  return [
    hello('bare node:http', bare.node),
    hello('bare Express 5', bare.express),
    hello('Express, objects born', bare.expressBorn),
    hello('bare Nest 11', bare.nest),
    hello('Nest, service adapter', bare.nestBorn),
    hello('Nest + service middleware', bare.middleware),
    route('service Live', 'live'),
    route('bearer JWT (cheap route)', 'bearer'),
    route('cookie JWT (cheap route)', 'cookie'),
    route('API key (cheap route)', 'api-key'),
    route('Invoke (API key, demo)', 'invoke'),
    route('Invoke + Idempotency-Key', 'invoke-idempotent'),
  ];
}

async function main(): Promise<void> {
  process.stdout.write(
    `HTTP ladder: ${ROUNDS} rounds of ${RUN_SECONDS} s per rung, 16 connections, load generator in its own process\n`,
  );
  // The HTTP targets hold with the request metrics on: they exist only when something exports them
  // (EnableOpenTelemetry), here a Prometheus port nobody reads.
  const spawnService = async () =>
    spawnRung('service', {
      LogLevel: 'info',
      EnableOpenTelemetry: 'True',
      OpenTelemetryPrometheusPort: String(await freePort()),
    });
  if (ONLY) return selected(ONLY, await spawnService());
  const bare = {
    node: await spawnRung('node'),
    express: await spawnRung('express'),
    expressBorn: await spawnRung('express-born'),
    nest: await spawnRung('nest'),
    nestBorn: await spawnRung('nest-born'),
    middleware: await spawnRung('nest-middleware', { LogLevel: 'info' }),
  };
  const service = await spawnService();
  const processes = [...Object.values(bare), service];
  try {
    const rungs = ladder(bare, service, await serviceRequests(service));
    const figures = new Figures(rungs, await measure(rungs, processes), service);
    printTable(figures, 'rate', 'Answers per wall-clock second (medians of the rounds):');
    printTable(
      figures,
      'cpu',
      'Answers per CPU second of the server process (medians; the steadier figure on a shared machine):',
    );
    const mb = (b: number) => `${(b / 1048576).toFixed(0)} MB`;
    const names = [
      'node:http',
      'Express',
      'Express, objects born',
      'Nest',
      'Nest, service adapter',
      'Nest + middleware',
      'service',
    ];
    const peaks = await Promise.all(processes.map((p) => p.ask<{ maxRss: number }>('memory')));
    process.stdout.write(`peak RSS: ${names.map((n, i) => `${n} ${mb(peaks[i].maxRss)}`).join(', ')}\n`);
  } finally {
    await Promise.all(processes.map((p) => p.stop()));
  }
}

/** Each service route's request, made once (a key and a session cookie of this service's own). */
async function serviceRequests(service: RungProcess): Promise<Record<ServiceRoute, RouteRequest>> {
  return Object.fromEntries(
    await Promise.all(SERVICE_ROUTES.map(async (r) => [r, await routeRequest(service, r)] as const)),
  ) as Record<ServiceRoute, RouteRequest>;
}

/** BENCH_HTTP_RUNGS: only the service's rungs named, their figures, and the keyed Invoke's ratio. */
async function selected(labels: string[], service: RungProcess): Promise<void> {
  try {
    const all = ladder({}, service, await serviceRequests(service));
    const rungs = all.filter((r) => r.server() === service && labels.includes(r.label));
    const unknown = labels.filter((l) => !rungs.some((r) => r.label === l));
    if (unknown.length) throw new Error(`unknown rungs: ${unknown.join(', ')}`);
    const figures = new Figures(rungs, await measure(rungs, [service]), service);
    process.stdout.write(
      `\n${'rung'.padEnd(28)}${'req/s'.padStart(8)}${'/CPU s'.padStart(8)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}\n`,
    );
    for (const rung of rungs) {
      const s = figures.of(rung);
      process.stdout.write(
        `${rung.label.padEnd(28)}${s.rate.toFixed(0).padStart(8)}${s.cpu.toFixed(0).padStart(8)}${s.p50.toFixed(1).padStart(8)}${s.p99.toFixed(1).padStart(8)}\n`,
      );
    }
    const [keyed, plain] = ['Invoke + Idempotency-Key', 'Invoke (API key, demo)'];
    if (!labels.includes(keyed) || !labels.includes(plain)) return;
    for (const k of ['cpu', 'rate'] as const) {
      const v = figures.rounds(keyed, plain, k);
      process.stdout.write(
        `Invoke with an Idempotency-Key ${median(v).toFixed(2)}× Invoke without, per ${k === 'cpu' ? 'CPU' : 'wall-clock'} second (rounds ${range(v, (x) => x.toFixed(2))}; target >= 0.9)\n`,
      );
    }
    const { maxRss } = await service.ask<{ maxRss: number }>('memory');
    process.stdout.write(`peak RSS: service ${(maxRss / 1048576).toFixed(0)} MB\n`);
  } finally {
    await service.stop();
  }
}

runBench(main);
