/*
 * npm run bench:profile -- [route ...] — where the service's answer to each route spends its time, against the
 * first route's: one service process (SQLite, `info` request lines, every hardening on) under a V8 CPU profile,
 * the load generator in a process of its own, each route's load a window of time; the profile's samples are
 * then split by window and counted as µs of the main thread per answer, by package and by function (its own
 * time) and the project's functions with everything they called.
 *   npm run bench:profile -- live bearer     (the default)
 *   npm run bench:profile -- api-key invoke
 *   routes: live, bearer, cookie, api-key, invoke
 * BENCH_PROFILE_ROUNDS (default 2) rounds, each running every route once for BENCH_PROFILE_SECONDS (default 6)
 * after an uncounted second, the order reversed every other round. A window runs until the process is quiet
 * again, so work an answer leaves behind (Invoke's archiving and case creation) is counted in its route.
 * BENCH_PROFILE_TOP (default 15) lines per table. Functions are named with the line of the compiled
 * JavaScript (the TypeScript sources run through SWC without source maps). The profile itself stays in the
 * temporary directory printed, for Chrome DevTools or speedscope. Figures only; nothing is asserted.
 * The sampling profiler costs the process some time of its own; compare routes within one run, never runs.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  largest,
  largestDifferences,
  type LoadWindow,
  monotonicMicros,
  type PerAnswer,
  tallyProfile,
} from './cpu-profile';
import * as here from './support';

const ROUNDS = Number(process.env.BENCH_PROFILE_ROUNDS ?? 2);
const SECONDS = Number(process.env.BENCH_PROFILE_SECONDS ?? 6);
const TOP = Number(process.env.BENCH_PROFILE_TOP ?? 15);

const us = (v: number) => v.toFixed(2).padStart(8);

/** The project's own functions (apps/, libs/): where a difference can be changed. */
const projectOnly = (m: PerAnswer): PerAnswer =>
  new Map([...m].filter(([name]) => / (apps|libs)\//.test(name)));

function printLargest(title: string, m: PerAnswer): void {
  process.stdout.write(`  ${title}\n`);
  for (const [name, v] of largest(m, TOP)) process.stdout.write(`  ${us(v)}  ${name}\n`);
}

function printDifferences(title: string, base: PerAnswer, other: PerAnswer, labels: [string, string]): void {
  process.stdout.write(`  ${title}\n  ${labels[0].padStart(8)}  ${labels[1].padStart(8)}      more\n`);
  for (const d of largestDifferences(base, other, TOP))
    process.stdout.write(`  ${us(d.base)}  ${us(d.other)}  ${us(d.more)}  ${d.name}\n`);
}

async function main(): Promise<void> {
  const names = process.argv.slice(2);
  const labels = names.length ? names : ['live', 'bearer'];
  const routes = labels.map((label) => ({ label, route: here.serviceRoute(label) }));
  const dir = mkdtempSync(join(tmpdir(), 'bench-profile-'));
  process.env.BENCH_CPU_PROF_DIR = dir;
  const server = await here.spawnRung('service', { LogLevel: 'info' });
  delete process.env.BENCH_CPU_PROF_DIR;
  const windows = new Map<string, LoadWindow[]>(labels.map((l) => [l, []]));
  const cpu = new Map<string, number>(labels.map((l) => [l, 0]));
  try {
    const requests = await Promise.all(routes.map((r) => here.routeRequest(server, r.route)));
    for (let round = 0; round < ROUNDS; round++) {
      const order = routes.map((_, i) => i);
      if (round % 2) order.reverse();
      for (const i of order) {
        const { label } = routes[i];
        const { path, ...rest } = requests[i];
        const options = { url: `${server.url}${path}`, connections: 16, ...rest };
        await here.load({ ...options, duration: 1 });
        await here.settle(server);
        const before = await server.ask<NodeJS.CpuUsage>('cpu');
        const start = monotonicMicros();
        const result = await here.load({ ...options, duration: SECONDS });
        await here.settle(server);
        const end = monotonicMicros();
        const after = await server.ask<NodeJS.CpuUsage>('cpu');
        if (result.non2xx > 0) throw new Error(`${label}: ${result.non2xx} answers were not 2xx`);
        windows.get(label)!.push({ start, end, answers: result['2xx'] });
        cpu.set(label, cpu.get(label)! + after.user - before.user + after.system - before.system);
      }
    }
  } finally {
    await server.stop();
  }
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`the service wrote no profile into ${dir}`);
  const tallies = tallyProfile(join(dir, file), windows);
  process.stdout.write(
    `CPU profile of the service, ${ROUNDS} rounds of ${SECONDS} s per route (16 connections), µs per answer\n` +
      `profile: ${join(dir, file)}\n\n` +
      `  route       answers   process CPU   main thread (sampled)\n`,
  );
  for (const r of labels) {
    const t = tallies.get(r)!;
    process.stdout.write(
      `  ${r.padEnd(10)} ${String(t.answers).padStart(8)}   ${us(cpu.get(r)! / t.answers)}      ${us(t.busy)}\n`,
    );
  }
  const [first, ...others] = labels;
  const base = tallies.get(first)!;
  process.stdout.write(`\n${first}\n`);
  printLargest('by package, own time', base.groups);
  printLargest('by function, own time', base.self);
  for (const r of others) {
    const t = tallies.get(r)!;
    process.stdout.write(`\n${r} against ${first} (largest differences first)\n`);
    printDifferences('by package, own time', base.groups, t.groups, [first, r]);
    printDifferences('by function, own time', base.self, t.self, [first, r]);
    printDifferences(
      "the project's functions, with what they called",
      projectOnly(base.inclusive),
      projectOnly(t.inclusive),
      [first, r],
    );
  }
}

here.runBench(main);
