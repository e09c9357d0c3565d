/* Part of `npm run bench:invoke`: the Invoke endpoint over HTTP with a real API key, against one service
 * process (bench/invoke-http-server.ts) whose telemetry binding is switched between rounds: the service's own
 * ("on") and one that does nothing ("off"). Same process, heap and database for both sides; rounds in ABBA
 * order; before each round the Archiver has drained, so no round carries the previous one's background work.
 * Per round: successful invocations per wall-clock second, and per CPU second of the server process (the
 * steadier figure on a shared machine). */
import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { DEMO_MODEL_GUID, demoTransaction } from '@app/engine';
import type { ServerRequest } from './invoke-http-server';
import { asker, firstSignIn, load, rate } from './support';

const ROOT = join(__dirname, '..');

interface Server {
  url: string;
  key: string;
  ask<T>(kind: ServerRequest['kind']): Promise<T>;
  child: ChildProcess;
}

async function spawnServer(): Promise<Server> {
  const child = spawn(
    process.execPath,
    ['-r', join(ROOT, 'scripts/ts-register.js'), join(ROOT, 'bench/invoke-http-server.ts')],
    { cwd: ROOT, env: process.env, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /LISTENING (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`the bench server exited with ${code}`)));
  });
  const ask = asker<ServerRequest['kind']>(child);
  return { url, key: await apiKey(url), ask, child };
}

/** Signs the Administrator in (choosing a password on this first sign-in) and creates an API key. */
async function apiKey(url: string): Promise<string> {
  const token = await firstSignIn(url);
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const me = (await (await fetch(`${url}/api/Authentication/Session`, { headers: auth })).json()) as {
    userGuid: string;
  };
  const created = await fetch(`${url}/api/UserRegistryApiKey`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ userRegistryGuid: me.userGuid, name: 'bench' }),
  });
  return ((await created.json()) as { key: string }).key;
}

/** Asks the server to shut down (a last capture flush included), and kills it if it has not exited in 15 s. */
async function stop(s: Server): Promise<void> {
  const exited = new Promise<void>((resolve) => s.child.once('exit', () => resolve()));
  if (s.child.exitCode !== null) return;
  void s.ask('close');
  const timer = setTimeout(() => s.child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function invokeOverHttp(seconds: number): Promise<void> {
  const rounds = Number(process.env.BENCH_HTTP_ROUNDS ?? 12); // pairs
  const server = await spawnServer();
  const body = JSON.stringify(demoTransaction(1));
  type Mode = 'on' | 'off';
  const run = async (mode: Mode): Promise<{ wall: number; cpu: number }> => {
    await server.ask('archiver-idle');
    await server.ask(mode);
    const before = await server.ask<NodeJS.CpuUsage>('cpu');
    const result = await load({
      url: `${server.url}/api/Invoke/EntityAnalysisModel/${DEMO_MODEL_GUID}`,
      method: 'POST',
      headers: { 'x-api-key': server.key, 'content-type': 'application/json' },
      body,
      connections: 16,
      duration: seconds,
    });
    const after = await server.ask<NodeJS.CpuUsage>('cpu');
    const cpuSeconds = (after.user - before.user + after.system - before.system) / 1e6;
    return { wall: rate(result), cpu: result['2xx'] / cpuSeconds };
  };
  try {
    await run('on'); // warm-up, both sides
    await run('off');
    const results: Record<Mode, { wall: number; cpu: number }[]> = { on: [], off: [] };
    for (let round = 0; round < rounds; round++) {
      // ABBA order, so neither side always goes first.
      const pair: Mode[] = round % 2 === 0 ? ['on', 'off'] : ['off', 'on'];
      for (const mode of pair) results[mode].push(await run(mode));
    }
    // The machine's speed drifts over a run by more than the effect sought; each ABBA pair runs both sides
    // back to back, so the per-pair ratio cancels the drift, and its median is the headline figure.
    const overheads = (k: 'wall' | 'cpu') =>
      results.on.map((r, i) => (1 - r[k] / results.off[i][k]) * 100).sort((a, b) => a - b);
    const fig = (mode: Mode, k: 'wall' | 'cpu') => median(results[mode].map((r) => r[k]));
    const pct = (k: 'wall' | 'cpu') => median(overheads(k)).toFixed(1);
    const spread = (k: 'wall' | 'cpu') => {
      const o = overheads(k);
      return `${o[0].toFixed(1)} … ${o[o.length - 1].toFixed(1)}`;
    };
    console.log(
      `Invoke over HTTP (API key, demo model, 16 connections, ${rounds} ABBA pairs of ${seconds} s rounds, one server process):`,
    );
    for (const [mode, label] of [
      ['off', 'telemetry off (null binding):        '],
      ['on', "telemetry on (the service's binding):"],
    ] as const)
      console.log(
        `  ${label} ${fig(mode, 'wall').toFixed(0).padStart(6)}/s wall | ${fig(mode, 'cpu').toFixed(0).padStart(6)} per server CPU second  (medians of rounds)`,
      );
    console.log(
      `  overhead, median of the ${rounds} pairs: wall ${pct('wall')} %, server CPU ${pct('cpu')} %  (target under 3 %)`,
    );
    console.log(`  pairs ranged: wall ${spread('wall')} %, server CPU ${spread('cpu')} %`);
  } finally {
    await stop(server);
  }
}
