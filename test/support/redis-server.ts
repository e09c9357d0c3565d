import { spawn, spawnSync, ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';
import { freePort } from './free-port';

/** A throwaway redis-server on a free port, keeping nothing on disk. */
export interface RedisServer {
  url: string;
  port: number;
  /** A real stop of the process; start() brings it back on the same port. */
  pause(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const s = createConnection({ port, host: '127.0.0.1' });
      s.once('connect', () => {
        s.destroy();
        resolve();
      });
      s.once('error', () => {
        s.destroy();
        if (Date.now() > deadline) reject(new Error(`nothing opened port ${port}`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

export async function startRedisServer(): Promise<RedisServer> {
  if (spawnSync('sh', ['-c', 'command -v redis-server']).status !== 0) {
    throw new Error(
      'redis-server was not found. Install it (Debian: apt-get install redis-server) or set REDIS_URL.',
    );
  }
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    );
    await waitForPort(port, 10_000);
  };
  const pause = async () => {
    const c = child;
    if (!c || c.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once('exit', () => resolve());
      c.kill('SIGKILL');
    });
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, pause, start, stop: pause };
}
