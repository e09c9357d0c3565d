/*
 * npm run bench:cluster — the production topology on this machine, under load: a throwaway PostgreSQL and
 * Redis, the migrations run once, three service nodes (real processes, distinct InstanceName, shared JwtKey
 * and ApiHmacKey, TrustProxy=True, RunMigrations=False) and Debian's HAProxy in front (docker/haproxy.cfg's
 * rules, with this run's ports). autocannon (in this process, outside every node) sends a mix through the
 * balancer: API-key invocations of the demo model, bearer-JWT reads, grid reads and a few password sign-ins.
 * Phases, each with its own load run:
 *   1 steady;
 *   2 revocations: a user's sessions revoked on node A (requests with that user's token sent after the answer
 *     arrived must all fail, on every node: counted), an API key revoked on node B (time until every node
 *     refuses it), then BENCH_DEACTIVATIONS (20) users with API keys deactivated on node A one after another
 *     while every node is asked with the key: per node, requests sent after the answer that were accepted
 *     (node A must have none) and how long after the answer the last was sent;
 *   3 node loss: node C SIGKILLed (failed requests, time until the balancer routes around it);
 *   4 rolling restart: C started again, then A, B, C restarted one at a time with SIGTERM (zero failures).
 * Then a table, with the load average beside it (everything shares this machine's cores), and the checks:
 * archive rows against invocations answered 200, rows per Instance in CaptureQueueHealth, open cases per
 * account. Figures only; nothing is asserted. BENCH_PHASE_SECONDS sets each phase's length (default 12).
 */
import 'reflect-metadata';
import autocannon from 'autocannon';
import { spawnSync } from 'node:child_process';
import { Agent, IncomingHttpHeaders } from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DEMO_MODEL_GUID } from '@app/engine';
import {
  clusterAdminToken,
  clusterEnv,
  ClusterNode,
  ClusterOptions,
  send,
  startNode,
} from '../test/support/cluster';
import { startHaproxy } from '../test/support/haproxy';
import { startPostgresServer } from '../test/support/postgres-server';
import { startRedisServer } from '../test/support/redis-server';
import { deactivationWindows, describeWindows, KeyedUser, KeyWindow } from './cluster-key-window';
import { runBench } from './support';

const PHASE_SECONDS = Number(process.env.BENCH_PHASE_SECONDS ?? 12);
const ROOT = join(__dirname, '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface PhaseFigures {
  phase: string;
  byStatus: Record<string, number>;
  errors: number;
  p50: number;
  p99: number;
  rps: number;
  load: string;
}

