import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');

export interface SpawnedServer {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/**
 * Runs apps/server/src/main.ts in a child process with exactly `env` (plus PATH/HOME). `terminal`: its
 * stdout and stderr are a pseudo-terminal, as in a shell (util-linux script(1)), instead of pipes.
 */
export function spawnServer(
  env: Record<string, string>,
  options: { terminal?: boolean } = {},
): SpawnedServer {
  let out = '';
  const main = [
    process.execPath,
    '-r',
    join(ROOT, 'scripts/ts-register.js'),
    join(ROOT, 'apps/server/src/main.ts'),
  ];
  const [file, ...args] = options.terminal
    ? ['script', '--quiet', '--return', '--command', main.map((a) => `'${a}'`).join(' '), '/dev/null']
    : main;
  const child = spawn(file, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`Timed out waiting for ${what}`);
}
