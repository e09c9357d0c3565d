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
import { Controller, Get, Module } from '@nestjs/common';
import * as argon2 from 'argon2';
import autocannon from 'autocannon';
import { mkdtempSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { loadSettings } from '@app/config';
import { Authenticated, Public } from '@app/common';
import { createApp } from '../apps/server/src/create-app';

const ADMIN_PASSWORD = 'Bench-Initial-Password-1';
const PASSWORD = 'Bench-Chosen-Password-2';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

/** The same trivial body, once anonymous and once behind the guard: the difference is authentication. */
@Controller('bench')
class BenchController {
  @Get('anonymous')
  @Public()
  anonymous() {
    return { ok: true };
  }

  @Get('authenticated')
  @Authenticated()
  authenticated() {
    return { ok: true };
  }
}

@Module({ controllers: [BenchController] })
class BenchModule {}

async function bareArgon2(settings: ReturnType<typeof loadSettings>): Promise<number> {
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

function load(options: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(options, (err: unknown, result) =>
      err ? reject(err instanceof Error ? err : new Error('autocannon failed')) : resolve(result),
    );
  });
}

function rate(result: autocannon.Result, expected: number): number {
  const good = result['2xx'];
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad > 0) process.stdout.write(`  (warning: ${bad} of ${good + bad} answers were not ${expected})\n`);
  return good / (result.duration || SECONDS);
}

async function main(): Promise<void> {
  const settings = loadSettings({
    DataDirectory: mkdtempSync(join(tmpdir(), 'bench-auth-')),
    JwtKey: 'bench-jwt-key-0123456789abcdefghijklmnopqrstuvwxyz',
    ApiHmacKey: 'bench-api-hmac-key-0123456789abcdefghijklmnopqrstuvwxyz',
    BootstrapAdministratorPassword: ADMIN_PASSWORD,
    LogLevel: 'silent',
    ...process.env,
  });
  const params = `${settings.Argon2MemoryKiB} KiB x ${settings.Argon2Iterations} iterations x ${settings.Argon2Parallelism} lane(s)`;
  process.stdout.write(
    `Authentication benchmark: Argon2id ${params}, ${availableParallelism()} cores, libuv pool ${process.env.UV_THREADPOOL_SIZE ?? 4}, ${settings.DatabaseProvider}, ${SECONDS} s per figure\n`,
  );

  // The machine may be shared: bare Argon2 is measured before and after the sign-ins, and the two cheap
  // routes alternate, so drifting background load hits both sides of each comparison alike.
  const bareBefore = await bareArgon2(settings);

  const app = await createApp(settings, { imports: [BenchModule] });
  await app.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  try {
    // The bootstrap Administrator's password is expired: choose one, which also proves sign-in works.
    const first = await fetch(`${url}/api/Authentication/ByUserNamePassword`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        userName: 'Administrator',
        password: ADMIN_PASSWORD,
        newPassword: PASSWORD,
        repeatNewPassword: PASSWORD,
      }),
    });
    if (first.status !== 200) throw new Error(`first sign-in answered ${first.status}`);
    const { token } = (await first.json()) as { token: string };

    const signIns = rate(
      await load({
        url: `${url}/api/Authentication/ByUserNamePassword`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ userName: 'Administrator', password: PASSWORD }),
        connections: availableParallelism() * 4,
        duration: SECONDS,
      }),
      200,
    );
    const bareAfter = await bareArgon2(settings);
    const bare = (bareBefore + bareAfter) / 2;
    process.stdout.write(
      `1. bare Argon2id verifications/s (all cores):  ${bare.toFixed(1)}  (${bareBefore.toFixed(1)} before, ${bareAfter.toFixed(1)} after the sign-ins)\n`,
    );
    process.stdout.write(
      `2. sign-ins/s over HTTP:                      ${signIns.toFixed(1)}  (${((signIns / bare) * 100).toFixed(0)}% of bare; target >= 75%)\n`,
    );

    const cheap = { connections: 16, duration: Math.max(1, Math.round(SECONDS / 2)), pipelining: 1 };
    const auth = { authorization: `Bearer ${token}` };
    let anonymous = 0;
    let authenticated = 0;
    for (let round = 0; round < 2; round++) {
      anonymous += rate(await load({ ...cheap, url: `${url}/bench/anonymous` }), 200) / 2;
      authenticated +=
        rate(await load({ ...cheap, url: `${url}/bench/authenticated`, headers: auth }), 200) / 2;
    }
    process.stdout.write(`3. cheap route anonymous, req/s:              ${anonymous.toFixed(0)}\n`);
    process.stdout.write(
      `   same route with a bearer JWT, req/s:       ${authenticated.toFixed(0)}  (${((authenticated / anonymous) * 100).toFixed(0)}% of anonymous; target >= 70%)\n`,
    );
  } finally {
    await app.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
