import { spawn, spawnSync, ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { freePort } from './free-port';
import { waitForPort } from './redis-server';
import { waitFor } from './spawn-server';

/**
 * A throwaway Redis master, its replica and one Sentinel watching them (quorum 1, fast timeouts), each a
 * real redis-server on a free port; everything they write (the Sentinel's config, a replica's sync file)
 * stays in one temp dir, removed by stop().
 */
export interface RedisSentinelSet {
  masterName: string;
  masterPort: number;
  replicaPort: number;
  sentinelPort: number;
  /** requirepass of the master and the replica. */
  password: string;
  /** requirepass of the Sentinel itself. */
  sentinelPassword: string;
  /** A real stop (SIGKILL) of the Sentinel; startSentinel() brings it back on its port and config file. */
  pauseSentinel(): Promise<void>;
  startSentinel(): Promise<void>;
  stop(): Promise<void>;
}

interface ServerProcess {
  start(): Promise<void>;
  kill(): Promise<void>;
}

function serverProcess(args: string[], port: number): ServerProcess {
  let child: ChildProcess | undefined;
  let output = '';
  return {
    async start() {
      output = '';
      child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      const keep = (d: Buffer) => (output = (output + d.toString()).slice(-4000));
      child.stdout?.on('data', keep);
      child.stderr?.on('data', keep);
      try {
        await waitForPort(port, 10_000);
      } catch (err) {
        throw new Error(`redis-server ${args.join(' ')} did not start: ${output}`, { cause: err });
      }
    },
    async kill() {
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        c.once('exit', () => resolve());
        c.kill('SIGKILL');
      });
      // A forked child of the server (a replication sync) may hold the pipes a moment longer.
      c.stdout?.destroy();
      c.stderr?.destroy();
    },
  };
}

/**
 * The Sentinel's configuration file. The Sentinel rewrites it (CONFIG REWRITE) as it learns: it must be
 * writable. known-replica saves the ten seconds it takes to discover the replica through INFO.
 */
function writeSentinelConfig(
  dir: string,
  o: {
    masterName: string;
    password: string;
    sentinelPassword: string;
    masterPort: number;
    replicaPort: number;
    sentinelPort: number;
  },
): string {
  const config = join(dir, 'sentinel.conf');
  writeFileSync(
    config,
    [
      `port ${o.sentinelPort}`,
      'bind 127.0.0.1',
      `dir ${dir}`,
      `requirepass ${o.sentinelPassword}`,
      'sentinel resolve-hostnames no',
      `sentinel monitor ${o.masterName} 127.0.0.1 ${o.masterPort} 1`,
      `sentinel auth-pass ${o.masterName} ${o.password}`,
      `sentinel down-after-milliseconds ${o.masterName} 1000`,
      `sentinel failover-timeout ${o.masterName} 5000`,
      `sentinel known-replica ${o.masterName} 127.0.0.1 ${o.replicaPort}`,
      '',
    ].join('\n'),
  );
  return config;
}

/** Waits until the Sentinel sees the replica healthy and in sync: a failover needs one. */
async function replicaInSync(
  sentinelPort: number,
  sentinelPassword: string,
  masterName: string,
  replicaPort: number,
) {
  const probe = new Redis({ port: sentinelPort, host: '127.0.0.1', password: sentinelPassword });
  try {
    await waitFor(
      async () => {
        const replicas = (await probe.call('SENTINEL', 'REPLICAS', masterName)) as string[][];
        return replicas.some((r) => {
          const f = fields(r);
          return f.port === String(replicaPort) && f.flags === 'slave' && f['master-link-status'] === 'ok';
        });
      },
      15_000,
      'the Sentinel to see the replica in sync',
    );
  } finally {
    probe.disconnect();
  }
}

export async function startRedisSentinelSet(
  options: { masterName?: string; password?: string; sentinelPassword?: string } = {},
): Promise<RedisSentinelSet> {
  if (spawnSync('sh', ['-c', 'command -v redis-server']).status !== 0) {
    throw new Error('redis-server was not found. Install it (Debian: apt-get install redis-server).');
  }
  const masterName = options.masterName ?? 'mymaster';
  const password = options.password ?? 'master-secret-0123';
  const sentinelPassword = options.sentinelPassword ?? 'sentinel-secret-0123';
  const dir = mkdtempSync(join(tmpdir(), 'redis-sentinel-'));
  const ports = new Set<number>();
  while (ports.size < 3) ports.add(await freePort());
  const [masterPort, replicaPort, sentinelPort] = [...ports];
  const data = (port: number) => [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'no',
    '--requirepass',
    password,
    '--masterauth',
    password,
  ];
  const master = serverProcess(data(masterPort), masterPort);
  const replica = serverProcess(
    [...data(replicaPort), '--replicaof', '127.0.0.1', String(masterPort)],
    replicaPort,
  );
  // The Sentinel rewrites this file (CONFIG REWRITE) as it learns: it must be writable. known-replica saves
  // the ten seconds it takes to discover the replica through INFO.
  const config = writeSentinelConfig(dir, {
    masterName,
    password,
    sentinelPassword,
    masterPort,
    replicaPort,
    sentinelPort,
  });
  const sentinel = serverProcess([config, '--sentinel'], sentinelPort);
  const stop = async () => {
    await Promise.all([sentinel.kill(), replica.kill(), master.kill()]);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await master.start();
    await replica.start();
    await sentinel.start();
    await replicaInSync(sentinelPort, sentinelPassword, masterName, replicaPort);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    masterName,
    masterPort,
    replicaPort,
    sentinelPort,
    password,
    sentinelPassword,
    pauseSentinel: () => sentinel.kill(),
    startSentinel: () => sentinel.start(),
    stop,
  };
}

/** A Sentinel reply's flat [name, value, name, value, ...] list as an object. */
export function fields(flat: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i]] = flat[i + 1];
  return out;
}