async function json<T>(res: Response): Promise<T> {
  if (!res.ok) throw new Error(`${res.url} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

async function main(): Promise<void> {
  if (spawnSync('sh', ['-c', 'command -v haproxy']).status !== 0)
    throw new Error('haproxy was not found: npm test installs it (Debian: apt-get install haproxy)');
  const started = Date.now();
  const pg = await startPostgresServer();
  const redis = await startRedisServer();
  const options: ClusterOptions = {
    connectionString: pg.url,
    redis: redis.url,
    env: {
      LogLevel: 'warn',
      CaptureQueueFlushIntervalMilliseconds: '5000',
      StageRollupIntervalMilliseconds: '5000',
      ArchiveBulkCopyIntervalMilliseconds: '500',
      ShutdownGraceMilliseconds: '3000',
      ShutdownDrainMilliseconds: '5000',
      ShutdownTimeoutMilliseconds: '30000',
      // Every request reaches the nodes from the balancer's one address (X-Forwarded-For: 127.0.0.1).
      SignInRateLimitPerMinute: '1000000',
    },
  };
  const migrate = spawnSync(
    process.execPath,
    ['-r', join(ROOT, 'scripts/ts-register.js'), join(ROOT, 'libs/database/src/migrate.ts')],
    { env: { ...process.env, ...clusterEnv(options) }, encoding: 'utf8', cwd: ROOT },
  );
  if (migrate.status !== 0) throw new Error(`npm run migrate failed: ${migrate.stderr}`);
  // The first node bootstraps the landlord and the demo model; the others find them.
  const nodes: ClusterNode[] = [await startNode('node-a', options)];
  nodes.push(...(await Promise.all([startNode('node-b', options), startNode('node-c', options)])));
  const [a, b] = nodes;
  // docker/haproxy.cfg's rules: the forwarded headers overwritten with what the balancer saw.
  const lb = await startHaproxy(
    nodes.map((n) => ({ name: n.name, port: n.port })),
    'overwrite',
  );
  await sleep(1500); // the balancer's first health checks

  // Who does what: the Administrator (grids, revocations), an API key for invocations, a reader whose
  // sessions are revoked in phase 2, a signer whose password sign-ins are part of the mix.
  const adminToken = await clusterAdminToken(lb.url);
  const auth = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
  const me = await json<{ userGuid: string }>(
    await fetch(`${lb.url}/api/Authentication/Session`, { headers: auth }),
  );
  const role = await json<{ guid: string }>(
    await fetch(`${lb.url}/api/RoleRegistry`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'readers', permissions: [] }),
    }),
  );
  const user = async (name: string) =>
    json<{ guid: string }>(
      await fetch(`${lb.url}/api/UserRegistry`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          name,
          roleGuid: role.guid,
          password: `${name}-Password-123`,
          passwordExpired: false,
        }),
      }),
    );
  const reader = await user('reader');
  await user('mixer');
  await user('signer');
  const signIn = async (name: string, url = lb.url) =>
    (
      await json<{ token: string }>(
        await fetch(`${url}/api/Authentication/ByUserNamePassword`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ userName: name, password: `${name}-Password-123` }),
        }),
      )
    ).token;
  const newKey = async (name: string) =>
    json<{ key: string; guid: string }>(
      await fetch(`${lb.url}/api/UserRegistryApiKey`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ userRegistryGuid: me.userGuid, name }),
      }),
    );
  const invokeKey = (await newKey('invocations')).key;

  /** Entry guid of every invocation answered 200 → the node that answered it. */
  const accepted = new Map<string, string>();
  let sequence = 0;
  /** One load run through the balancer: the mix, `seconds` long, while `during` runs. */
  async function phase(
    name: string,
    readerToken: string,
    during: () => Promise<void>,
  ): Promise<PhaseFigures> {
    const invoke = {
      method: 'POST' as const,
      path: `/api/Invoke/EntityAnalysisModel/${DEMO_MODEL_GUID}`,
      headers: { 'x-api-key': invokeKey, 'content-type': 'application/json' },
      setupRequest: (req: autocannon.Request) => {
        const n = sequence++;
        req.body = JSON.stringify({
          transactionId: `b-${n}`,
          account: { id: `ACC-${n % 20}` },
          amount: 9999,
          country: 'DE',
        });
        return req;
      },
      onResponse: (status: number, body: string, _c: object, headers?: IncomingHttpHeaders) => {
        if (status !== 200) return;
        const served = headers?.['x-served-by'];
        accepted.set(
          (JSON.parse(body) as { entityAnalysisModelInstanceEntryGuid: string })
            .entityAnalysisModelInstanceEntryGuid,
          typeof served === 'string' ? served : '?',
        );
      },
    };
    const read = {
      method: 'GET' as const,
      path: '/api/Authentication/Session',
      headers: { authorization: `Bearer ${readerToken}` },
    };
    const grid = {
      method: 'GET' as const,
      path: '/api/CaptureQueueHealth?take=10',
      headers: { authorization: `Bearer ${adminToken}` },
    };
    const signin = {
      method: 'POST' as const,
      path: '/api/Authentication/ByUserNamePassword',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userName: 'signer', password: 'signer-Password-123' }),
    };
    // 40 requests a cycle: 20 invocations, 12 JWT reads, 7 grid reads, 1 sign-in (Argon2 is the costly one).
    const cycle = [
      ...Array.from({ length: 20 }, () => invoke),
      ...Array.from({ length: 12 }, () => read),
      ...Array.from({ length: 7 }, () => grid),
      signin,
    ].sort(() => 0.5 - Math.random());
    const byStatus: Record<string, number> = {};
    const result = new Promise<autocannon.Result>((resolve, reject) => {
      const instance = autocannon(
        { url: lb.url, connections: 8, duration: PHASE_SECONDS, requests: cycle },
        (err: unknown, res: autocannon.Result) =>
          err ? reject(err instanceof Error ? err : new Error('autocannon failed')) : resolve(res),
      );
      instance.on('response', (_client: unknown, status: number) => {
        byStatus[status] = (byStatus[status] ?? 0) + 1;
      });
    });
    const [figures] = await Promise.all([result, during()]);
    return {
      phase: name,
      byStatus,
      errors: figures.errors + figures.timeouts,
      p50: figures.latency.p50,
      p99: figures.latency.p99,
      rps: figures.requests.average,
      load: loadavg()
        .map((l) => l.toFixed(2))
        .join(' '),
    };
  }

  const figures: PhaseFigures[] = [];
  const notes: string[] = [];
  // The mix reads as `mixer`; phase 2 revokes `reader`, whose token only the probes use.
  const readerToken = await signIn('mixer');
  figures.push(await phase('1 steady', readerToken, async () => undefined));

  // Phase 2: revocations.
  const victim = await signIn('reader', a.url);
  const revokedKey = await newKey('revoked-in-phase-2');
  const agent = new Agent({ keepAlive: true });
  for (const n of nodes) {
    while (
      (await send(agent, `${n.url}/api/Authentication/Session`, 'GET', { 'x-api-key': revokedKey.key }))
        .status !== 200
    )
      await sleep(50);
  }
  const keyed: KeyedUser[] = [];
  for (let i = 0; i < Number(process.env.BENCH_DEACTIVATIONS ?? 20); i++) {
    const { guid } = await user(`leaver-${i}`);
    const { key } = await json<{ key: string }>(
      await fetch(`${lb.url}/api/UserRegistryApiKey`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ userRegistryGuid: guid, name: 'integration' }),
      }),
    );
    for (const n of nodes)
      while (
        (await send(agent, `${n.url}/api/Authentication/Session`, 'GET', { 'x-api-key': key })).status !== 200
      )
        await sleep(50);
    keyed.push({ guid, key });
  }
  let keyWindows = new Map<string, KeyWindow>();
  let afterRevoke = 0;
  let acceptedAfterRevoke = 0;
  let keyRefusedEverywhereMs = NaN;
  figures.push(
    await phase('2 revocations', readerToken, async () => {
      await sleep((PHASE_SECONDS * 1000) / 4);
      let revokedAt = Infinity;
      let stop = false;
      const probes = [...nodes.map((n) => n.url), lb.url, lb.url].map(async (url) => {
        while (!stop) {
          const sent = Date.now();
          const r = await send(agent, `${url}/api/Authentication/Session`, 'GET', {
            authorization: `Bearer ${victim}`,
          });
          if (sent > revokedAt) {
            afterRevoke++;
            if (r.status === 200) acceptedAfterRevoke++;
          }
        }
      });
      const revoke = await send(agent, `${a.url}/api/UserRegistry/RevokeTokens/${reader.guid}`, 'POST', {
        authorization: `Bearer ${adminToken}`,
      });
      revokedAt = Date.now();
      if (revoke.status !== 204) notes.push(`Revoke Sessions answered ${revoke.status}`);
      await sleep(1500);
      stop = true;
      await Promise.all(probes);
      // The API key, revoked on node B: how long until every node refuses it?
      const t0 = Date.now();
      const r = await send(agent, `${b.url}/api/UserRegistryApiKey/${revokedKey.guid}`, 'DELETE', {
        authorization: `Bearer ${adminToken}`,
      });
      if (r.status !== 204) notes.push(`API key revocation answered ${r.status}`);
      const refused = await Promise.all(
        nodes.map(async (n) => {
          while (
            (await send(agent, `${n.url}/api/Authentication/Session`, 'GET', { 'x-api-key': revokedKey.key }))
              .status === 200
          )
            await sleep(5);
          return Date.now() - t0;
        }),
      );
      keyRefusedEverywhereMs = Math.max(...refused);
      keyWindows = await deactivationWindows(agent, nodes, a, adminToken, keyed);
    }),
  );

  // Phase 3: node C dies.
  const c = nodes[2];
  let killedAt = 0;
  let markedDownMs = NaN;
  let failedAfterKill = 0;
  figures.push(
    await phase('3 node C killed', readerToken, async () => {
      await sleep((PHASE_SECONDS * 1000) / 3);
      let stop = false;
      const probe = (async () => {
        while (!stop) {
          const r = await send(agent, `${lb.url}/api/Live`, 'GET');
          if (killedAt && r.status !== 200) failedAfterKill++;
          await sleep(10);
        }
      })();
      c.process.child.kill('SIGKILL');
      killedAt = Date.now();
      await c.process.exited;
      while (!(await lb.serverStatus('node-c')).startsWith('DOWN')) await sleep(20);
      markedDownMs = Date.now() - killedAt;
      await sleep((PHASE_SECONDS * 1000) / 2);
      stop = true;
      await probe;
    }),
  );

  // Phase 4: C back, then a rolling restart with SIGTERM.
  const exitCodes: string[] = [];
  figures.push(
    await phase('4 rolling restart', readerToken, async () => {
      nodes[2] = await startNode('node-c', options, c.port);
      await sleep(2000);
      for (let i = 0; i < nodes.length; i++) {
        const old = nodes[i];
        exitCodes.push(`${old.name}: ${await old.stop()}`);
        nodes[i] = await startNode(old.name, options, old.port);
        await sleep(1500); // the balancer sees it ready again (rise 2 × 500 ms)
      }
    }),
  );
  const loadAfter = loadavg()[0];

  // The final flush: stop every node gracefully, then count.
  for (const n of nodes) exitCodes.push(`${n.name} (final): ${await n.stop()}`);
  lb.stop();
  const db = new Client({ connectionString: pg.url });
  await db.connect();
  const archived = new Set(
    (
      await db.query<{ g: string }>(
        'SELECT "EntityAnalysisModelInstanceEntryGuid" AS g FROM "EntityAnalysisModelArchive"',
      )
    ).rows.map((r) => r.g),
  );
  const tally = (entries: [string, string][]) => {
    const by = new Map<string, number>();
    for (const [, node] of entries) by.set(node, (by.get(node) ?? 0) + 1);
    return (
      [...by.entries()]
        .sort()
        .map(([n, k]) => `${n} ${k}`)
        .join(', ') || 'none'
    );
  };
  const missing = [...accepted].filter(([g]) => !archived.has(g));
  const perInstance = (
    await db.query<{ i: string; n: string }>(
      'SELECT "Instance" AS i, COUNT(*) AS n FROM "CaptureQueueHealth" GROUP BY "Instance" ORDER BY 1',
    )
  ).rows;
  const duplicates = (
    await db.query<{ n: string }>(
      `SELECT COUNT(*) AS n FROM (SELECT "CaseKeyValue" FROM "Case" WHERE "ClosedDate" IS NULL GROUP BY "CaseWorkflowId", "CaseKey", "CaseKeyValue" HAVING COUNT(*) > 1) d`,
    )
  ).rows[0].n;
  const openCases = (
    await db.query<{ n: string }>('SELECT COUNT(*) AS n FROM "Case" WHERE "ClosedDate" IS NULL')
  ).rows[0].n;
  await db.end();
  agent.destroy();
  await redis.stop();
  pg.stop();

  const out = (s: string) => process.stdout.write(`${s}\n`);
  out(
    `\nbench:cluster — 3 nodes behind HAProxy, PostgreSQL and Redis on this machine, ${PHASE_SECONDS} s a phase`,
  );
  out('| phase | 2xx | 401 | 5xx | other | errors | req/s | p50 ms | p99 ms | load avg (1/5/15 min) |');
  out('|---|---|---|---|---|---|---|---|---|---|');
  for (const f of figures) {
    const count = (pred: (s: number) => boolean) =>
      Object.entries(f.byStatus)
        .filter(([s]) => pred(Number(s)))
        .reduce((sum, [, n]) => sum + n, 0);
    out(
      `| ${f.phase} | ${count((s) => s >= 200 && s < 300)} | ${count((s) => s === 401)} | ${count((s) => s >= 500)} | ${count(
        (s) => (s >= 300 && s < 500 && s !== 401) || s < 200,
      )} | ${f.errors} | ${f.rps.toFixed(0)} | ${f.p50} | ${f.p99} | ${f.load} |`,
    );
  }
  out('');
  out(
    `Revoke Sessions on node A: ${afterRevoke} requests with the revoked token sent after the answer; ${acceptedAfterRevoke} succeeded (must be 0)`,
  );
  out(`API key revoked on node B: refused on all three nodes after ${keyRefusedEverywhereMs} ms`);
  for (const line of describeWindows(keyWindows, a)) out(line);
  out(
    `Node C SIGKILLed: marked down by the balancer after ${markedDownMs} ms; meanwhile connections to it were retried on the others (${failedAfterKill} failed probes; the phase's failures are in the table)`,
  );
  out(`Exit codes (SIGTERM): ${exitCodes.join(', ')}`);
  out(
    `Invocations answered 200: ${accepted.size} (${tally([...accepted])}); archived: ${accepted.size - missing.length}; missing: ${missing.length} (${tally(missing)}: only the SIGKILLed node's memory may be lost)`,
  );
  out(`CaptureQueueHealth rows per Instance: ${perInstance.map((r) => `${r.i} ${r.n}`).join(', ')}`);
  out(
    `Open cases: ${openCases}; accounts with more than one open case in a workflow: ${duplicates} (must be 0)`,
  );
  out(
    `Load average after the phases: ${loadAfter.toFixed(2)}; whole run ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  for (const n of notes) out(`note: ${n}`);
}

runBench(main);
