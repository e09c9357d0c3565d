/*
 * npm run bench:pair — one route of the HTTP ladder, on this checkout and on another one (BENCH_BASELINE: the
 * path of a git worktree of the commit to compare with, its node_modules linked or installed), both servers
 * alive at once, in alternating 3-second runs after an uncounted second each, so the drift of a shared
 * machine hits both alike. Prints µs of server CPU per answer (median of the runs, and every run).
 *   BENCH_BASELINE=/work/wt-old npm run bench:pair -- [rung] [route]
 *   rung: service (default), nest-middleware, nest, express, node
 *   route (the service's): live (default), bearer, cookie, api-key, invoke
 * BENCH_PAIR_RUNS (default 8) runs each. BENCH_PAIR_SETTINGS (`Name=value,Name=value`) gives both servers more
 * settings, e.g. `EnableOpenTelemetry=True` (each side then gets a Prometheus port of its own).
 * BENCH_PAIR_DATABASE=postgres: each side on a new PostgreSQL database of its own (on DATABASE_URL's server, else
 * a throwaway cluster, fsync off); else each on its own SQLite file. Figures only; nothing is asserted.
 */
import type { RungName } from './http-rung';
import { freePort } from '../test/support/free-port';
import { startPostgresServer } from '../test/support/postgres-server';
import { newPostgresDatabase } from './postgres-database';
import * as here from './support';

const RUNS = Number(process.env.BENCH_PAIR_RUNS ?? 8);

async function main(): Promise<void> {
  const baseline = process.env.BENCH_BASELINE;
  if (!baseline)
    throw new Error('set BENCH_BASELINE to the path of a worktree of the commit to compare with');
  const rung = (process.argv[2] ?? 'service') as RungName;
  const route = here.serviceRoute(process.argv[3] ?? 'live');
  const pg =
    process.env.BENCH_PAIR_DATABASE === 'postgres' && !process.env.DATABASE_URL
      ? await startPostgresServer()
      : undefined;
  const pgServer = process.env.DATABASE_URL ?? pg?.url;
  const database = async (): Promise<Record<string, string>> =>
    process.env.BENCH_PAIR_DATABASE === 'postgres'
      ? { DatabaseProvider: 'postgres', ConnectionString: await newPostgresDatabase(pgServer!, 'pair') }
      : {};
  const settings = async (): Promise<Record<string, string>> => {
    const extra = Object.fromEntries(
      (process.env.BENCH_PAIR_SETTINGS ?? '')
        .split(',')
        .filter(Boolean)
        .map((pair) => pair.split('=', 2) as [string, string]),
    );
    const prometheus = extra.EnableOpenTelemetry?.toLowerCase() === 'true';
    return {
      LogLevel: 'info',
      ...(await database()),
      ...extra,
      ...(prometheus ? { OpenTelemetryPrometheusPort: String(await freePort()) } : {}),
    };
  };
  // each side kept as soon as it runs, so a server that fails to start still leaves the others stopped
  const sides: { label: string; server: here.RungProcess; runs: number[] }[] = [];
  try {
    const baselineServer = await here.spawnRung(rung, await settings(), [], [], baseline);
    sides.push({ label: 'baseline', server: baselineServer, runs: [] });
    sides.push({ label: 'this checkout', server: await here.spawnRung(rung, await settings()), runs: [] });
    const requests = await Promise.all(sides.map((s) => here.routeRequest(s.server, route)));
    for (let run = 0; run < RUNS; run++) {
      for (const i of run % 2 ? [1, 0] : [0, 1]) {
        const { server, runs } = sides[i];
        const { path, ...rest } = requests[i];
        const options = { url: `${server.url}${path}`, connections: 16, ...rest };
        await here.load({ ...options, duration: 1 });
        const before = await server.ask<NodeJS.CpuUsage>('cpu');
        const result = await here.load({ ...options, duration: 3 });
        const after = await server.ask<NodeJS.CpuUsage>('cpu');
        if (result.non2xx > 0) throw new Error(`${sides[i].label}: ${result.non2xx} answers were not 2xx`);
        runs.push((after.user - before.user + after.system - before.system) / result.requests.total);
      }
    }
    process.stdout.write(
      `${rung} ${route}: µs of server CPU per answer, ${RUNS} alternating runs of 3 s each\n`,
    );
    for (const { label, runs } of sides) {
      const sorted = [...runs].sort((a, b) => a - b);
      process.stdout.write(
        `  ${label.padEnd(14)} median ${sorted[Math.floor(sorted.length / 2)].toFixed(1).padStart(7)}   runs ${runs.map((r) => r.toFixed(0)).join(' ')}\n`,
      );
    }
  } finally {
    await Promise.all(sides.map((s) => s.server.stop()));
    pg?.stop();
  }
}

here.runBench(main);
