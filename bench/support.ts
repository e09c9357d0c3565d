/* Shared pieces of the benchmarks: a cheap route pair, load generation, and a started app. */
import { Controller, Get, Module, Type } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type autocannon from 'autocannon';
import { ChildProcess, fork, spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Authenticated, Public } from '@app/access';
import { DEMO_MODEL_GUID, demoTransaction } from '@app/engine';
import { loadSettings, Settings } from '@app/config';
import { createApp } from '../apps/server/src/create-app';
import { NaiveGridModule } from './grid-naive.module';
import type { RungName, RungRequest } from './http-rung';

export const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
export const ADMIN_INITIAL_PASSWORD = 'Bench-Initial-Password-1';
export const ADMIN_PASSWORD = 'Bench-Chosen-Password-2';

/** The same trivial body, once anonymous and once behind the guard: the difference is authentication. */
@Controller('bench')
class BenchController {
  @Get('anonymous')
  @Public()
  anonymous() {
    return { ok: true };
  }

  @Get('authenticated')
  @Authenticated()
  authenticated() {
    return { ok: true };
  }
}

@Module({ controllers: [BenchController] })
export class BenchModule {}

/** Extra modules a service child (bench/http-rung.ts) can be started with, by name. */
export const BENCH_MODULES: Record<string, Type> = { 'grids-naive': NaiveGridModule };

export interface RungProcess {
  rung: RungName;
  url: string;
  /** The Administrator's bearer token (service only). */
  token: string;
  pid: number;
  ask<T>(kind: RungRequest['kind']): Promise<T>;
  /** Resident set size now, from /proc (bytes). */
  rss(): number;
  stop(): Promise<void>;
}

/** Requests to a child server over IPC (`{ id, kind }`), each resolved by the reply with its id. */
export function asker<K extends string>(child: ChildProcess): <T>(kind: K) => Promise<T> {
  let next = 0;
  const waiting = new Map<number, (value: unknown) => void>();
  child.on('message', (m: { id: number; value: unknown }) => waiting.get(m.id)?.(m.value));
  return <T>(kind: K) =>
    new Promise<T>((resolve) => {
      const id = next++;
      waiting.set(id, (v) => (waiting.delete(id), resolve(v as T)));
      child.send({ id, kind });
    });
}

/** The words of a command-line setting (none when unset). */
export const words = (text: string | undefined): string[] => (text ?? '').split(/\s+/).filter(Boolean);

/**
 * The Node options `npm start` gives the service (package.json's start script: the heap's cap), so the
 * service is measured as it runs.
 */
export function startOptions(root = join(__dirname, '..')): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  return words(pkg.scripts.start).filter((word) => word.startsWith('--'));
}

/**
 * One server of the HTTP ladder, or the service, in a process of its own (bench/http-rung.ts), so the process
 * that measures never shares the measured one's JavaScript thread. `settings`: the service's settings beside
 * the bench defaults; `modules`: names from BENCH_MODULES; `root`: the checkout whose rung runs (bench:pair's
 * baseline: another worktree, its own sources, start options and aliases).
 */
