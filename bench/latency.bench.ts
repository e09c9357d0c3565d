/* npm run bench:latency — how fast EACH Invoke answers while the pipelines work, open loop: requests sent on a
 * fixed schedule, each answer timed from its scheduled send (a stall cannot hide), against bare Express 5
 * answering the same JSON POST at the same rates in the same run (the ratio is the figure: this machine's
 * absolute times move). Per database: the capacity (a closed loop of 16 connections for BENCH_LATENCY_SECONDS,
 * its worst full 10-s window), then steps at 30 %, 60 % and 80 % of it, the service and Express alternating;
 * during the service's 60 % step the event loop's delay as the service exports it (nodejs.eventloop.delay.*).
 * Every invocation is a new account (each raises a case). The load generator runs in its own process.
 *   BENCH_LATENCY_DATABASES   postgres,sqlite (default both); PostgreSQL is a throwaway cluster (fsync off)
 *                             unless DATABASE_URL names a server
 *   BENCH_LATENCY_SECONDS     length of the capacity run, and of each step (default 30), run in ROUNDS
 *                             alternating parts of Express and the service, so noise falls on both alike;
 *                             each part is preceded by 2 s of the same load, not measured (new connections)
 *   BENCH_LATENCY_CAPACITY    a capacity measured before (skips the closed loop)
 *   BENCH_LATENCY_FRACTIONS   the steps as fractions of the capacity (default 0.3,0.6,0.8)
 *   BENCH_LATENCY_SETTINGS    settings of the service to try, as JSON (e.g. {"ArchiveBulkCopyIntervalMilliseconds":"200"}) */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_MODEL_GUID } from '@app/engine';
import { freePort } from '../test/support/free-port';
import { startPostgresServer } from '../test/support/postgres-server';
import { samples } from '../test/support/prometheus';
import { capacity, openLoop, row, tail, ms, type Tail, type Target } from './open-loop';
import { newPostgresDatabase } from './postgres-database';
import { createApiKey, runBench, spawnRung, type RungProcess } from './support';

const DATABASES = (process.env.BENCH_LATENCY_DATABASES ?? 'postgres,sqlite').split(',').map((d) => d.trim());
const SECONDS = Number(process.env.BENCH_LATENCY_SECONDS ?? 30);
const GIVEN_CAPACITY = Number(process.env.BENCH_LATENCY_CAPACITY ?? 0);
const FRACTIONS = (process.env.BENCH_LATENCY_FRACTIONS ?? '0.3,0.6,0.8').split(',').map(Number);
/** Each step's time is split into this many alternating parts per target. */
const ROUNDS = 3;
/** A step: ROUNDS parts of Express, then the service, alternating; the latencies of each merged. */
async function step(invoke: Target, bare: Target, rate: number): Promise<[Tail, Tail]> {
  const part = Math.max(5, Math.round(SECONDS / ROUNDS));
  const svc: number[] = [];
  const base: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    base.push(...(await openLoop(bare, rate, part)));
    svc.push(...(await openLoop(invoke, rate, part)));
  }
  const offered = Math.round(rate * part) * ROUNDS;
  return [tail(svc, offered), tail(base, offered)];
}

/** The highest nodejs.eventloop.delay gauges the service exported while `during` ran (scraped every 2 s). */
async function loopDelayWhile<T>(port: number, during: Promise<T>): Promise<[T, Record<string, number>]> {
  const worst: Record<string, number> = {};
  let running = true;
  const scraping = (async () => {
    while (running) {
      await new Promise((r) => setTimeout(r, 2_000));
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text().catch(() => '');
      for (const s of samples(text)) {
        const m = /^nodejs_eventloop_delay_(\w+)$/.exec(s.name);
        if (m) worst[m[1]] = Math.max(worst[m[1]] ?? 0, s.value * 1000);
      }
    }
  })();
  const value = await during;
  // the window that was open when the load ended closes within 10 s: read it too
  await new Promise((r) => setTimeout(r, 10_500));
  running = false;
  await scraping;
  return [value, worst];
}

async function oneDatabase(provider: string, settings: Record<string, string>): Promise<void> {
  const promPort = await freePort();
  const service = await spawnRung('service', {
    LogLevel: 'info',
    EnableOpenTelemetry: 'True',
    OpenTelemetryPrometheusPort: String(promPort),
    ...settings,
    ...(JSON.parse(process.env.BENCH_LATENCY_SETTINGS ?? '{}') as Record<string, string>),
  });
  const express: RungProcess = await spawnRung('express-json');
  try {
    const invoke: Target = {
      url: service.url,
      path: `/api/Invoke/EntityAnalysisModel/${DEMO_MODEL_GUID}`,
      apiKey: await createApiKey(service.url, service.token, 'latency'),
    };
    const bare: Target = { url: express.url, path: '/', apiKey: 'unused' };
    const cap = GIVEN_CAPACITY || (await capacity(invoke, SECONDS));
    console.log(
      `\n## ${provider}: capacity ${cap}/s (${GIVEN_CAPACITY ? 'given' : `closed loop, 16 connections, worst 10-s window of ${SECONDS} s`})`,
    );
    console.log(
      '| rate | service p50 / p99 / p99.9 / max ms | bare Express 5 p50 / p99 / p99.9 / max ms | p99 ratio | p99.9 ratio | service 200s / offered |',
    );
    console.log('|---|---|---|---|---|---|');
    let loop: Record<string, number> = {};
    for (const fraction of FRACTIONS) {
      const rate = Math.round(cap * fraction);
      let svc: Tail;
      let base: Tail;
      if (fraction === 0.6) [[svc, base], loop] = await loopDelayWhile(promPort, step(invoke, bare, rate));
      else [svc, base] = await step(invoke, bare, rate);
      console.log(
        `| ${rate}/s (${fraction * 100} %) | ${row(svc)} | ${row(base)} | ${(svc.p99 / base.p99).toFixed(2)}× | ` +
          `${(svc.p999 / base.p999).toFixed(2)}× | ${svc.ok} / ${svc.offered} |`,
      );
      await new Promise((r) => setTimeout(r, 5_000)); // the pipelines catch up between steps
    }
    const names = ['min', 'mean', 'p50', 'p90', 'p99', 'max'];
    console.log(
      `  event loop delay exported during the 60 % step (highest scraped, ms): ` +
        (Object.keys(loop).length
          ? names.map((n) => `${n} ${ms(loop[n] ?? 0)}`).join(', ')
          : 'none exported'),
    );
  } finally {
    await express.stop();
    await service.stop();
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
      const dir = mkdtempSync(join(tmpdir(), `bench-latency-${provider}-`));
      if (provider !== 'postgres') {
        await oneDatabase(provider, { DatabaseProvider: 'sqlite', DataDirectory: dir });
        continue;
      }
      const serverUrl = process.env.DATABASE_URL ?? pg!.url;
      console.log(
        process.env.DATABASE_URL
          ? '\nPostgreSQL: the server DATABASE_URL names'
          : '\nPostgreSQL: a throwaway cluster (fsync and synchronous commit off)',
      );
      await oneDatabase(provider, {
        DatabaseProvider: 'postgres',
        ConnectionString: await newPostgresDatabase(serverUrl, 'latency'),
        DataDirectory: dir,
      });
    }
  } finally {
    pg?.stop();
  }
}

runBench(main);
