/*
 * npm run bench:auth — one run prints:
 *   1. bare Argon2id verifications per second with the configured parameters on all cores (the limit);
 *   2. sign-ins per second over HTTP with the same parameters;
 *   3. requests per second of one cheap route with a bearer JWT, against the same route anonymous.
 * Figures only: nothing here is asserted. Database: embedded SQLite in a temp dir (DatabaseProvider and
 * ConnectionString from the environment are honoured, e.g. DatabaseProvider=postgres).
 */
import '../apps/server/src/thread-pool';
import 'reflect-metadata';
import * as argon2 from 'argon2';
import { availableParallelism } from 'node:os';
import type { Settings } from '@app/config';
import {
  ADMIN_PASSWORD as PASSWORD,
  benchSettings,
  cheapRoutePair,
  printCheapPair,
  load,
  rate,
  runBench,
  SECONDS,
  startBenchApp,
} from './support';

async function bareArgon2(settings: Settings): Promise<number> {
  const options = {
    type: argon2.argon2id,
    memoryCost: settings.Argon2MemoryKiB,
    timeCost: settings.Argon2Iterations,
    parallelism: settings.Argon2Parallelism,
  };
  const hash = await argon2.hash(PASSWORD, options);
  const lanes = Math.max(availableParallelism(), Number(process.env.UV_THREADPOOL_SIZE ?? 4)) * 2;
  const end = Date.now() + SECONDS * 1000;
  let count = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (Date.now() < end) {
        if (!(await argon2.verify(hash, PASSWORD))) throw new Error('verification failed');
        count++;
      }
    }),
  );
  return count / ((Date.now() - started) / 1000);
}

async function main(): Promise<void> {
  // Sign-ins per second is the figure: the per-address sign-in rate limit (60 a minute by default) would cap it.
  const settings = benchSettings('auth', { SignInRateLimitPerMinute: '1000000' });
  const params = `${settings.Argon2MemoryKiB} KiB x ${settings.Argon2Iterations} iterations x ${settings.Argon2Parallelism} lane(s)`;
  process.stdout.write(
    `Authentication benchmark: Argon2id ${params}, ${availableParallelism()} cores, libuv pool ${process.env.UV_THREADPOOL_SIZE ?? 4}, ${settings.DatabaseProvider}, ${SECONDS} s per figure\n`,
  );

  // The machine may be shared: bare Argon2 is measured before and after the sign-ins, and the two cheap
  // routes alternate, so drifting background load hits both sides of each comparison alike.
  const bareBefore = await bareArgon2(settings);

  const { app, url, token } = await startBenchApp(settings);
  try {
    const signIns = rate(
      await load({
        url: `${url}/api/Authentication/ByUserNamePassword`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ userName: 'Administrator', password: PASSWORD }),
        connections: availableParallelism() * 4,
        duration: SECONDS,
      }),
    );
    const bareAfter = await bareArgon2(settings);
    const bare = (bareBefore + bareAfter) / 2;
    process.stdout.write(
      `1. bare Argon2id verifications/s (all cores):  ${bare.toFixed(1)}  (${bareBefore.toFixed(1)} before, ${bareAfter.toFixed(1)} after the sign-ins)\n`,
    );
    process.stdout.write(
      `2. sign-ins/s over HTTP:                      ${signIns.toFixed(1)}  (${((signIns / bare) * 100).toFixed(0)}% of bare; target >= 75%)\n`,
    );

    printCheapPair('3', 'a bearer JWT', await cheapRoutePair(url, { authorization: `Bearer ${token}` }));
  } finally {
    await app.close();
  }
}

runBench(main);
