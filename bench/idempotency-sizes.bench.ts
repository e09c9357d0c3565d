/* The size of an Idempotency-Key record in each store: one real Invoke of the demo model with a key (through the
 * service, on Redis), its record read back, then RECORDS records of that size written to a throwaway Redis and to
 * the IdempotencyRecord table of a fresh PostgreSQL database; bytes per key = the store's growth / RECORDS.
 * Prints the bytes per key and what a day of keyed invocations at 3 000 a second would hold. */
import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { DEMO_MODEL_GUID, demoTransaction } from '@app/engine';
import { dataSourceOptions, MIGRATIONS } from '@app/database';
import { IdempotencyRecord } from '@app/idempotency';
import { startRedisServer } from '../test/support/redis-server';
import { withPostgresDatabase } from './postgres-database';
import { benchSettings, createApiKey, runBench, startBenchApp } from './support';

const RECORDS = Number(process.env.BENCH_IDEMPOTENCY_RECORDS ?? 100_000);
const PER_DAY_AT_CAPACITY = 3_000 * 86_400;
const id = () => randomBytes(32).toString('base64url');

/** The record text one demo invocation leaves in Redis. */
async function invokeRecord(redisUrl: string): Promise<string> {
  const { app, url, token } = await startBenchApp(
    benchSettings('idem-sizes', { RedisConnectionString: redisUrl }),
  );
  try {
    const key = await createApiKey(url, token);
    const res = await fetch(`${url}/api/Invoke/EntityAnalysisModel/${DEMO_MODEL_GUID}`, {
      method: 'POST',
      headers: {
        'x-api-key': key,
        'content-type': 'application/json',
        'idempotency-key': randomBytes(16).toString('hex'),
      },
      body: JSON.stringify(demoTransaction(1)),
    });
    if (res.status !== 200) throw new Error(`Invoke answered ${res.status}`);
    const redis = new Redis(redisUrl);
    const [name] = await redis.keys('idem:*');
    const text = (await redis.get(name))!;
    process.stdout.write(
      `one record: ${text.length} characters of text (MEMORY USAGE ${await redis.memory('USAGE', name)} bytes)\n`,
    );
    redis.disconnect();
    return text;
  } finally {
    await app.close();
  }
}

async function redisBytesPerKey(redisUrl: string, text: string): Promise<number> {
  const redis = new Redis(redisUrl);
  await redis.flushall();
  const used = async () => Number(/used_memory:(\d+)/.exec(await redis.info('memory'))![1]);
  const before = await used();
  for (let i = 0; i < RECORDS; i += 1_000) {
    const batch = redis.pipeline();
    for (let j = 0; j < 1_000; j++) batch.set(`idem:${id()}`, text, 'PX', 86_400_000);
    await batch.exec();
  }
  const bytes = (await used()) - before;
  redis.disconnect();
  return bytes / RECORDS;
}

async function postgresBytesPerKey(connectionString: string, text: string): Promise<number> {
  const ds = new DataSource(
    dataSourceOptions(
      { provider: 'postgres', connectionString, dataDirectory: '.' },
      [IdempotencyRecord],
      MIGRATIONS,
    ),
  );
  await ds.initialize();
  try {
    await ds.runMigrations();
    const records = ds.getRepository(IdempotencyRecord);
    const expires = Date.now() + 86_400_000;
    for (let i = 0; i < RECORDS; i += 1_000)
      await records.insert(
        Array.from({ length: 1_000 }, () => ({ Id: id(), Record: text, ExpiresAt: expires })),
      );
    await ds.query('VACUUM ANALYZE "IdempotencyRecord"');
    const [{ bytes }] = await ds.query<{ bytes: string }[]>(
      `SELECT pg_total_relation_size('"IdempotencyRecord"') AS bytes`,
    );
    return Number(bytes) / RECORDS;
  } finally {
    await ds.destroy();
  }
}

async function main(): Promise<void> {
  const redisServer = await startRedisServer();
  try {
    const text = await invokeRecord(redisServer.url);
    const gib = (bytes: number) => `${((bytes * PER_DAY_AT_CAPACITY) / 2 ** 30).toFixed(0)} GiB`;
    const redis = await redisBytesPerKey(redisServer.url, text);
    process.stdout.write(
      `Redis: ${redis.toFixed(0)} bytes a key (used_memory over ${RECORDS} keys); a day at 3 000 keyed invocations a second: ${gib(redis)}\n`,
    );
    await withPostgresDatabase('idem_sizes', async (connectionString) => {
      const pg = await postgresBytesPerKey(connectionString, text);
      process.stdout.write(
        `PostgreSQL: ${pg.toFixed(0)} bytes a key (table, index and TOAST over ${RECORDS} rows); a day at 3 000 a second: ${gib(pg)}\n`,
      );
    });
  } finally {
    await redisServer.stop();
  }
}

runBench(main);
