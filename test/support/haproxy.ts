import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';
import { waitForPort } from './redis-server';

/**
 * How the balancer passes on the client's address, scheme and host:
 * - `overwrite`: what docker/haproxy.cfg ships, and what docs/SECURITY.md asks of any balancer: each of the three
 *   headers replaced by what the balancer saw, so nothing the client wrote reaches a node;
 * - `append`: HAProxy's `option forwardfor` and `add-header`, which keep what the client sent and add the
 *   balancer's value after it (the tests use it to prove that a node reads the client address hop by hop; Express
 *   reads the first -Proto and -Host value, the client's, so such a balancer is trusted for X-Forwarded-For only);
 * - `for-only`: a balancer that sets X-Forwarded-For and nothing else, passing on the client's own
 *   X-Forwarded-Proto and -Host (the node must then be told to trust only X-Forwarded-For: TrustProxyHeaders).
 */
export type ForwardedHeaders = 'overwrite' | 'append' | 'for-only';

/** The frontend rules that replace the forwarded headers (docker/haproxy.cfg carries the same lines). */
export const OVERWRITE_FORWARDED_RULES = [
  'http-request set-header X-Forwarded-For %[src]',
  'http-request set-header X-Forwarded-Host %[req.hdr(host)]',
];

function forwardedRules(mode: ForwardedHeaders): string[] {
  if (mode === 'for-only') return ['http-request set-header X-Forwarded-For %[src]'];
  return mode === 'overwrite'
    ? [...OVERWRITE_FORWARDED_RULES, 'http-request set-header X-Forwarded-Proto http']
    : [
        'option forwardfor',
        'http-request add-header X-Forwarded-Host %[req.hdr(host)]',
        'http-request add-header X-Forwarded-Proto http',
      ];
}

export interface HaproxyServer {
  name: string;
  port: number;
}

export interface Haproxy {
  url: string;
  /** The balancer's view of one server (UP, DOWN, …), from its CSV statistics. */
  serverStatus(name: string): Promise<string>;
  stop(): void;
}

/**
 * Debian's HAProxy in front of `servers` on 127.0.0.1, with docker/haproxy.cfg's rules (health check on
 * /api/Ready, retries only on connection failures, round robin) and this run's ports.
 */
export async function startHaproxy(servers: HaproxyServer[], forwarded: ForwardedHeaders): Promise<Haproxy> {
  const port = await freePort();
  const statsPort = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'haproxy-'));
  const cfg = join(dir, 'haproxy.cfg');
  writeFileSync(
    cfg,
    `global
    maxconn 4096
defaults
    mode http
    option redispatch
    retries 3
    retry-on conn-failure
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    timeout tunnel 1h
    timeout http-keep-alive 10s
    default-server check inter 500ms fall 2 rise 2
frontend stats
    bind 127.0.0.1:${statsPort}
    stats enable
    stats uri /stats
frontend service
    bind 127.0.0.1:${port}
${forwardedRules(forwarded)
  .map((rule) => `    ${rule}`)
  .join('\n')}
    default_backend nodes
backend nodes
    balance roundrobin
    option httpchk
    http-check send meth GET uri /api/Ready
    http-check expect status 200
    http-response set-header X-Served-By %s
${servers.map((s) => `    server ${s.name} 127.0.0.1:${s.port}`).join('\n')}
`,
  );
  const check = spawnSync('haproxy', ['-c', '-q', '-f', cfg], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`haproxy -c: ${check.stderr}`);
  const child: ChildProcess = spawn('haproxy', ['-db', '-f', cfg], { stdio: 'ignore' });
  await waitForPort(port, 10_000);
  return {
    url: `http://127.0.0.1:${port}`,
    serverStatus: async (name: string) => {
      const csv = await (await fetch(`http://127.0.0.1:${statsPort}/stats;csv`)).text();
      const row = csv.split('\n').find((l) => l.startsWith(`nodes,${name},`));
      const header = csv.split('\n')[0].replace(/^# /, '').split(',');
      return row?.split(',')[header.indexOf('status')] ?? '?';
    },
    stop: () => child.kill('SIGTERM'),
  };
}

/** Waits until the balancer has seen every server healthy. */
export async function allUp(lb: Haproxy, names: string[], timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const name of names)
    while (!(await lb.serverStatus(name)).startsWith('UP')) {
      if (Date.now() > deadline) throw new Error(`HAProxy never saw ${name} up`);
      await new Promise((r) => setTimeout(r, 50));
    }
}
