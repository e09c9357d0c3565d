/* A PostgreSQL database of its own for a bench: on the server DATABASE_URL names, else on a throwaway cluster
 * (test/support/postgres-server.ts: fsync off). */
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { startPostgresServer } from '../test/support/postgres-server';

/** A new database on the PostgreSQL server at `serverUrl`: its connection string. */
export async function newPostgresDatabase(serverUrl: string, prefix: string): Promise<string> {
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  // two databases asked for in one millisecond get two names
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Runs `bench` with the connection string of a new database: on DATABASE_URL's server (dropped afterwards), else
 * on a throwaway cluster (stopped afterwards).
 */
export async function withPostgresDatabase(
  prefix: string,
  bench: (connectionString: string) => Promise<void>,
): Promise<void> {
  const pg = process.env.DATABASE_URL ? undefined : await startPostgresServer();
  const server = process.env.DATABASE_URL ?? pg!.url;
  const connectionString = await newPostgresDatabase(server, prefix);
  try {
    await bench(connectionString);
  } finally {
    if (pg) pg.stop();
    else {
      const cleanup = new Client({ connectionString: server });
      await cleanup.connect();
      await cleanup.query(
        `DROP DATABASE IF EXISTS ${new URL(connectionString).pathname.slice(1)} WITH (FORCE)`,
      );
      await cleanup.end();
    }
  }
}
