/*
 * npm run bench:reads — heavy audit reads must not stall a node. Per database (PostgreSQL, then SQLite): fills
 * AdminEvent with 100 000 rows, starts the service in a process of its own (bench/http-rung.ts), and prints:
 *   - the service's RSS when idle (after one small grid answer), and its peak while 20 clients each read the
 *     100 000-row AdminEvent answer (`take=100000`) again and again for BENCH_READS_SECONDS (a 503 is retried
 *     at once: a hostile client does not honour Retry-After); the ratio;
 *   - /api/Ready and a cheap signed-in request (GET /api/Authentication/Session, bearer) probed open loop
 *     every 50 ms (latency from the scheduled send to the last byte): p50, p99 and max, idle and under the
 *     reads;
 *   - what the readers got: answers by status, MB read, a 100 000-row answer's time (p50);
 *   - how the issue's own request (the same sorted by userAgent) is answered.
 * Probes and readers run in processes of their own (bench/reads-load.ts). PostgreSQL: DATABASE_URL when set,
 * else a throwaway cluster. Figures only; nothing is asserted.
 */
import 'reflect-metadata';
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@app/database';
import type { ProbeMessage, ProbeResult, ReadersMessage, ReadersResult } from './reads-load';
import { withPostgresDatabase } from './postgres-database';
import { runBench, RungProcess, settle, spawnRung } from './support';

const ROWS = Number(process.env.BENCH_READS_ROWS ?? 100_000);
const PARALLEL = Number(process.env.BENCH_READS_PARALLEL ?? 20);
const SECONDS = Number(process.env.BENCH_READS_SECONDS ?? 20);
const IDLE_SECONDS = 5;
const EVERY_MS = 50;

