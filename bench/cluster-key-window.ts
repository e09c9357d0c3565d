import type { Agent } from 'node:http';
import { performance } from 'node:perf_hooks';
import { send } from '../test/support/cluster';

/** A user with an API key that every node accepts. */
export interface KeyedUser {
  guid: string;
  key: string;
}

export interface ClusterNodeRef {
  name: string;
  url: string;
}

/** One node's figures over every deactivation: requests sent after the answer, those accepted, the windows. */
export interface KeyWindow {
  sent: number;
  accepted: number;
  /** Per deactivation: ms from the answer to the last accepted request's sending (0: none accepted). */
  windows: number[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The API-key revocation window, measured: each user is deactivated on `acting` while every node is asked, back to
 * back, with that user's API key; a request sent after the deactivation's answer arrived here and accepted is
 * one the cache let through late. No node may have any: the acting node applies the change before it answers, and
 * answers once every other node has acknowledged applying it (docs/SECURITY.md, Windows; past
 * ApiKeyChangeAckTimeoutMilliseconds a node that did not is logged and counted).
 */
export async function deactivationWindows(
  agent: Agent,
  nodes: ClusterNodeRef[],
  acting: ClusterNodeRef,
  adminToken: string,
  users: KeyedUser[],
  probeMs = 250,
): Promise<Map<string, KeyWindow>> {
  const figures = new Map(nodes.map((n) => [n.name, { sent: 0, accepted: 0, windows: [] as number[] }]));
  for (const user of users) {
    let answeredAt = Infinity;
    let stop = false;
    const lastAccepted = new Map<string, number>();
    const probes = nodes.map(async (node) => {
      const f = figures.get(node.name) as KeyWindow;
      while (!stop) {
        const sentAt = performance.now();
        const r = await send(agent, `${node.url}/api/Authentication/Session`, 'GET', {
          'x-api-key': user.key,
        });
        if (sentAt <= answeredAt) continue;
        f.sent++;
        if (r.status === 200) {
          f.accepted++;
          lastAccepted.set(node.name, sentAt);
        }
      }
    });
    await sleep(20); // every probe is under way before the change
    const answer = await send(agent, `${acting.url}/api/UserRegistry/${user.guid}/Deactivate`, 'POST', {
      authorization: `Bearer ${adminToken}`,
    });
    answeredAt = performance.now();
    if (answer.status !== 200) throw new Error(`Deactivate answered ${answer.status}: ${answer.body}`);
    await sleep(probeMs);
    stop = true;
    await Promise.all(probes);
    for (const node of nodes)
      figures
        .get(node.name)
        ?.windows.push(Math.max(0, (lastAccepted.get(node.name) ?? answeredAt) - answeredAt));
  }
  return figures;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

/** The bench's lines: per node, accepted after the answer, and the window's median and p99. */
export function describeWindows(figures: Map<string, KeyWindow>, acting: ClusterNodeRef): string[] {
  const rounds = figures.get(acting.name)?.windows.length ?? 0;
  return [
    `API-key requests accepted after a deactivation's answer (${rounds} deactivations on ${acting.name}, every node asked back to back with the user's key):`,
    ...[...figures].map(
      ([name, f]) =>
        `  ${name}${name === acting.name ? ' (acting)' : ''} (must be 0): ${f.accepted} of ${f.sent} accepted; last accepted p50 ${percentile(f.windows, 50).toFixed(1)} ms, p99 ${percentile(f.windows, 99).toFixed(1)} ms after the answer`,
    ),
  ];
}