export async function spawnRung(
  rung: RungName,
  settings: Record<string, string> = {},
  modules: string[] = [],
  /** Node/V8 flags of this process beside the usual ones. */
  nodeFlags: string[] = [],
  root: string = join(__dirname, '..'),
): Promise<RungProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      // BENCH_CPU_PROF_DIR: each server process writes a V8 CPU profile there when it stops
      ...(process.env.BENCH_CPU_PROF_DIR
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`]
        : []),
      ...(rung === 'service' ? startOptions(root) : []),
      // BENCH_SERVICE_NODE_FLAGS: more Node/V8 flags for the service process only (e.g. --trace-gc)
      ...(rung === 'service' ? words(process.env.BENCH_SERVICE_NODE_FLAGS) : []),
      ...nodeFlags,
      '-r',
      join(root, 'scripts', 'ts-register.js'),
      join(root, 'bench', 'http-rung.ts'),
      rung,
    ],
    {
      cwd: root,
      env: { ...process.env, BENCH_SETTINGS: JSON.stringify(settings), BENCH_MODULES: modules.join(',') },
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    },
  );
  const [url, token] = await new Promise<[string, string]>((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /LISTENING (\S+)(?: (\S+))?/.exec(out);
      if (m) {
        // from now on the service's log lines are read and dropped, as a log collector would (never kept)
        child.stdout?.off('data', onData);
        // BENCH_SERVICE_STDOUT: the service's later output (its log, --trace-gc's lines) appended to that file
        const keep = rung === 'service' ? process.env.BENCH_SERVICE_STDOUT : undefined;
        child.stdout?.on('data', keep ? (d: Buffer) => appendFileSync(keep, d) : () => undefined);
        resolve([m[1], m[2] ?? '']);
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the ${rung} server exited with ${code}`)));
  });
  const ask = asker<RungRequest['kind']>(child);
  const pid = child.pid!;
  return {
    rung,
    url,
    token,
    pid,
    ask,
    rss: () => {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      return m ? Number(m[1]) * 1024 : 0;
    },
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      void ask('close');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Waits until the process used under a tenth of a core over 300 ms (at most 30 s): nothing left running from
 * the previous rung.
 */
export async function settle(server: RungProcess): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const before = await server.ask<NodeJS.CpuUsage>('cpu');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const after = await server.ask<NodeJS.CpuUsage>('cpu');
    if (after.user - before.user + after.system - before.system < 30_000) return;
  }
}

/** Sends one message to a load-generator process of its own (bench/load-generator.ts) and awaits its result. */
function generator<T>(message: object, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = fork(join(__dirname, 'load-generator.ts'), [], {
      execArgv: ['-r', join(__dirname, '..', 'scripts', 'ts-register.js')],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', (m: { result?: T; error?: string }) =>
      m.result ? resolve(m.result) : reject(new Error(m.error ?? `${what} failed`)),
    );
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`the load generator exited with ${code}`));
    });
    child.send(message);
  });
}

/**
 * One autocannon run, in a process of its own (bench/load-generator.ts), never in the process of the server
 * it measures. Options must be plain data (no setupRequest/onResponse functions).
 */
export function load(options: autocannon.Options): Promise<autocannon.Result> {
  return generator<autocannon.Result>(options, 'autocannon');
}

/**
 * `count` GETs one after another (after one untimed), from a process of its own (bench/load-generator.ts):
 * each one's ms until its body's last byte, free of the bench process's own pauses.
 */
export function timedCalls(url: string, headers: Record<string, string>, count: number): Promise<number[]> {
  return generator<number[]>({ timedCalls: { url, headers, count } }, 'the timed calls');
}

/** Successful answers per second; warns when some were not 2xx. */
export function rate(result: autocannon.Result): number {
  const good = result['2xx'];
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad > 0) process.stdout.write(`  (warning: ${bad} of ${good + bad} answers were not 2xx)\n`);
  return good / (result.duration || SECONDS);
}

export function benchSettings(prefix: string, extra: Record<string, string> = {}): Settings {
  return loadSettings({
    DataDirectory: mkdtempSync(join(tmpdir(), `bench-${prefix}-`)),
    JwtKey: 'bench-jwt-key-0123456789abcdefghijklmnopqrstuvwxyz',
    ApiHmacKey: 'bench-api-hmac-key-0123456789abcdefghijklmnopqrstuvwxyz',
    BootstrapAdministratorPassword: ADMIN_INITIAL_PASSWORD,
    LogLevel: 'silent',
    ...extra,
    ...process.env,
  });
}

export interface BenchApp {
  app: NestExpressApplication;
  url: string;
  /** Bearer token of the Administrator (whose expired password the start replaced). */
  token: string;
}

