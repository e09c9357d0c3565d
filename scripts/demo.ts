/* `npm run demo -- --api-key <key> [--url http://localhost:5001] [--count 500] [--concurrency 4]`
 *
 * Sends a stream of demo transactions to the demo model (created in the landlord tenant at first start),
 * so the Archiver, case creation and their telemetry fill up. The key may also come from DEMO_API_KEY and
 * the URL from DEMO_URL. API keys are created by an administrator (Administration, Security, Users, a
 * user, Generate API Key) once the API-key issue has landed; until then no credential can reach Invoke. */
import { DEMO_MODEL_GUID, demoTransaction } from '../libs/engine/src/demo/demo-model';

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function positiveInt(text: string | undefined, fallback: number, name: string): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive whole number`);
  return n;
}

async function main(): Promise<void> {
  const apiKey = option('api-key') ?? process.env.DEMO_API_KEY;
  const base = (option('url') ?? process.env.DEMO_URL ?? 'http://localhost:5001').replace(/\/$/, '');
  const count = positiveInt(option('count'), 500, 'count');
  const concurrency = positiveInt(option('concurrency'), 4, 'concurrency');
  if (!apiKey) {
    console.error(
      'Usage: npm run demo -- --api-key <key> [--url http://localhost:5001] [--count 500] [--concurrency 4]',
    );
    console.error(
      '       (or DEMO_API_KEY / DEMO_URL). The key needs the Invoke permission, in the landlord tenant.',
    );
    process.exit(2);
  }
  const url = `${base}/api/Invoke/EntityAnalysisModel/${DEMO_MODEL_GUID}`;
  const statuses = new Map<number, number>();
  const latencies: number[] = [];
  let activations = 0;
  let next = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const body = JSON.stringify(demoTransaction(i));
        // A 503 (the Archiver queue is full) is retried after Retry-After: the service did nothing with it.
        for (;;) {
          const t0 = performance.now();
          const res = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
            body,
          });
          latencies.push(performance.now() - t0);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          const answer = (await res.json().catch(() => ({}))) as { activations?: unknown[]; detail?: string };
          if (res.status === 503) {
            await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? 1) * 1000));
            continue;
          }
          if (res.ok) activations += answer.activations?.length ?? 0;
          else if (res.status === 401 || res.status === 403 || res.status === 404) {
            console.error(
              `${res.status}: ${answer.detail ?? res.statusText} (check the key, its permission and its tenant)`,
            );
            process.exit(1);
          }
          break;
        }
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const pct = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor((latencies.length * p) / 100))].toFixed(1);
  const seconds = (Date.now() - started) / 1000;
  console.log(
    `Sent ${count} demo transactions to ${url} in ${seconds.toFixed(1)} s (${(count / seconds).toFixed(0)}/s)`,
  );
  console.log(`  statuses: ${[...statuses].map(([s, n]) => `${s}×${n}`).join(', ')}`);
  console.log(`  activations: ${activations}; latency p50 ${pct(50)} ms, p99 ${pct(99)} ms`);
  console.log(
    '  Next: read /api/ArchiverStagePerformanceCounter or /api/CaseCreationStagePerformanceCounter after a minute.',
  );
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
