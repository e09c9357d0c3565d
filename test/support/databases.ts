import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

export type TestProvider = 'sqlite' | 'postgres';
export const TEST_PROVIDERS: TestProvider[] = ['sqlite', 'postgres'];

function requireEnv(name: string): string {
  const v = process.env[name];
  if (!v)
    throw new Error(
      `${name} is not set: run the tests through jest (globalSetup starts PostgreSQL and Redis).`,
    );
  return v;
}

/** A fresh PostgreSQL database cloned from the migrated template; returns its URL. */
export async function createPostgresDatabase(): Promise<string> {
  const admin = requireEnv('TEST_PG_ADMIN_URL');
  const template = requireEnv('TEST_PG_TEMPLATE');
  const name = `t_${template}_${randomBytes(6).toString('hex')}`;
  const client = new Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

/** An empty PostgreSQL database (no migrations); returns its URL. */
export async function createEmptyPostgresDatabase(): Promise<string> {
  const admin = requireEnv('TEST_PG_ADMIN_URL');
  const name = `t_${requireEnv('TEST_PG_TEMPLATE')}_${randomBytes(6).toString('hex')}`;
  const client = new Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A temp directory for a SQLite database (migrations run when the app or data source starts). */
export function createSqliteDirectory(): string {
  return mkdtempSync(join(tmpdir(), 'sqlite-test-'));
}

export function redisUrl(): string {
  return requireEnv('TEST_REDIS_URL');
}
