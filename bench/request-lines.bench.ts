/*
 * npm run bench:request-lines — what a request line costs on its way to stdout, in a process of its own
 * writing into a pipe that this process drains (as a log collector would): server CPU (all threads) per line,
 * for the same lines (pino's own serialisation, two a loop turn, as under load) handed to the service's destination
 * (stdoutDestination: pino's, synchronous) one write per line, one write per loop turn (lineBatcher, batch 0), and
 * in batches of REQUEST_LINE_BATCH characters (lineBatcher, as the service does); and, for comparison, the same
 * batches into pino's asynchronous destination (4 KiB minimum writes through libuv's thread pool), which the
 * service used before (its in-flight write could land after the lines written at exit). A run with no write at all
 * is the floor. Alternating runs, medians printed; nothing is asserted.
 */
import { spawn } from 'node:child_process';
import pino from 'pino';
import {
  lineBatcher,
  LOG_FLUSH_MILLISECONDS,
  REQUEST_LINE_BATCH,
} from '../apps/server/src/fast-paths/line-batcher';
import { stdoutDestination } from '../apps/server/src/request-logging.middleware';

const WAYS = [
  'no write',
  'a write per line',
  'a write per loop turn',
  `batches of ${REQUEST_LINE_BATCH}`,
  'batches, async destination',
] as const;
type Way = (typeof WAYS)[number];
const TURNS = 100_000;
const PER_TURN = 2;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

/** The child: TURNS loop turns of PER_TURN lines each, written the given way; prints µs of CPU per line. */
function writeLines(way: Way): void {
  const destination =
    way === 'batches, async destination'
      ? pino.destination({ dest: 1, sync: false, minLength: 4096 })
      : stdoutDestination(); // the service's own destination of its lines
  const write =
    way === 'no write'
      ? (text: string) => void (text.length < 0 && destination.write(text))
      : way === 'a write per line'
        ? (text: string) => void destination.write(text)
        : lineBatcher(destination, way === 'a write per loop turn' ? 0 : REQUEST_LINE_BATCH);
  if (way === 'batches, async destination')
    setInterval(() => (destination as { flush?: () => void }).flush?.(), LOG_FLUSH_MILLISECONDS).unref();
  const lines = pino({ base: { pid: process.pid, hostname: 'bench-host', instance: 'bench' } }, { write });
  const started = process.cpuUsage();
  let turn = 0;
  const step = () => {
    for (let i = 0; i < PER_TURN; i++)
      lines.info(
        {
          req: { id: crypto.randomUUID(), method: 'GET', url: '/api/Live' },
          res: { statusCode: 200 },
          responseTime: 1,
        },
        'request completed',
      );
    if (++turn < TURNS) setImmediate(step);
    // what is still pending leaves within LOG_FLUSH_MILLISECONDS: counted too
    else
      setTimeout(() => {
        const cpu = process.cpuUsage(started);
        process.stderr.write(`${(cpu.user + cpu.system) / (TURNS * PER_TURN)}\n`);
      }, 2 * LOG_FLUSH_MILLISECONDS);
  };
  setImmediate(step);
}

function run(way: Way): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['-r', require.resolve('../scripts/ts-register.js'), __filename, way],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let figure = '';
    child.stdout.on('data', () => undefined); // drained and dropped
    child.stderr.on('data', (d: Buffer) => (figure += d.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(Number(figure)) : reject(new Error(figure))));
  });
}

async function main(): Promise<void> {
  const runs = new Map<Way, number[]>(WAYS.map((w) => [w, []]));
  for (let round = 0; round < RUNS; round++)
    for (const way of round % 2 ? [...WAYS].reverse() : WAYS) runs.get(way)!.push(await run(way));
  const median = (x: number[]) => [...x].sort((a, b) => a - b)[x.length >> 1];
  const floor = median(runs.get('no write')!);
  process.stdout.write(
    `Request lines into a drained pipe: µs of CPU per line, ${PER_TURN} lines a loop turn, medians of ${RUNS} runs of ${TURNS * PER_TURN} lines\n`,
  );
  for (const way of WAYS) {
    const m = median(runs.get(way)!);
    process.stdout.write(
      `  ${way.padEnd(28)}${m.toFixed(2).padStart(7)}${way === 'no write' ? '   (building the lines)' : `   writing: ${(m - floor).toFixed(2)}`}   runs ${runs
        .get(way)!
        .map((v) => v.toFixed(2))
        .join(' ')}\n`,
    );
  }
}

if (process.argv[2]) writeLines(process.argv[2] as Way);
else
  main().catch((err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
