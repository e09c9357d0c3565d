/*
 * bench:cluster's parts that are not phases (bench/cluster.bench.ts): the cluster started (PostgreSQL, Redis,
 * the migrations, three nodes, HAProxy), the users and keys the mix needs, one load run through the balancer,
 * and the counts read from the database at the end.
 */
import autocannon from 'autocannon';
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DEMO_MODEL_GUID } from '@app/engine';
import {
  clusterAdminToken,
  clusterEnv,
  ClusterNode,
  ClusterOptions,
  startNode,
} from '../test/support/cluster';
import { startHaproxy } from '../test/support/haproxy';
import { startPostgresServer } from '../test/support/postgres-server';
import { startRedisServer } from '../test/support/redis-server';
import { MixState, recordAnswer } from './cluster-answers';

export type { MixState } from './cluster-answers';

export const PHASE_SECONDS = Number(process.env.BENCH_PHASE_SECONDS ?? 12);
const ROOT = join(__dirname, '..');
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface PhaseFigures {
  phase: string;
  byStatus: Record<string, number>;
  errors: number;
  p50: number;
  p99: number;
  rps: number;
  load: string;
}

export async function json<T>(res: Response): Promise<T> {
  if (!res.ok) throw new Error(`${res.url} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

export type Cluster = Awaited<ReturnType<typeof startCluster>>;

/** PostgreSQL, Redis, the migrations run once, three nodes and HAProxy in front. */
export async function startCluster() {
  if (spawnSync('sh', ['-c', 'command -v haproxy']).status !== 0)
    throw new Error('haproxy was not found: npm test installs it (Debian: apt-get install haproxy)');
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
  // docker/haproxy.cfg's rules: the forwarded headers overwritten with what the balancer saw.
  const lb = await startHaproxy(
    nodes.map((n) => ({ name: n.name, port: n.port })),
    'overwrite',
  );
  await sleep(1500); // the balancer's first health checks
  return { pg, redis, options, nodes, lb };
}

export type Actors = Awaited<ReturnType<typeof clusterActors>>;

/**
 * Who does what: the Administrator (grids, revocations), an API key for invocations, a reader whose sessions
 * are revoked in phase 2, a signer whose password sign-ins are part of the mix.
 */
export async function clusterActors(lbUrl: string) {
  const adminToken = await clusterAdminToken(lbUrl);
  const auth = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
  const me = await json<{ userGuid: string }>(
    await fetch(`${lbUrl}/api/Authentication/Session`, { headers: auth }),
  );
  const role = await json<{ guid: string }>(
    await fetch(`${lbUrl}/api/RoleRegistry`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'readers', permissions: [] }),
    }),
  );
  const user = async (name: string) =>
    json<{ guid: string }>(
      await fetch(`${lbUrl}/api/UserRegistry`, {
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
  const newKey = async (name: string) =>
    json<{ key: string; guid: string }>(
      await fetch(`${lbUrl}/api/UserRegistryApiKey`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ userRegistryGuid: me.userGuid, name }),
      }),
    );
  const invokeKey = (await newKey('invocations')).key;
  return { adminToken, auth, reader, user, newKey, invokeKey };
}

/** A password sign-in as `name` (its password is the one clusterActors' `user` gave it). */
export async function signIn(name: string, url: string): Promise<string> {
  return (
    await json<{ token: string }>(
      await fetch(`${url}/api/Authentication/ByUserNamePassword`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ userName: name, password: `${name}-Password-123` }),
      }),
    )
  ).token;
}

/** 40 requests a cycle: 20 invocations, 12 JWT reads, 7 grid reads, 1 sign-in (Argon2 is the costly one). */
function mixCycle(actors: Actors, state: MixState, readerToken: string): autocannon.Request[] {
  const invoke = {
    method: 'POST' as const,
    path: `/api/Invoke/EntityAnalysisModel/${DEMO_MODEL_GUID}`,
    headers: { 'x-api-key': actors.invokeKey, 'content-type': 'application/json' },
    setupRequest: (req: autocannon.Request) => {
      const n = state.sequence++;
      req.body = JSON.stringify({
        transactionId: `b-${n}`,
        account: { id: `ACC-${n % 20}` },
        amount: 9999,
        country: 'DE',
      });
      return req;
    },
    onResponse: recordAnswer(state, true),
  };
  const read = {
    method: 'GET' as const,
    path: '/api/Authentication/Session',
    headers: { authorization: `Bearer ${readerToken}` },
    onResponse: recordAnswer(state, false),
  };
  const grid = {
    method: 'GET' as const,
    path: '/api/CaptureQueueHealth?take=10',
    headers: { authorization: `Bearer ${actors.adminToken}` },
    onResponse: recordAnswer(state, false),
  };
  const signin = {
    method: 'POST' as const,
    path: '/api/Authentication/ByUserNamePassword',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ userName: 'signer', password: 'signer-Password-123' }),
    onResponse: recordAnswer(state, false),
  };
  return [
    ...Array.from({ length: 20 }, () => invoke),
    ...Array.from({ length: 12 }, () => read),
    ...Array.from({ length: 7 }, () => grid),
    signin,
  ].sort(() => 0.5 - Math.random());
}

/**
 * One load run through the balancer: the mix, PHASE_SECONDS long and at least until `during` has finished
 * (the rolling restart takes longer than a phase: a fixed duration left its last nodes stopped without load).
 */
export async function runPhase(
  lbUrl: string,
  actors: Actors,
  state: MixState,
  name: string,
  readerToken: string,
  during: () => Promise<void>,
): Promise<PhaseFigures> {
  const cycle = mixCycle(actors, state, readerToken);
  const byStatus: Record<string, number> = {};
  let instance: autocannon.Instance | undefined;
  const result = new Promise<autocannon.Result>((resolve, reject) => {
    // Stopped below; the duration only bounds a phase whose action never ends.
    instance = autocannon(
      { url: lbUrl, connections: 8, duration: 3600, requests: cycle },
      (err: unknown, res: autocannon.Result) =>
        err ? reject(err instanceof Error ? err : new Error('autocannon failed')) : resolve(res),
    );
    instance.on('response', (_client: unknown, status: number) => {
      byStatus[status] = (byStatus[status] ?? 0) + 1;
    });
  });
  try {
    await Promise.all([during(), sleep(PHASE_SECONDS * 1000)]);
  } finally {
    instance?.stop();
  }
  const figures = await result;
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

/** The counts read after the final flush: archived entries, CaptureQueueHealth rows, open cases. */
export async function databaseCounts(connectionString: string) {
  const db = new Client({ connectionString });
  await db.connect();
  const archived = new Set(
    (
      await db.query<{ g: string }>(
        'SELECT "EntityAnalysisModelInstanceEntryGuid" AS g FROM "EntityAnalysisModelArchive"',
      )
    ).rows.map((r) => r.g),
  );
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
  return { archived, perInstance, duplicates, openCases };
}
