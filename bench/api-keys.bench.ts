/*
 * npm run bench:api-keys — one run prints:
 *   1. in-process validation cost per key (parse, HMAC in constant time, SHA-256, set look-up): median and p99;
 *   2. requests per second of one cheap route with an API key, against the same route anonymous.
 * Figures only; nothing here is asserted.
 */
import '../apps/server/src/thread-pool';
import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { ApiKeyService } from '@app/api-keys';
import { benchSettings, cheapRoutePair, printCheapPair, runBench, SECONDS, startBenchApp } from './support';

async function main(): Promise<void> {
  const settings = benchSettings('api-keys');
  process.stdout.write(`API key benchmark: ${settings.DatabaseProvider}, ${SECONDS} s per HTTP figure\n`);
  const { app, url, token } = await startBenchApp(settings);
  try {
    const me = (await (
      await fetch(`${url}/api/Authentication/Session`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as {
      userGuid: string;
    };
    const created = await fetch(`${url}/api/UserRegistryApiKey`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ userRegistryGuid: me.userGuid, name: 'bench' }),
    });
    if (created.status !== 201) throw new Error(`creating the key answered ${created.status}`);
    const { key } = (await created.json()) as { key: string };
    // Some more active keys, so the look-up is not in a one-entry set.
    for (let i = 0; i < 200; i++) {
      await fetch(`${url}/api/UserRegistryApiKey`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ userRegistryGuid: me.userGuid, name: `filler ${i}` }),
      });
    }

    const svc = app.get(ApiKeyService);
    const samples: number[] = [];
    for (let i = 0; i < 20_000; i++) svc.validate(key); // warm-up
    for (let i = 0; i < 50_000; i++) {
      const t0 = performance.now();
      svc.validate(key);
      samples.push((performance.now() - t0) * 1000);
    }
    samples.sort((a, b) => a - b);
    const p = (q: number) => samples[Math.floor(q * (samples.length - 1))];
    process.stdout.write(
      `1. validation per key, in process: median ${p(0.5).toFixed(2)} µs, p99 ${p(0.99).toFixed(2)} µs (target < 20 µs)\n`,
    );

    printCheapPair('2', 'an API key', await cheapRoutePair(url, { 'x-api-key': key }));
  } finally {
    await app.close();
  }
}

runBench(main);
