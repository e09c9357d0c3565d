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
 * account. Figures only; nothing is asserted. BENCH_PHASE_SECONDS sets each phase's least length (default 12):
 * a phase's load runs until its action is done (phase 4's restarts take longer).
 */
import 'reflect-metadata';
import { Agent } from 'node:http';
import { loadavg } from 'node:os';
import { ClusterNode, send, startNode } from '../test/support/cluster';
import { deactivationWindows, describeWindows, KeyedUser, KeyWindow } from './cluster-key-window';
import {
  Actors,
  Cluster,
  clusterActors,
  databaseCounts,
  json,
  MixState,
  PHASE_SECONDS,
  PhaseFigures,
  runPhase,
  signIn,
  sleep,
  startCluster,
} from './cluster-setup';
import { runBench } from './support';

/** What every phase reads: the cluster, its users, one keep-alive agent for the probes, the notes to print. */
interface Run {
  cluster: Cluster;
  actors: Actors;
  agent: Agent;
  notes: string[];
  readerToken: string;
  phase: (name: string, readerToken: string, during: () => Promise<void>) => Promise<PhaseFigures>;
}

interface RevocationFigures {
  afterRevoke: number;
  acceptedAfterRevoke: number;
  keyRefusedEverywhereMs: number;
  keyWindows: Map<string, KeyWindow>;
}

/** Waits until every node accepts `key` (nodes asked one after another). */
async function untilAccepted(agent: Agent, nodes: ClusterNode[], key: string): Promise<void> {
  for (const n of nodes)
    while (
      (await send(agent, `${n.url}/api/Authentication/Session`, 'GET', { 'x-api-key': key })).status !== 200
    )
      await sleep(50);
}

/** BENCH_DEACTIVATIONS users, each with an API key every node accepts. */
async function keyedUsers(run: Run): Promise<KeyedUser[]> {
  const keyed: KeyedUser[] = [];
  for (let i = 0; i < Number(process.env.BENCH_DEACTIVATIONS ?? 20); i++) {
    const { guid } = await run.actors.user(`leaver-${i}`);
    const { key } = await json<{ key: string }>(
      await fetch(`${run.cluster.lb.url}/api/UserRegistryApiKey`, {
        method: 'POST',
        headers: run.actors.auth,
        body: JSON.stringify({ userRegistryGuid: guid, name: 'integration' }),
      }),
    );
    await untilAccepted(run.agent, run.cluster.nodes, key);
    keyed.push({ guid, key });
  }
  return keyed;
}

/**
 * The reader's sessions revoked on node A while every node and the balancer are asked with the victim's
 * token: requests sent after the answer, and those that succeeded.
 */
async function revokeSessionsWhileProbing(run: Run, victim: string) {
  const { nodes, lb } = run.cluster;
  const [a] = nodes;
  const { agent } = run;
  let afterRevoke = 0;
  let acceptedAfterRevoke = 0;
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
  const revoke = await send(
    agent,
    `${a.url}/api/UserRegistry/RevokeTokens/${run.actors.reader.guid}`,
    'POST',
    {
      authorization: `Bearer ${run.actors.adminToken}`,
    },
  );
  revokedAt = Date.now();
  if (revoke.status !== 204) run.notes.push(`Revoke Sessions answered ${revoke.status}`);
  await sleep(1500);
  stop = true;
  await Promise.all(probes);
  return { afterRevoke, acceptedAfterRevoke };
}

/** The API key, revoked on node B: how long until every node refuses it? */
async function keyRefusedEverywhere(run: Run, revokedKey: { key: string; guid: string }): Promise<number> {
  const { nodes } = run.cluster;
  const { agent } = run;
  const t0 = Date.now();
  const r = await send(agent, `${nodes[1].url}/api/UserRegistryApiKey/${revokedKey.guid}`, 'DELETE', {
    authorization: `Bearer ${run.actors.adminToken}`,
  });
  if (r.status !== 204) run.notes.push(`API key revocation answered ${r.status}`);
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
  return Math.max(...refused);
}

/** Phase 2: revocations (sessions on node A, an API key on node B, users deactivated on node A). */
async function revocationPhase(run: Run, figures: PhaseFigures[]): Promise<RevocationFigures> {
  const { nodes } = run.cluster;
  const victim = await signIn('reader', nodes[0].url);
  const revokedKey = await run.actors.newKey('revoked-in-phase-2');
  await untilAccepted(run.agent, nodes, revokedKey.key);
  const keyed = await keyedUsers(run);
  const out: RevocationFigures = {
    afterRevoke: 0,
    acceptedAfterRevoke: 0,
    keyRefusedEverywhereMs: NaN,
    keyWindows: new Map<string, KeyWindow>(),
  };
  figures.push(
    await run.phase('2 revocations', run.readerToken, async () => {
      await sleep((PHASE_SECONDS * 1000) / 4);
      Object.assign(out, await revokeSessionsWhileProbing(run, victim));
      out.keyRefusedEverywhereMs = await keyRefusedEverywhere(run, revokedKey);
      out.keyWindows = await deactivationWindows(run.agent, nodes, nodes[0], run.actors.adminToken, keyed);
    }),
  );
  return out;
}