/** Starts the app with the cheap bench routes and signs the Administrator in, choosing ADMIN_PASSWORD. */
export async function startBenchApp(settings: Settings, modules: Type[] = []): Promise<BenchApp> {
  const app = await createApp(settings, { imports: [BenchModule, ...modules] });
  await app.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  return { app, url, token: await firstSignIn(url) };
}

/** The Administrator's first sign-in on a fresh service, choosing ADMIN_PASSWORD; returns the bearer token. */
export async function firstSignIn(url: string): Promise<string> {
  const first = await fetch(`${url}/api/Authentication/ByUserNamePassword`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      userName: 'Administrator',
      password: ADMIN_INITIAL_PASSWORD,
      newPassword: ADMIN_PASSWORD,
      repeatNewPassword: ADMIN_PASSWORD,
    }),
  });
  if (first.status !== 200) throw new Error(`first sign-in answered ${first.status}`);
  return ((await first.json()) as { token: string }).token;
}

/** Creates an API key for the signed-in Administrator (bearer `token`); returns the key, shown once. */
export async function createApiKey(url: string, token: string, name = 'bench'): Promise<string> {
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const me = (await (await fetch(`${url}/api/Authentication/Session`, { headers: auth })).json()) as {
    userGuid: string;
  };
  const created = await fetch(`${url}/api/UserRegistryApiKey`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ userRegistryGuid: me.userGuid, name }),
  });
  if (created.status !== 201) throw new Error(`creating the key answered ${created.status}`);
  return ((await created.json()) as { key: string }).key;
}

/** A password sign-in's session cookies, as a Cookie header. */
export async function sessionCookie(url: string): Promise<string> {
  const res = await fetch(`${url}/api/Authentication/ByUserNamePassword`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ userName: 'Administrator', password: ADMIN_PASSWORD }),
  });
  if (res.status !== 200) throw new Error(`sign-in answered ${res.status}`);
  return res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
}

/** A request of one of the service's measured routes, as the load generator sends it. */
export type RouteRequest = Pick<autocannon.Options, 'method' | 'headers' | 'body' | 'idReplacement'> & {
  path: string;
};

/** The service's measured routes, by name: the same answer behind each credential, and Invoke. */
export const SERVICE_ROUTES = ['live', 'bearer', 'cookie', 'api-key', 'invoke', 'invoke-idempotent'] as const;
export type ServiceRoute = (typeof SERVICE_ROUTES)[number];

/**
 * The request of `route` on one server: GET /api/Live (anonymous), /bench/authenticated with the
 * Administrator's bearer token, its session cookie or an API key of its own, or POST /api/Invoke/... with an
 * API key on the demo model (`invoke-idempotent`: with a fresh Idempotency-Key on every request, autocannon's
 * `[<id>]`). Any other rung than the service answers `/` only.
 */
export async function routeRequest(server: RungProcess, route: ServiceRoute): Promise<RouteRequest> {
  if (server.rung !== 'service') return { path: '/' };
  switch (route) {
    case 'live':
      return { path: '/api/Live' };
    case 'bearer':
      return { path: '/bench/authenticated', headers: { authorization: `Bearer ${server.token}` } };
    case 'cookie':
      return { path: '/bench/authenticated', headers: { cookie: await sessionCookie(server.url) } };
    case 'api-key':
      return {
        path: '/bench/authenticated',
        headers: { 'x-api-key': await createApiKey(server.url, server.token) },
      };
    case 'invoke':
      return {
        path: `/api/Invoke/EntityAnalysisModel/${DEMO_MODEL_GUID}`,
        method: 'POST',
        headers: {
          'x-api-key': await createApiKey(server.url, server.token),
          'content-type': 'application/json',
        },
        body: JSON.stringify(demoTransaction(1)),
      };
    case 'invoke-idempotent': {
      const invoke = await routeRequest(server, 'invoke');
      return { ...invoke, headers: { ...invoke.headers, 'idempotency-key': '[<id>]' }, idReplacement: true };
    }
  }
}