function child<T>(message: ProbeMessage | ReadersMessage): Promise<T> {
  return new Promise((resolve, reject) => {
    const c = fork(join(__dirname, 'reads-load.ts'), [], {
      execArgv: ['-r', join(__dirname, '..', 'scripts', 'ts-register.js')],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    c.once('message', (m: { result?: T; error?: string }) =>
      m.result ? resolve(m.result) : reject(new Error(m.error ?? 'the load child failed')),
    );
    c.send(message);
  });
}

/** AdminEvent rows as the service writes them: millisecond instants, one a millisecond back from now. */
async function fill(ds: DataSource): Promise<void> {
  const cols = `"CreatedDate", "ActorUserGuid", "ActorUser", "ActorTenantRegistryId", "ActorTenantName", "CredentialKind", "Action", "TargetType", "TargetGuid", "TargetName", "TenantRegistryId", "Changes", "OutcomeId", "StatusCode", "EventCount", "Message", "RemoteIp", "LocalIp", "UserAgent"`;
  const values = (n: string, when: string) =>
    `${when}, '11111111-2222-4333-8444-555555555555', 'admin' || (${n} % 20), 1, 'Landlord', 'bearer', 'UserRegistry.Update', 'UserRegistry', '22222222-3333-4444-8555-666666666666', 'user ' || ${n}, 1, '[{"field":"Name","old":"a' || ${n} || '","new":"b' || ${n} || '"}]', 1, 200, 1, NULL, '203.0.113.' || (${n} % 250), '127.0.0.1', 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36 #' || (${n} % 997)`;
  if (ds.options.type === 'postgres') {
    await ds.query(
      `INSERT INTO "AdminEvent" (${cols}) SELECT ${values('g', `date_trunc('milliseconds', now() AT TIME ZONE 'UTC') - g * interval '1 millisecond'`)} FROM generate_series(1, ${ROWS}) g`,
    );
    await ds.query('VACUUM ANALYZE "AdminEvent"');
  } else {
    await ds.query(
      `WITH RECURSIVE g(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM g WHERE x < ${ROWS})
       INSERT INTO "AdminEvent" (${cols}) SELECT ${values('x', `strftime('%Y-%m-%d %H:%M:%f', julianday('now') - x / 86400000.0)`)} FROM g`,
    );
    await ds.query('ANALYZE');
  }
}

function percentile(samples: number[], q: number): number {
  if (!samples.length) return NaN;
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}
const ms = (v: number) => `${v.toFixed(1)} ms`;
const mb = (b: number) => `${(b / 1048576).toFixed(0)} MB`;
const line = (name: string, r: { latencies: number[]; failed: number }) =>
  `p50 ${ms(percentile(r.latencies, 0.5))}, p99 ${ms(percentile(r.latencies, 0.99))}, max ${ms(Math.max(...r.latencies))} (${r.latencies.length} answers${r.failed ? `, ${r.failed} not 200` : ''})`;

type Memory = NodeJS.MemoryUsage & { spaces: Record<string, number> };
const memoryLine = (m: Memory) =>
  `RSS ${mb(m.rss)} (V8 heap ${mb(m.heapUsed)} used of ${mb(m.heapTotal)}: ` +
  `${Object.entries(m.spaces)
    .filter(([, used]) => used >= 1048576)
    .map(([space, used]) => `${space.replace(/_space$/, '')} ${mb(used)}`)
    .join(', ')}; external ${mb(m.external)}, array buffers ${mb(m.arrayBuffers)})`;

async function measure(server: RungProcess, provider: string): Promise<void> {
  const auth = { authorization: `Bearer ${server.token}` };
  const from = new Date(Date.now() - 86_400_000).toISOString();
  const read = `/api/AdminEvent?take=100000&from=${encodeURIComponent(from)}`;
  const probes = {
    kind: 'probe' as const,
    base: server.url,
    paths: [
      { name: 'ready', path: '/api/Ready', headers: {} },
      { name: 'session', path: '/api/Authentication/Session', headers: auth },
    ],
    everyMs: EVERY_MS,
  };
  await fetch(`${server.url}/api/AdminEvent?take=10`, { headers: auth }).then((r) => r.text());
  await settle(server);
  const idleRss = server.rss();
  const idleMemory = await server.ask<Memory>('memory');
  const idle = await child<ProbeResult>({ ...probes, seconds: IDLE_SECONDS });
  let peak = idleRss;
  const watch = setInterval(() => (peak = Math.max(peak, server.rss())), 20);
  // where the memory is, read every half second: the reading at the highest RSS is printed
  let peakMemory = idleMemory;
  const breakdown = setInterval(() => {
    void server.ask<Memory>('memory').then((m) => {
      if (m.rss > peakMemory.rss) peakMemory = m;
    });
  }, 500);
  const [loaded, readers] = await Promise.all([
    child<ProbeResult>({ ...probes, seconds: SECONDS }),
    child<ReadersResult>({
      kind: 'readers',
      url: `${server.url}${read}`,
      headers: auth,
      parallel: PARALLEL,
      seconds: SECONDS,
    }),
  ]);
  clearInterval(watch);
  clearInterval(breakdown);
  const issue = await fetch(`${server.url}${read}&sortField=userAgent&sortDirection=asc`, { headers: auth });
  const issueBody = (await issue.json()) as { detail?: string };
  process.stdout.write(
    `\n[${provider}] ${ROWS} AdminEvent rows; ${PARALLEL} clients reading take=100000 for ${SECONDS} s\n` +
      `  RSS idle ${mb(idleRss)}, peak under the reads ${mb(peak)}: ${(peak / idleRss).toFixed(2)}x (target <= 1.5x)\n` +
      `  where it is, idle → at the highest reading: ${memoryLine(idleMemory)} → ${memoryLine(peakMemory)}\n` +
      `  /api/Ready, idle:                  ${line('ready', idle.ready)}\n` +
      `  /api/Ready, under the reads:       ${line('ready', loaded.ready)} (target p99 <= 100 ms)\n` +
      `  signed-in Session, idle:           ${line('session', idle.session)}\n` +
      `  signed-in Session, under the reads: ${line('session', loaded.session)}\n` +
      `  the readers: answers by status ${JSON.stringify(readers.statuses)}, ${mb(readers.bytes)} read, a 100 000-row answer p50 ${ms(percentile(readers.durations, 0.5))}, max ${ms(Math.max(...readers.durations))}\n` +
      `  the issue's request (sortField=userAgent&sortDirection=asc): ${issue.status} ${issueBody.detail ?? ''}\n`,
  );
}

async function benchOne(
  provider: 'postgres' | 'sqlite',
  target: { connectionString?: string; dataDirectory: string },
): Promise<void> {
  const ds = new DataSource(dataSourceOptions({ provider, ...target }, [], []));
  const server = await spawnRung('service', {
    DatabaseProvider: provider,
    DataDirectory: target.dataDirectory,
    ...(target.connectionString ? { ConnectionString: target.connectionString } : {}),
  });
  await ds.initialize();
  try {
    await fill(ds);
    await ds.destroy();
    await measure(server, provider);
  } finally {
    if (ds.isInitialized) await ds.destroy();
    await server.stop();
    rmSync(target.dataDirectory, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  await withPostgresDatabase('bench_reads', async (connectionString) => {
    const only = process.env.BENCH_READS_DATABASE;
    if (!only || only === 'postgres')
      await benchOne('postgres', {
        connectionString,
        dataDirectory: mkdtempSync(join(tmpdir(), 'bench-reads-pg-')),
      });
    if (!only || only === 'sqlite')
      await benchOne('sqlite', { dataDirectory: mkdtempSync(join(tmpdir(), 'bench-reads-sqlite-')) });
  });
}

runBench(main);
