/* bench:soak's load generator, in a process of its own (soakLoad in bench/soak-measure.ts forks it): Invoke
 * requests with a new account each (every invocation raises a case), open loop (a fixed arrival rate) or closed
 * loop (a number of connections, each sending again as soon as it is answered). Answers per 10-second window
 * (200s, 503s, anything else) and the time of every 200, for the lags; with `latencies`, each 200's answer
 * time from its scheduled send (open loop). */
import { Agent, request } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface SoakLoadOptions {
  url: string;
  path: string;
  apiKey: string;
  /** Open loop: requests a second. Closed loop: `connections` instead. */
  rate?: number;
  connections?: number;
  seconds: number;
  /** The first account number (each request takes the next). */
  firstIndex: number;
  /** Open loop: keep every 200's answer time in ms from its SCHEDULED send (so a stall cannot hide). */
  latencies?: boolean;
  /** With `latencies`: the first seconds are sent but not kept (new connections, the loop's first turns). */
  warmupSeconds?: number;
}

export interface SoakWindow {
  ok: number;
  shed: number;
  other: number;
  /** Open loop: arrivals not sent because MAX_IN_FLIGHT requests were already waiting (a failure). */
  notSent: number;
}

export interface SoakLoadResult {
  started: number;
  windows: SoakWindow[];
  /** Date.now() of every 200, in answer order. */
  okTimes: number[];
  sent: number;
  /** The answers counted as `other`, by status code, or by the socket's error code when there was no answer. */
  others: Record<string, number>;
  /** With `latencies`: each 200's ms from its scheduled send to the end of its answer, in answer order. */
  latencies: number[];
  /**
   * With `latencies`: [s from the start, ms, the scheduled send on the monotonic clock in ms] of answers slower
   * than BENCH_LATENCY_SLOW ms (default 100; at most 1 000), to see when (a server's CPU profile counts the same clock).
   */
  slow: [number, number, number][];
  /** The generator's own event loop: its longest delay in ms (a late generator reads answers late). */
  generatorLoopMaxMs: number;
}

export const WINDOW_MS = 10_000;
/** Requests an open loop lets wait for an answer before it counts further arrivals as not sent. */
const MAX_IN_FLIGHT = 4_000;
/** Answers slower than this are listed with their time (SoakLoadResult.slow). */
const SLOW_MS = Number(process.env.BENCH_LATENCY_SLOW) > 1 ? Number(process.env.BENCH_LATENCY_SLOW) : 100;
/** performance.now() `t` on the monotonic clock (process.hrtime), in ms. */
const monotonicAt = (t: number) => Number(process.hrtime.bigint() / 1000n) / 1000 - (performance.now() - t);

function invokeBody(i: number): string {
  return `{"transactionId":"t${i}","account":{"id":"ACC-${i}"},"amount":9999,"country":"DE"}`;
}

/**
 * An open loop's arrivals: `rate` a second from `started` (Date.now()) until `end`, each handed its due time
 * (performance.now()), checked every millisecond.
 */
function schedule(
  rate: number,
  started: number,
  end: number,
  arrive: (scheduled: number) => void,
): Promise<void> {
  const origin = performance.now() - (Date.now() - started);
  return new Promise<void>((resolve) => {
    let due = 0;
    const timer = setInterval(() => {
      const now = Date.now();
      const target = Math.floor(((Math.min(now, end) - started) / 1000) * rate);
      for (; due < target; due++) arrive(origin + (due * 1000) / rate);
      if (now >= end) {
        clearInterval(timer);
        resolve();
      }
    }, 1);
  });
}

/** One Invoke request; `done` gets the answer's status, or 0 and the socket's error code. */
function send(
  target: URL,
  agent: Agent,
  o: SoakLoadOptions,
  body: string,
  done: (status: number, error?: string) => void,
): void {
  const req = request(
    {
      host: target.hostname,
      port: target.port,
      path: o.path,
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', 'content-length': body.length, 'x-api-key': o.apiKey },
    },
    (res) => {
      res.resume();
      res.on('end', () => done(res.statusCode ?? 0));
      res.on('error', (err: NodeJS.ErrnoException) => done(0, err.code ?? 'response error'));
    },
  );
  req.on('error', (err: NodeJS.ErrnoException) => done(0, err.code ?? 'request error'));
  req.end(body);
}

async function run(o: SoakLoadOptions): Promise<SoakLoadResult> {
  const target = new URL(o.url);
  // A free socket is closed after 4 s, before the service's keep-alive time-out (Node's 5 s) closes it: else a
  // request may be written to a socket the service is closing (ECONNRESET, counted as a failure).
  const agent = new Agent({ keepAlive: true, maxSockets: o.connections ?? 256, timeout: 4_000 });
  const started = Date.now();
  const result: SoakLoadResult = {
    started,
    windows: [],
    okTimes: [],
    sent: 0,
    others: {},
    latencies: [],
    slow: [],
    generatorLoopMaxMs: 0,
  };
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const keepFrom = performance.now() + (o.warmupSeconds ?? 0) * 1000;
  const windowOf = (t: number) => {
    const k = Math.floor((t - started) / WINDOW_MS);
    while (result.windows.length <= k) result.windows.push({ ok: 0, shed: 0, other: 0, notSent: 0 });
    return result.windows[k];
  };
  let inFlight = 0;
  /** `scheduled`: the performance.now() at which an open loop's arrival was due (else its send). */
  const post = (scheduled = performance.now()) =>
    new Promise<void>((resolve) => {
      const body = invokeBody(o.firstIndex + result.sent++);
      inFlight++;
      const done = (status: number, error?: string) => {
        inFlight--;
        const now = Date.now();
        const w = windowOf(now);
        if (status === 200) {
          w.ok++;
          result.okTimes.push(now);
          if (o.latencies && scheduled >= keepFrom) {
            const ms = performance.now() - scheduled;
            result.latencies.push(ms);
            if (ms > SLOW_MS && result.slow.length < 1_000)
              result.slow.push([(scheduled - keepFrom) / 1000, Math.round(ms), monotonicAt(scheduled)]);
          }
        } else if (status === 503) w.shed++;
        else {
          w.other++;
          const kind = error ?? String(status);
          result.others[kind] = (result.others[kind] ?? 0) + 1;
        }
        resolve();
      };
      send(target, agent, o, body, done);
    });
  const end = started + o.seconds * 1000;
  if (o.connections) {
    const loop = async () => {
      while (Date.now() < end) await post();
    };
    await Promise.all(Array.from({ length: o.connections }, loop));
  } else {
    await schedule(o.rate ?? 0, started, end, (scheduled) => {
      if (inFlight >= MAX_IN_FLIGHT) windowOf(Date.now()).notSent++;
      else void post(scheduled);
    });
    const deadline = Date.now() + 15_000;
    while (inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  }
  agent.destroy();
  loop.disable();
  result.generatorLoopMaxMs = Math.round(loop.max / 1e6 - 5);
  return result;
}

process.once('message', (options: SoakLoadOptions) => {
  run(options).then(
    (result) => process.send?.({ result }, () => process.exit(0)),
    (err: unknown) => process.send?.({ error: String(err) }, () => process.exit(1)),
  );
});