/** The route named on a bench's command line, or a clear error naming the known ones. */
export function serviceRoute(name: string): ServiceRoute {
  const route = SERVICE_ROUTES.find((r) => r === name);
  if (!route) throw new Error(`unknown route ${name}: ${SERVICE_ROUTES.join(', ')}`);
  return route;
}

/** One cheap-route figure: answers per wall-clock second, and per CPU second of the serving process. */
export interface CheapRouteFigure {
  wall: number;
  cpu: number;
}

/** Rounds of the cheap route pair (BENCH_PAIR_ROUNDS). */
const PAIR_ROUNDS = Number(process.env.BENCH_PAIR_ROUNDS ?? 4);

const middle = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * The cheap route anonymous and with a credential, served by THIS process (startBenchApp) while the load
 * generator is another: after an uncounted second of each, BENCH_PAIR_ROUNDS (default 4) rounds of SECONDS/2
 * each, the order alternating, medians.
 * Beside wall-clock rates, answers per CPU second of this process (which does nothing else meanwhile): the
 * steadier figure on a shared machine (docs/performance.md).
 */
export async function cheapRoutePair(
  url: string,
  headers: Record<string, string>,
): Promise<{ anonymous: CheapRouteFigure; authenticated: CheapRouteFigure }> {
  const cheap = { connections: 16, duration: Math.max(1, Math.round(SECONDS / 2)), pipelining: 1 };
  interface Run {
    url: string;
    headers: Record<string, string>;
    wall: number[];
    cpu: number[];
  }
  const runs: { anonymous: Run; authenticated: Run } = {
    anonymous: { url: `${url}/bench/anonymous`, headers: {}, wall: [], cpu: [] },
    authenticated: { url: `${url}/bench/authenticated`, headers, wall: [], cpu: [] },
  };
  // a second of each first, not counted (a cold route would charge its warm-up to the first round)
  for (const run of [runs.anonymous, runs.authenticated])
    await load({ ...cheap, duration: 1, url: run.url, headers: run.headers });
  for (let round = 0; round < PAIR_ROUNDS; round++) {
    const order = round % 2 ? [runs.authenticated, runs.anonymous] : [runs.anonymous, runs.authenticated];
    for (const run of order) {
      const before = process.cpuUsage();
      const result = await load({ ...cheap, url: run.url, headers: run.headers });
      const used = process.cpuUsage(before);
      run.wall.push(rate(result));
      run.cpu.push(result['2xx'] / ((used.user + used.system) / 1e6));
    }
  }
  const figure = (run: Run) => ({
    wall: middle(run.wall),
    cpu: middle(run.cpu),
  });
  return { anonymous: figure(runs.anonymous), authenticated: figure(runs.authenticated) };
}

/**
 * Prints a cheapRoutePair: both rates, the ratio to anonymous and the credential's cost. No target: the targets
 * are bench:http's, against bare Express, not ratios to an anonymous answer.
 */
export function printCheapPair(
  number: string,
  credential: string,
  pair: { anonymous: CheapRouteFigure; authenticated: CheapRouteFigure },
): void {
  const { anonymous: a, authenticated: b } = pair;
  const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
  process.stdout.write(
    `${number}. cheap route, anonymous and with ${credential} (${PAIR_ROUNDS} rounds alternating, medians):
` +
      `   answers per wall-clock second:   anonymous ${a.wall.toFixed(0)}, with ${credential} ${b.wall.toFixed(0)}  ` +
      `(${pct(b.wall / a.wall)} of anonymous)
` +
      `   answers per CPU second (server): anonymous ${a.cpu.toFixed(0)}, with ${credential} ${b.cpu.toFixed(0)}  ` +
      `(${pct(b.cpu / a.cpu)} of anonymous)
` +
      `   ${credential} costs ${(1e6 / b.cpu - 1e6 / a.cpu).toFixed(0)} µs of server CPU per answer ` +
      `(an anonymous answer ${(1e6 / a.cpu).toFixed(0)} µs)
`,
  );
}

export function runBench(main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
