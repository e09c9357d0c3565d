/* A child of the HTTP benchmarks: one server of the ladder's lower rungs, or the service itself, on a free
 * port. Prints `LISTENING <url>` once ready and answers the parent's IPC (`cpu`, `memory`, `close`).
 *   node             bare node:http, one JSON answer
 *   express          bare Express 5, one route
 *   express-json     bare Express 5 answering a POST of JSON on any path: body parsed (express.json()), JSON answer
 *   express-work     express-json doing WorkMicroseconds (BENCH_SETTINGS) of synchronous computation an answer,
 *                    counted in iterations (a process off its core takes longer, as real work would), no
 *                    allocation: bench:latency's control, a server of the service's capacity and nothing else
 *   express-born     the same on the service's HTTP server (requests born with Express's prototypes: expressServer)
 *   nest             bare Nest 11 on Express: one controller, no middleware, no logger
 *   nest-json        the same answering a POST of JSON at /invoke: Nest's own body parser, @Body(), a JSON answer
 *                    (bench:latency's framework column)
 *   nest-born        the same on the service's adapter (ServiceExpressAdapter)
 *   nest-middleware  nest-born with the service's middleware and request logging (useHttpMiddleware, nestjs-pino)
 *   service          the service (createApp) with the bench routes; settings from BENCH_SETTINGS (JSON)
 * 'loop-start' … 'loop-stop' measure the process's event loop delay as the service exports its own (the same
 * EventLoopDelay: 10-s windows), answering the highest of each statistic over the windows that ended between.
 */
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getHeapSpaceStatistics } from 'node:v8';

export type RungName =
  | 'node'
  | 'express'
  | 'express-json'
  | 'express-work'
  | 'express-born'
  | 'nest'
  | 'nest-json'
  | 'nest-born'
  | 'nest-middleware'
  | 'service';
export type RungRequest = {
  id: number;
  kind:
    | 'cpu'
    | 'memory'
    | 'watch-start'
    | 'watch-stop'
    | 'loop-start'
    | 'loop-stop'
    | 'promoted-start'
    | 'promoted-stop'
    | 'close';
};

const BODY = JSON.stringify({ ok: true });

/** A module with one controller answering GET / (loaded only by the Nest rungs, so the lower rungs' memory
 * figures are their own). */
async function helloModule() {
  await import('reflect-metadata');
  const { Controller, Get, Module } = await import('@nestjs/common');
  @Controller()
  class HelloController {
    @Get()
    hello() {
      return { ok: true };
    }
  }
  @Module({ controllers: [HelloController] })
  class HelloModule {}
  return HelloModule;
}

/** A module with one controller doing what an Invoke does at the least, as bare Nest: POST /invoke, its JSON
 * body read by Nest's own body parser and handed to the handler, a JSON answer (as express-json answers). */
async function jsonModule() {
  await import('reflect-metadata');
  const { Body, Controller, HttpCode, Module, Post } = await import('@nestjs/common');
  @Controller()
  class JsonController {
    @Post('invoke')
    @HttpCode(200)
    answer(@Body() body: object) {
      return { ok: true, fields: Object.keys(body) };
    }
  }
  @Module({ controllers: [JsonController] })
  class JsonModule {}
  return JsonModule;
}

async function settings() {
  const { benchSettings } = await import('./support');
  return benchSettings('http', JSON.parse(process.env.BENCH_SETTINGS ?? '{}') as Record<string, string>);
}

/** Where the control's computation leaves its result, so the compiler cannot drop the loop. */
let workSink = 1;

/** `iterations` rounds of xorshift: computation only, nothing allocated. */
function work(iterations: number): void {
  let x = workSink | 1;
  for (let i = 0; i < iterations; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
  }
  workSink = x;
}

/** Iterations of `work` a microsecond on this machine: the fastest of five timed runs (the least disturbed). */
function iterationsPerMicrosecond(): number {
  const n = 2_000_000;
  work(n); // compiled before it is timed
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 5; i++) {
    const start = process.hrtime.bigint();
    work(n);
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1000);
  }
  return n / best;
}

/**
 * Bare Express 5: `express` answers GET / with JSON; `express-json` does what an Invoke does at the least, on
 * any path: reads a JSON body (express.json()) and answers JSON (bench:latency's baseline); `express-work` does
 * so after WorkMicroseconds of computation (bench:latency's control).
 */
