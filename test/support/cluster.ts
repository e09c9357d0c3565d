import { Agent, request as httpRequest } from 'node:http';
import { createPostgresDatabase, redisUrl } from './databases';
import { freePort } from './free-port';
import { spawnServer, SpawnedServer, waitFor } from './spawn-server';
import { TEST_API_HMAC_KEY, TEST_JWT_KEY } from './test-app';

/**
 * Service nodes as real processes (the entry point `npm start` runs, from source) sharing one PostgreSQL
 * database and one Redis, for the multi-node tests and `npm run bench:cluster`. Each node has its own
 * InstanceName and port; they share JwtKey and ApiHmacKey. The database is migrated before any node starts
 * (a clone of the migrated test template, or `npm run migrate` in the bench), so nodes start with
 * RunMigrations=False and never race on an empty database.
 */
export interface ClusterNode {
  name: string;
  port: number;
  url: string;
  process: SpawnedServer;
  /** SIGTERM (draining shutdown); resolves with the exit code. */
  stop(): Promise<number | null>;
}

export const CLUSTER_ADMIN_INITIAL = 'Cluster-Initial-Password-1';
export const CLUSTER_ADMIN_PASSWORD = 'Cluster-Chosen-Password-2';

export interface ClusterOptions {
  connectionString: string;
  redis: string;
  env?: Record<string, string>;
}

/** Settings every node of one cluster shares. */
export function clusterEnv(options: ClusterOptions): Record<string, string> {
  return {
    DatabaseProvider: 'postgres',
    ConnectionString: options.connectionString,
    RedisConnectionString: options.redis,
    JwtKey: TEST_JWT_KEY,
    ApiHmacKey: TEST_API_HMAC_KEY,
    RunMigrations: 'False',
    BootstrapAdministratorPassword: CLUSTER_ADMIN_INITIAL,
    LogLevel: 'warn',
    TrustProxy: 'True',
    ...options.env,
  };
}

/** Starts one node and waits until it listens. */
export async function startNode(name: string, options: ClusterOptions, port?: number): Promise<ClusterNode> {
  const p = port ?? (await freePort());
  const server = spawnServer({ ...clusterEnv(options), InstanceName: name, Port: String(p) });
  await Promise.race([
    waitFor(() => server.output().includes('Service listening'), 60_000, `node ${name} to listen`),
    server.exited.then((code) => {
      throw new Error(`node ${name} exited with ${code} at start:\n${server.output().slice(-2000)}`);
    }),
  ]);
  return {
    name,
    port: p,
    url: `http://127.0.0.1:${p}`,
    process: server,
    stop: () => {
      server.child.kill('SIGTERM');
      return server.exited;
    },
  };
}

/** A fresh database cloned from the migrated template, and the test run's Redis. */
export async function testClusterOptions(env: Record<string, string> = {}): Promise<ClusterOptions> {
  return { connectionString: await createPostgresDatabase(), redis: redisUrl(), env };
}

export interface Answer {
  status: number;
  body: string;
}

/** One HTTP request over a keep-alive agent; a refused or reset connection is status 0. */
export function send(
  agent: Agent,
  url: string,
  method: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  return new Promise((resolve) => {
    const req = httpRequest(url, { agent, method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      res.on('error', () => resolve({ status: 0, body: text }));
    });
    req.on('error', () => resolve({ status: 0, body: '' }));
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** The Administrator's first sign-in (the bootstrap password is expired); returns a bearer token. */
export async function clusterAdminToken(url: string): Promise<string> {
  const res = await fetch(`${url}/api/Authentication/ByUserNamePassword`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      userName: 'Administrator',
      password: CLUSTER_ADMIN_INITIAL,
      newPassword: CLUSTER_ADMIN_PASSWORD,
      repeatNewPassword: CLUSTER_ADMIN_PASSWORD,
    }),
  });
  if (res.status !== 200) throw new Error(`first sign-in answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}