/** Phase 3: node C dies (SIGKILL): probes through the balancer, and when it marks C down. */
async function nodeLossPhase(run: Run, figures: PhaseFigures[]) {
  const { lb } = run.cluster;
  const c = run.cluster.nodes[2];
  let killedAt = 0;
  let markedDownMs = NaN;
  let failedAfterKill = 0;
  figures.push(
    await run.phase('3 node C killed', run.readerToken, async () => {
      await sleep((PHASE_SECONDS * 1000) / 3);
      let stop = false;
      const probe = (async () => {
        while (!stop) {
          const r = await send(run.agent, `${lb.url}/api/Live`, 'GET');
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
  return { markedDownMs, failedAfterKill };
}

/** Phase 4: C back, then a rolling restart with SIGTERM; the exit codes. */
async function rollingRestartPhase(run: Run, figures: PhaseFigures[]): Promise<string[]> {
  const { nodes, options } = run.cluster;
  const c = nodes[2];
  const exitCodes: string[] = [];
  figures.push(
    await run.phase('4 rolling restart', run.readerToken, async () => {
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
  return exitCodes;
}

const out = (s: string) => process.stdout.write(`${s}\n`);

/** Entries per node, `node-a 12, node-b 10`, or `none`. */
function tally(entries: [string, string][]): string {
  const by = new Map<string, number>();
  for (const [, node] of entries) by.set(node, (by.get(node) ?? 0) + 1);
  return (
    [...by.entries()]
      .sort()
      .map(([n, k]) => `${n} ${k}`)
      .join(', ') || 'none'
  );
}

function printPhases(figures: PhaseFigures[]): void {
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
}

interface Report {
  figures: PhaseFigures[];
  revocations: RevocationFigures;
  nodeA: ClusterNode;
  nodeLoss: { markedDownMs: number; failedAfterKill: number };
  exitCodes: string[];
  accepted: Map<string, string>;
  mispaired: number;
  counts: Awaited<ReturnType<typeof databaseCounts>>;
  loadAfter: number;
  started: number;
  notes: string[];
}

function printReport(r: Report): void {
  const { revocations, counts, accepted } = r;
  printPhases(r.figures);
  out(
    `Revoke Sessions on node A: ${revocations.afterRevoke} requests with the revoked token sent after the answer; ${revocations.acceptedAfterRevoke} succeeded (must be 0)`,
  );
  out(`API key revoked on node B: refused on all three nodes after ${revocations.keyRefusedEverywhereMs} ms`);
  for (const line of describeWindows(revocations.keyWindows, r.nodeA)) out(line);
  out(
    `Node C SIGKILLed: marked down by the balancer after ${r.nodeLoss.markedDownMs} ms; meanwhile connections to it were retried on the others (${r.nodeLoss.failedAfterKill} failed probes; the phase's failures are in the table)`,
  );
  out(`Exit codes (SIGTERM): ${r.exitCodes.join(', ')}`);
  const missing = [...accepted].filter(([g]) => !counts.archived.has(g));
  out(
    `Invocations answered 200: ${accepted.size} (${tally([...accepted])}); archived: ${accepted.size - missing.length}; missing: ${missing.length} (${tally(missing)}: only the SIGKILLed node's memory may be lost)`,
  );
  out(
    `Answers autocannon paired with another kind of request (after a connection it reopened): ${r.mispaired}; invocations are counted from their own answers`,
  );
  out(`CaptureQueueHealth rows per Instance: ${counts.perInstance.map((p) => `${p.i} ${p.n}`).join(', ')}`);
  out(
    `Open cases: ${counts.openCases}; accounts with more than one open case in a workflow: ${counts.duplicates} (must be 0)`,
  );
  out(
    `Load average after the phases: ${r.loadAfter.toFixed(2)}; whole run ${((Date.now() - r.started) / 1000).toFixed(0)} s`,
  );
  for (const n of r.notes) out(`note: ${n}`);
}

async function main(): Promise<void> {
  const started = Date.now();
  const cluster = await startCluster();
  const { nodes, lb, pg, redis } = cluster;
  const nodeA = nodes[0];
  const actors = await clusterActors(lb.url);
  const state: MixState = { accepted: new Map<string, string>(), sequence: 0, mispaired: 0 };
  const figures: PhaseFigures[] = [];
  // The mix reads as `mixer`; phase 2 revokes `reader`, whose token only the probes use.
  const readerToken = await signIn('mixer', lb.url);
  const run: Run = {
    cluster,
    actors,
    agent: new Agent({ keepAlive: true }),
    notes: [],
    readerToken,
    phase: (name, token, during) => runPhase(lb.url, actors, state, name, token, during),
  };
  figures.push(await run.phase('1 steady', readerToken, async () => undefined));
  const revocations = await revocationPhase(run, figures);
  const nodeLoss = await nodeLossPhase(run, figures);
  const exitCodes = await rollingRestartPhase(run, figures);
  const loadAfter = loadavg()[0];

  // The final flush: stop every node gracefully, then count.
  for (const n of nodes) exitCodes.push(`${n.name} (final): ${await n.stop()}`);
  lb.stop();
  const counts = await databaseCounts(pg.url);
  run.agent.destroy();
  await redis.stop();
  pg.stop();
  const { accepted } = state;
  printReport({
    figures,
    revocations,
    nodeA,
    nodeLoss,
    exitCodes,
    accepted,
    mispaired: state.mispaired,
    counts,
    loadAfter,
    started,
    notes: run.notes,
  });
}

runBench(main);
