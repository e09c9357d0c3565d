import { Agent } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { DEMO_MODEL_GUID } from '@app/engine';
import {
  CLUSTER_ADMIN_PASSWORD,
  clusterAdminToken,
  ClusterNode,
  ClusterOptions,
  send,
  startNode,
  testClusterOptions,
} from './support/cluster';
import { waitFor } from './support/spawn-server';

/**
 * The two invariants a user of several nodes relies on, with real node processes on one
 * PostgreSQL and one Redis: no request succeeds with a revoked token on any node after the revocation has
 * answered, and every invocation answered 200 is archived through a rolling restart (SIGTERM, draining
 * shutdown). The client plays the load balancer: it sends only to nodes whose /api/Ready answers 200.
 */
describe('two nodes on PostgreSQL and Redis', () => {
  let options: ClusterOptions;
  const nodes: ClusterNode[] = [];
  let key: string;
  let adminToken: string;
  let adminGuid: string;

  beforeAll(async () => {
    options = await testClusterOptions({
      ShutdownGraceMilliseconds: '1500',
      ShutdownDrainMilliseconds: '5000',
      ShutdownTimeoutMilliseconds: '30000',
      ArchiveBulkCopyIntervalMilliseconds: '200',
      SignInRateLimitPerMinute: '100000',
    });
    // The first node bootstraps the landlord and the demo model; the second finds them.
    nodes.push(await startNode('node-a', options));
    nodes.push(await startNode('node-b', options));
    const token = await clusterAdminToken(nodes[0].url);
    adminToken = token;
    const me = (await (
      await fetch(`${nodes[0].url}/api/Authentication/Session`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as { userGuid: string };
    adminGuid = me.userGuid;
    const created = await fetch(`${nodes[0].url}/api/UserRegistryApiKey`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ userRegistryGuid: me.userGuid, name: 'cluster-test' }),
    });
    key = ((await created.json()) as { key: string }).key;
  }, 120_000);

  afterAll(async () => {
    await Promise.all(nodes.filter((n) => n.process.child.exitCode === null).map((n) => n.stop()));
  });

  // The API-key revocation window on the other node: every node acknowledges applying a
  // revocation before the acting node answers, so node B never accepts a key after node A's answer.
  it('after an API-key revocation answers on node A, node B never accepts the key (30 revocations, B asked back to back)', async () => {
    const rounds = 30;
    const agent = new Agent({ keepAlive: true });
    const [a, b] = nodes;
    let sentAfter = 0;
    let acceptedAfter = 0;
    try {
      for (let i = 0; i < rounds; i++) {
        const created = await send(
          agent,
          `${a.url}/api/UserRegistryApiKey`,
          'POST',
          {
            authorization: `Bearer ${adminToken}`,
            'content-type': 'application/json',
          },
          JSON.stringify({ userRegistryGuid: adminGuid, name: `window-${i}` }),
        );
        expect(created.status).toBe(201);
        const { key: revoked, guid } = JSON.parse(created.body) as { key: string; guid: string };
        const onB = () => send(agent, `${b.url}/api/Authentication/Session`, 'GET', { 'x-api-key': revoked });
        await waitFor(async () => (await onB()).status === 200, 5000, 'the new key on node B');
        let answeredAt = Infinity;
        let refusedAfter = false;
        let probed = 0;
        const probe = (async () => {
          while (!refusedAfter) {
            const sentAt = performance.now();
            const { status } = await onB();
            probed++;
            if (sentAt <= answeredAt) continue;
            sentAfter++;
            if (status === 200) acceptedAfter++;
            else refusedAfter = status === 401;
          }
        })();
        await waitFor(() => probed > 0, 5000, 'the probe under way before the revocation');
        const answer = await send(agent, `${a.url}/api/UserRegistryApiKey/${guid}`, 'DELETE', {
          authorization: `Bearer ${adminToken}`,
        });
        answeredAt = performance.now();
        expect(answer.status).toBe(204);
        await probe;
      }
    } finally {
      agent.destroy();
    }
    expect({ sentAfter: sentAfter >= rounds, acceptedAfter }).toEqual({ sentAfter: true, acceptedAfter: 0 });
  }, 120_000);

  it('after Revoke Sessions answers, the revoked token is refused on every node, under load', async () => {
    const agent = new Agent({ keepAlive: true });
    const me = await fetch(`${nodes[0].url}/api/Authentication/Session`, { headers: { 'x-api-key': key } });
    const adminGuid = ((await me.json()) as { userGuid: string }).userGuid;
    // A session of the Administrator signed in on node B, used on both nodes while node A revokes it.
    const victim = (
      (await (
        await fetch(`${nodes[1].url}/api/Authentication/ByUserNamePassword`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ userName: 'Administrator', password: CLUSTER_ADMIN_PASSWORD }),
        })
      ).json()) as { token: string }
    ).token;
    let revokedAt = Infinity;
    let acceptedBefore = 0;
    let sentAfter = 0;
    let acceptedAfter = 0;
    let stop = false;
    const hammer = async (node: ClusterNode) => {
      while (!stop) {
        const sentAt = Date.now();
        const r = await send(agent, `${node.url}/api/Authentication/Session`, 'GET', {
          authorization: `Bearer ${victim}`,
        });
        if (sentAt <= revokedAt) {
          if (r.status === 200) acceptedBefore++;
        } else {
          sentAfter++;
          if (r.status === 200) acceptedAfter++;
        }
      }
    };
    const load = [hammer(nodes[0]), hammer(nodes[1]), hammer(nodes[0]), hammer(nodes[1])];
    await waitFor(() => acceptedBefore >= 20, 30_000, 'the load accepted before the revocation');
    // Revoked with the API key (which Revoke Sessions does not touch: spec, API keys 5).
    const revoke = await send(agent, `${nodes[0].url}/api/UserRegistry/RevokeTokens/${adminGuid}`, 'POST', {
      'x-api-key': key,
    });
    revokedAt = Date.now();
    expect(revoke.status).toBe(204);
    await waitFor(() => sentAfter >= 40, 30_000, 'the load sent after the revocation');
    stop = true;
    await Promise.all(load);
    agent.destroy();
    expect(acceptedBefore).toBeGreaterThan(0);
    expect(sentAfter).toBeGreaterThan(20);
    expect(acceptedAfter).toBe(0);
  });

  it('a rolling restart: every invocation answered 200 is archived, and every node exits 0', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    const ready = new Map<ClusterNode, boolean>(nodes.map((n) => [n, true]));
    let stop = false;
    // The balancer's health check.
    const probe = (async () => {
      while (!stop) {
        for (const n of [...ready.keys()])
          ready.set(n, (await send(agent, `${n.url}/api/Ready`, 'GET')).status === 200);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const accepted = new Set<string>();
    let turn = 0;
    const client = async () => {
      while (!stop) {
        const candidates = [...ready.entries()].filter(([, ok]) => ok).map(([n]) => n);
        if (!candidates.length) {
          await new Promise((r) => setTimeout(r, 20));
          continue;
        }
        const i = turn++;
        const r = await send(
          agent,
          `${candidates[i % candidates.length].url}/api/Invoke/EntityAnalysisModel/${DEMO_MODEL_GUID}`,
          'POST',
          { 'x-api-key': key, 'content-type': 'application/json' },
          JSON.stringify({
            transactionId: `t-${i}`,
            account: { id: `ACC-${i % 50}` },
            amount: 10,
            country: 'DE',
          }),
        );
        if (r.status === 200)
          accepted.add(
            (JSON.parse(r.body) as { entityAnalysisModelInstanceEntryGuid: string })
              .entityAnalysisModelInstanceEntryGuid,
          );
      }
    };
    const clients = [client(), client(), client()];
    /** Load answered since the last restart, so every node's turn comes under load. */
    const answered = async (what: string) => {
      const before = accepted.size;
      await waitFor(() => accepted.size >= before + 20, 60_000, what);
    };
    for (let i = 0; i < nodes.length; i++) {
      await answered(`invocations answered before node ${i + 1} restarts`);
      const old = nodes[i];
      expect(await old.stop()).toBe(0);
      ready.delete(old);
      nodes[i] = await startNode(old.name, options, old.port);
      ready.set(nodes[i], false);
    }
    await answered('invocations answered after the last restart');
    stop = true;
    await Promise.all([...clients, probe]);
    agent.destroy();
    expect(accepted.size).toBeGreaterThan(50);

    const db = new Client({ connectionString: options.connectionString });
    await db.connect();
    try {
      let missing: string[] = [...accepted];
      // The running nodes copy their last buffered rows within the bulk-copy interval.
      await waitFor(
        async () => {
          const rows = await db.query<{ g: string }>(
            'SELECT "EntityAnalysisModelInstanceEntryGuid" AS g FROM "EntityAnalysisModelArchive"',
          );
          const archived = new Set(rows.rows.map((r) => r.g));
          missing = [...accepted].filter((g) => !archived.has(g));
          return missing.length === 0;
        },
        10_000,
        'every accepted invocation archived',
      ).catch(() => undefined);
      expect({ accepted: accepted.size, missing }).toEqual({ accepted: accepted.size, missing: [] });
    } finally {
      await db.end();
    }
  });
});