async function bareExpress(
  rung: 'express' | 'express-json' | 'express-work',
): Promise<{ server: Server; close(): Promise<void> }> {
  const { default: express } = await import('express');
  const app = express();
  const micros = Number(
    (JSON.parse(process.env.BENCH_SETTINGS ?? '{}') as { WorkMicroseconds?: string }).WorkMicroseconds ?? 0,
  );
  const iterations = rung === 'express-work' ? Math.round(micros * iterationsPerMicrosecond()) : 0;
  if (rung === 'express') app.get('/', (_req, res) => void res.json({ ok: true }));
  else
    app.post(/.*/, express.json(), (req, res) => {
      if (iterations) work(iterations); // the baseline's handler otherwise as it was
      res.json({ ok: true, fields: Object.keys(req.body as object) });
    });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return { server, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Bare Nest 11: on Nest's own Express adapter (`nest`, `nest-json`) or on the service's (`nest-born`). */
async function bareNest(
  rung: 'nest' | 'nest-json' | 'nest-born',
): Promise<{ server: Server; close(): Promise<void> }> {
  const { NestFactory } = await import('@nestjs/core');
  const module = rung === 'nest-json' ? await jsonModule() : await helloModule();
  const app =
    rung === 'nest-born'
      ? await NestFactory.create<NestExpressApplication>(
          module,
          new (await import('../apps/server/src/express-adapter')).ServiceExpressAdapter(),
          { logger: false },
        )
      : await NestFactory.create<NestExpressApplication>(module, { logger: false });
  await app.listen(0, '127.0.0.1');
  return { server: app.getHttpServer(), close: () => app.close() };
}

async function start(rung: RungName): Promise<{ server: Server; close(): Promise<void>; ready?: string }> {
  switch (rung) {
    case 'node': {
      const server = createServer((_req, res) => {
        res.setHeader('content-type', 'application/json; charset=utf-8');
        res.end(BODY);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return { server, close: () => new Promise((resolve) => server.close(() => resolve())) };
    }
    case 'express':
    case 'express-json':
    case 'express-work':
      return bareExpress(rung);
    case 'express-born': {
      // the same, its requests and responses born with Express's prototypes (the service's HTTP server)
      const { default: express } = await import('express');
      const { expressServer } = await import('../apps/server/src/fast-paths/express-prototypes');
      const app = express();
      app.get('/', (_req, res) => void res.json({ ok: true }));
      const server = expressServer(app);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return { server, close: () => new Promise((resolve) => server.close(() => resolve())) };
    }
    case 'nest':
    case 'nest-json':
    case 'nest-born':
      return bareNest(rung);
    case 'nest-middleware': {
      const { NestFactory } = await import('@nestjs/core');
      const { Module } = await import('@nestjs/common');
      const { LoggerModule, Logger } = await import('nestjs-pino');
      const { APPLICATION_OPTIONS, useHttpMiddleware } = await import('../apps/server/src/create-app');
      const { requestLogging } = await import('../apps/server/src/request-logging.middleware');
      const s = await settings();
      const HelloModule = await helloModule();
      @Module({ imports: [LoggerModule.forRoot(requestLogging(s)), HelloModule] })
      class WithMiddleware {}
      const { ServiceExpressAdapter } = await import('../apps/server/src/express-adapter');
      // on the service's HTTP server, as the service
      const app = await NestFactory.create<NestExpressApplication>(
        WithMiddleware,
        new ServiceExpressAdapter(),
        APPLICATION_OPTIONS,
      );
      app.useLogger(app.get(Logger));
      // the service's front layer without the application services behind it: no shedding, no write watch
      useHttpMiddleware(app, s, {
        draining: () => false,
        metrics: null,
        shedInvoke: () => false,
        watchWrite: () => undefined,
      });
      await app.listen(0, '127.0.0.1');
      return { server: app.getHttpServer(), close: () => app.close() };
    }
    case 'service': {
      await import('../apps/server/src/thread-pool');
      const { BENCH_MODULES, startBenchApp } = await import('./support');
      const modules = (process.env.BENCH_MODULES ?? '').split(',').filter(Boolean);
      const s = await settings();
      const { app, token } = await startBenchApp(
        s,
        modules.map((m) => BENCH_MODULES[m]),
      );
      return { server: app.getHttpServer(), close: () => app.close(), ready: token };
    }
  }
}

/** The event loop's delay as the service measures its own: the highest of each statistic over the 10-s windows
 * that end until `stop` (in ms; what bench:latency prints beside the service's export). */
async function watchLoopDelay(): Promise<{ stop(): Record<string, number> }> {
  const { EventLoopDelay, EVENT_LOOP_DELAY_GAUGES } = await import('../libs/telemetry/src/event-loop-delay');
  const delay = new EventLoopDelay(Number.POSITIVE_INFINITY);
  const worst: Record<string, number> = {};
  let seen = 0;
  const read = () => {
    const w = delay.lastWindow();
    if (!w || w.endedAt === seen) return;
    seen = w.endedAt;
    for (const k of Object.keys(EVENT_LOOP_DELAY_GAUGES) as (keyof typeof EVENT_LOOP_DELAY_GAUGES)[])
      worst[k] = Math.max(worst[k] ?? 0, w[k]);
  };
  delay.start();
  const timer = setInterval(read, 1_000);
  return {
    stop() {
      read();
      clearInterval(timer);
      delay.stop();
      return worst;
    },
  };
}

/**
 * V8's sampling heap profiler, keeping only what outlived a young collection (what is promoted to the old space,
 * the garbage that brings Mark-Compacts): `stop` answers the allocation sites by bytes sampled, the largest first
 * (each with its function, file and line, and the stack of up to 4 callers).
 */
async function samplePromoted(): Promise<{ stop(): Promise<{ bytes: number; site: string }[]> }> {
  const { Session } = await import('node:inspector');
  const session = new Session();
  session.connect();
  const post = <T>(method: string, params?: object) =>
    new Promise<T>((resolve, reject) =>
      session.post(method, params, (err, result) => (err ? reject(err) : resolve(result as T))),
    );
  await post('HeapProfiler.startSampling', {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: false,
  });
  type Node = {
    callFrame: { functionName: string; url: string; lineNumber: number };
    selfSize: number;
    children: Node[];
  };
  return {
    async stop() {
      const { profile } = await post<{ profile: { head: Node } }>('HeapProfiler.stopSampling');
      session.disconnect();
      const sites = new Map<string, number>();
      const frame = (n: Node) =>
        `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').slice(-3).join('/')}:${n.callFrame.lineNumber + 1}`;
      const walk = (n: Node, stack: string[]) => {
        const here = [frame(n), ...stack].slice(0, 5);
        if (n.selfSize) sites.set(here.join(' < '), (sites.get(here.join(' < ')) ?? 0) + n.selfSize);
        for (const c of n.children) walk(c, here);
      };
      walk(profile.head, []);
      return [...sites]
        .map(([site, bytes]) => ({ site, bytes }))
        .sort((a, b) => b.bytes - a.bytes)
        .slice(0, 40);
    },
  };
}

async function main(): Promise<void> {
  const rung = process.argv[2] as RungName;
  const { server, close, ready } = await start(rung);
  // 'watch-start' … 'watch-stop': the highest heap and RSS sampled every 2 ms in between (between two samples
  // a synchronous stretch can allocate more: a lower bound of the peak, with RSS's lifetime peak beside it)
  let watch: { timer: NodeJS.Timeout; heap: number; rss: number } | undefined;
  let loop: { stop(): Record<string, number> } | undefined;
  let promoted: Awaited<ReturnType<typeof samplePromoted>> | undefined;
  const sample = () => {
    const m = process.memoryUsage();
    if (watch) {
      watch.heap = Math.max(watch.heap, m.heapUsed);
      watch.rss = Math.max(watch.rss, m.rss);
    }
  };
  process.on('message', (m: RungRequest) => {
    const reply = (value: unknown) => process.send?.({ id: m.id, value });
    switch (m.kind) {
      case 'cpu':
        return reply(process.cpuUsage());
      case 'memory':
        return reply({
          ...process.memoryUsage(),
          maxRss: process.resourceUsage().maxRSS * 1024,
          spaces: Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size])),
        });
      case 'watch-start': {
        (globalThis as { gc?: () => void }).gc?.();
        const { heapUsed, rss } = process.memoryUsage();
        watch = { timer: setInterval(sample, 2), heap: heapUsed, rss };
        return reply({ heapUsed, rss });
      }
      case 'watch-stop': {
        sample();
        const w = watch;
        if (w) clearInterval(w.timer);
        watch = undefined;
        return reply({
          heapUsed: w?.heap ?? 0,
          rss: w?.rss ?? 0,
          maxRss: process.resourceUsage().maxRSS * 1024,
        });
      }
      case 'loop-start':
        return void watchLoopDelay().then((w) => {
          loop = w;
          reply(null);
        });
      case 'loop-stop': {
        const worst = loop?.stop() ?? {};
        loop = undefined;
        return reply(worst);
      }
      case 'promoted-start':
        return void samplePromoted().then((p) => {
          promoted = p;
          reply(null);
        });
      case 'promoted-stop':
        return void (promoted?.stop() ?? Promise.resolve([])).then(reply);
      case 'close':
        return void close().then(() => process.exit(0));
    }
  });
  const { port } = server.address() as AddressInfo;
  // The Administrator's bearer token (service only) travels with the address.
  process.stdout.write(`LISTENING http://127.0.0.1:${port}${ready ? ` ${ready}` : ''}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
