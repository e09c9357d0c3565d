import { Client } from 'pg';
import { dropSqlServerDatabases } from './databases';

export default async function globalTeardown(): Promise<void> {
  const servers = globalThis.__testServers;
  if (servers?.pg) {
    servers.pg.stop();
  } else if (process.env.TEST_PG_ADMIN_URL && process.env.TEST_PG_TEMPLATE) {
    // An external server: drop what this run created.
    const admin = new Client({ connectionString: process.env.TEST_PG_ADMIN_URL });
    await admin.connect();
    const dbs = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2`,
      [process.env.TEST_PG_TEMPLATE, `t_${process.env.TEST_PG_TEMPLATE}_%`],
    );
    for (const { datname } of dbs.rows)
      await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    await admin.end();
  }
  if (process.env.MSSQL_URL && process.env.TEST_MSSQL_PREFIX)
    await dropSqlServerDatabases(process.env.TEST_MSSQL_PREFIX);
  if (servers?.redis) await servers.redis.stop();
  servers?.kdc?.stop();
}
