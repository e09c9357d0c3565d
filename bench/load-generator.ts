/* The load generator's own process: `load()` (bench/support.ts) sends it autocannon options over IPC and
 * receives the result; `timedCalls()` sends it calls to make one after another and receives each one's time.
 * So no bench measures a server that shares its JavaScript thread with autocannon (which would understate
 * capacity and compress every ratio by a constant load-generator cost), and no call's time includes a pause of
 * the bench's own garbage collector (the grid bench's process holds tens of MB; its major collections, a few ms
 * each, landed in the timed calls). */
import autocannon from 'autocannon';
import { Agent, get } from 'node:http';
import { performance } from 'node:perf_hooks';

export interface TimedCalls {
  timedCalls: { url: string; headers: Record<string, string>; count: number };
}

/** `count` GETs one after another on one kept-alive connection, after one untimed; each one's ms, until its
 * body's last byte. */
async function timeCalls({ url, headers, count }: TimedCalls['timedCalls']): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const call = () =>
    new Promise<void>((resolve, reject) => {
      get(url, { headers, agent }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`${url} answered ${res.statusCode}`));
        res.on('data', () => undefined);
        res.on('end', () => resolve());
      }).on('error', reject);
    });
  await call();
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await call();
    samples.push(performance.now() - t0);
  }
  agent.destroy();
  return samples;
}

process.once('message', (message: autocannon.Options | TimedCalls) => {
  const done = (m: object) => process.send?.(m, () => process.exit(0));
  if ('timedCalls' in message) {
    timeCalls(message.timedCalls).then(
      (samples) => done({ result: samples }),
      (err: unknown) => done({ error: err instanceof Error ? err.message : 'the calls failed' }),
    );
    return;
  }
  autocannon(message, (err: unknown, result: autocannon.Result) => {
    done(err ? { error: err instanceof Error ? err.message : 'autocannon failed' } : { result });
  });
});
