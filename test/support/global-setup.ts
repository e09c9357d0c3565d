import 'reflect-metadata';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions, MIGRATIONS } from '@app/database';
import { startPostgresServer, PostgresServer } from './postgres-server';
import { startRedisServer, RedisServer } from './redis-server';
import { KdcServer, startKdc } from './kdc';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { consoleIsCurrent } from '../../scripts/console';

export const TEMPLATE_DATABASE = 'service_template';

declare global {
  var __testServers: { pg?: PostgresServer; redis?: RedisServer; kdc?: KdcServer } | undefined;
}

/**
 * Once per Jest run: a throwaway PostgreSQL and Redis (or DATABASE_URL / REDIS_URL when set), a template
 * database with every migration applied, which each test file clones, and a Kerberos KDC (test/support/kdc.ts).
 */
export default async function globalSetup(): Promise<void> {
  ensureConsoleBuilt();
  const servers: { pg?: PostgresServer; redis?: RedisServer; kdc?: KdcServer } = {};
  globalThis.__testServers = servers;
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    servers.pg = await startPostgresServer();
    adminUrl = servers.pg.url;
  }
  let redisUrl = process.env.REDIS_URL;
  if (!redisUrl) {
    servers.redis = await startRedisServer();
    redisUrl = servers.redis.url;
  }
  const template = `${TEMPLATE_DATABASE}_${process.pid}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${template}"`);
  await admin.query(`CREATE DATABASE "${template}"`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${template}`;
  const ds = new DataSource(
    dataSourceOptions(
      { provider: 'postgres', connectionString: url.toString(), dataDirectory: '' },
      [],
      MIGRATIONS,
    ),
  );
  await ds.initialize();
  await ds.runMigrations({ transaction: 'each' });
  await ds.destroy();
  process.env.TEST_PG_ADMIN_URL = adminUrl;
  process.env.TEST_PG_TEMPLATE = template;
  process.env.TEST_REDIS_URL = redisUrl;
  // SQL Server (only when MSSQL_URL names one): each test file gets its own database with this prefix.
  if (process.env.MSSQL_URL) process.env.TEST_MSSQL_PREFIX = `t_service_${process.pid}_`;
  // Set here, in the real environment the workers inherit, because the GSS library reads it with getenv.
  servers.kdc = await startKdc();
  process.env.TEST_KDC_DIR = servers.kdc.dir;
  process.env.KRB5_CONFIG = servers.kdc.krb5Conf;
  process.env.KRB5_KTNAME = `FILE:${servers.kdc.keytab}`;
}

/**
 * The browser tests drive the console the service serves from apps/console/dist: when that build is missing or
 * older than the sources (edited since `npm ci` built it), it is bundled again first (about 2 s).
 */
function ensureConsoleBuilt(): void {
  if (consoleIsCurrent()) return;
  const root = join(__dirname, '..', '..');
  const r = spawnSync(
    process.execPath,
    ['-r', join(root, 'scripts/ts-register.js'), join(root, 'scripts/console.ts'), 'bundle'],
    { cwd: root, stdio: 'inherit' },
  );
  if (r.status !== 0) throw new Error('building the console (scripts/console.ts bundle) failed');
}
