import { RedisServer, startRedisServer } from './redis-server';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { AddressInfo } from 'node:net';
import { loadSettings, Settings } from '@app/config';
import type { Clock } from '@app/runtime';
import { createApp } from '../../apps/server/src/create-app';
import { createOpenApiDocument } from '../../apps/server/src/openapi';
import {
  describeViolations,
  responseChecker,
  type OpenApiDocument,
  type ResponseViolation,
} from './openapi-responses';
import { createDatabase, createPostgresDatabase, createSqliteDirectory, TestProvider } from './databases';

export interface TestApp {
  app: NestExpressApplication;
  /** http://127.0.0.1:port */
  url: string;
  settings: Settings;
  /**
   * Answers that did not match the OpenAPI document (undeclared status or content type, a JSON body outside
   * its schema). close() fails the test file when any is left here.
   */
  responseViolations: ResponseViolation[];
  close(): Promise<void>;
}

export const TEST_JWT_KEY = 'test-jwt-key-0123456789abcdefghijklmnopqrstuvwxyz';
export const TEST_API_HMAC_KEY = 'test-api-hmac-key-0123456789abcdefghijklmnopqrstuvwxyz';
export const TEST_ADMIN_PASSWORD = 'Bootstrap-Password-123!';

/**
 * The settings every test application starts from (test keys, fast Argon2, the sign-in rate limit lifted),
 * with `env` (spec names) over them. A SQLite data directory of its own unless `env` names one.
 */
export function testSettings(env: Record<string, string> = {}): Settings {
  return loadSettings({
    DataDirectory: createSqliteDirectory(),
    JwtKey: TEST_JWT_KEY,
    ApiHmacKey: TEST_API_HMAC_KEY,
    BootstrapAdministratorPassword: TEST_ADMIN_PASSWORD,
    LogLevel: process.env.TEST_LOG_LEVEL ?? 'silent',
    Argon2MemoryKiB: '19456',
    Argon2Iterations: '2',
    // Every test signs in from 127.0.0.1, many times a minute; the rate-limit tests set their own limit.
    SignInRateLimitPerMinute: '1000000',
    ...env,
  });
}

/**
 * Boots the whole application on a free port against a fresh database of the given provider.
 * `env` overrides settings by their spec names.
 */
export async function startTestApp(
  provider: TestProvider,
  env: Record<string, string> = {},
  options: { connectionString?: string; dataDirectory?: string; clock?: Clock } = {},
): Promise<TestApp> {
  const connectionString =
    provider === 'sqlite' ? undefined : (options.connectionString ?? (await createDatabase(provider)));
  const settings = testSettings({
    DatabaseProvider: provider,
    ...(connectionString ? { ConnectionString: connectionString } : {}),
    DataDirectory: options.dataDirectory ?? createSqliteDirectory(),
    ...env,
  });
  const app = await createApp(settings, { clock: options.clock });
  // Every answer any test receives is checked against the document the service serves: a drift
  // between the code and the document fails the test file that met it.
  const responseViolations: ResponseViolation[] = [];
  responseChecker(createOpenApiDocument(app) as unknown as OpenApiDocument).watch(
    app.getHttpServer(),
    responseViolations,
  );
  await app.listen(0, '127.0.0.1');
  const port = (app.getHttpServer().address() as AddressInfo).port;
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    settings,
    responseViolations,
    close: async () => {
      await app.close();
      if (responseViolations.length)
        throw new Error(
          `${responseViolations.length} answers did not match the OpenAPI document:\n${describeViolations(responseViolations)}`,
        );
    },
  };
}

/** Two instances of the app, node-a and node-b, on different ports sharing one fresh PostgreSQL database. */
export async function startTwoNodes(env: Record<string, string> = {}): Promise<[TestApp, TestApp]> {
  const connectionString = await createPostgresDatabase();
  const a = await startTestApp('postgres', { ...env, InstanceName: 'node-a' }, { connectionString });
  const b = await startTestApp('postgres', { ...env, InstanceName: 'node-b' }, { connectionString });
  return [a, b];
}

/**
 * Two nodes sharing one PostgreSQL database and a fresh Redis, with the API-key refresh an hour apart, so that
 * only Redis can carry a change from one node to the other.
 */
export async function startTwoNodesSharingRedis(
  env: Record<string, string> = {},
): Promise<{ redis: RedisServer; a: TestApp; b: TestApp }> {
  const redis = await startRedisServer();
  const [a, b] = await startTwoNodes({
    RedisConnectionString: redis.url,
    ApiKeyCacheRefreshIntervalMilliseconds: '3600000',
    ...env,
  });
  return { redis, a, b };
}
