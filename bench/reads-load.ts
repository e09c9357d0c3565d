/* A child of bench:reads (bench/reads.bench.ts), so that neither the probes nor the heavy readers share a
 * JavaScript thread with the service or with each other:
 *   probe    GETs each path every `everyMs`, open loop: each one sent at its scheduled instant whatever the
 *            others do, its latency counted from that instant to its body's last byte (so a stalled node's
 *            delay is counted, not hidden by a client that waits before sending the next);
 *   readers  `parallel` loops, each GETting `path` again as soon as its answer ended (a 503 too: a hostile
 *            client does not honour Retry-After), the bytes counted and dropped.
 * Both run for `seconds` and answer over IPC. */
import { Agent, get } from 'node:http';
import { performance } from 'node:perf_hooks';

export interface ProbeMessage {
  kind: 'probe';
  base: string;
  paths: { name: string; path: string; headers: Record<string, string> }[];
  everyMs: number;
  seconds: number;
}
export interface ReadersMessage {
  kind: 'readers';
  url: string;
  headers: Record<string, string>;
  parallel: number;
  seconds: number;
}
export type ProbeResult = Record<string, { latencies: number[]; failed: number }>;
export interface ReadersResult {
  statuses: Record<string, number>;
  bytes: number;
  /** ms of each complete 200 answer. */
  durations: number[];
}

function call(
  url: string,
  headers: Record<string, string>,
  agent: Agent,
): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve) => {
    get(url, { headers, agent }, (res) => {
      let bytes = 0;
      res.on('data', (d: Buffer) => (bytes += d.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.on('error', () => resolve({ status: 0, bytes }));
    }).on('error', () => resolve({ status: 0, bytes: 0 }));
  });
}

async function probe(m: ProbeMessage): Promise<ProbeResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const out: ProbeResult = Object.fromEntries(m.paths.map((p) => [p.name, { latencies: [], failed: 0 }]));
  const pending: Promise<void>[] = [];
  const start = performance.now() + 50;
  const ticks = Math.floor((m.seconds * 1000) / m.everyMs);
  for (let k = 0; k < ticks; k++) {
    const scheduled = start + k * m.everyMs;
    const wait = scheduled - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    for (const p of m.paths)
      pending.push(
        call(`${m.base}${p.path}`, p.headers, agent).then(({ status }) => {
          if (status !== 200) out[p.name].failed++;
          else out[p.name].latencies.push(performance.now() - scheduled);
        }),
      );
  }
  await Promise.all(pending);
  agent.destroy();
  return out;
}

async function readers(m: ReadersMessage): Promise<ReadersResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: m.parallel });
  const result: ReadersResult = { statuses: {}, bytes: 0, durations: [] };
  const end = performance.now() + m.seconds * 1000;
  const loop = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      const { status, bytes } = await call(m.url, m.headers, agent);
      result.statuses[status] = (result.statuses[status] ?? 0) + 1;
      result.bytes += bytes;
      if (status === 200) result.durations.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: m.parallel }, loop));
  agent.destroy();
  return result;
}

process.once('message', (m: ProbeMessage | ReadersMessage) => {
  const done = (r: object) => process.send?.(r, () => process.exit(0));
  const work = m.kind === 'probe' ? probe(m) : readers(m);
  work.then(
    (result) => done({ result }),
    (err: unknown) => done({ error: err instanceof Error ? err.message : 'failed' }),
  );
});
