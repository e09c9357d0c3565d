import { request as httpRequest } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { INestApplicationContext } from '@nestjs/common';
import { DataSource, MoreThan } from 'typeorm';
import { AdminEvent, AdminEventOutcome, AdminEvents } from '@app/audit';
import type { Actor } from '@app/access';
import { adminRoutes } from './routes';

/** A path of the route `key` (`PUT /api/TenantRegistry/:guid`) with a new random GUID for each parameter. */
export function randomPath(key: string): { method: string; path: string; params: Record<string, string> } {
  const [method, template] = key.split(' ');
  const params: Record<string, string> = {};
  const path = template.replace(/:([A-Za-z]+)/g, (_m, name: string) => (params[name] = randomUUID()));
  return { method, path, params };
}

/**
 * `count` refusals answered `status`, handed to `app`'s AdminEvents as the HTTP layer hands them (watchWrites:
 * the caller with the AdminWriteContext the guard stamped, once its answer is finished), cycling through
 * `routeKeys` (every administrative route when omitted), each at a new random target.
 */
export function refuseDirectly(
  app: INestApplicationContext,
  actor: Actor,
  count: number,
  options: { status?: number; routeKeys?: string[] } = {},
): void {
  const events = app.get(AdminEvents);
  const routes = adminRoutes(app);
  const keys = options.routeKeys ?? [...routes.keys()];
  for (let i = 0; i < count; i++) {
    const key = keys[i % keys.length];
    const route = routes.get(key);
    if (!route) throw new Error(`${key} is no administrative route`);
    const { params } = randomPath(key);
    const adminWrite = {
      route,
      targetGuid: route.targetParam === null ? null : (params[route.targetParam ?? 'guid'] ?? null),
      client: { clientIp: '127.0.0.1', localIp: null, userAgent: 'refusal flood', secure: false },
      apiKeyIdentifier: null,
      recorded: false,
    };
    events.answered({ ...actor, adminWrite }, options.status ?? 403, null);
  }
}

/**
 * `total` requests over HTTP, `concurrency` at a time (each worker sends its next when its last is answered),
 * `send(i)` answering the status; the statuses by count.
 */
export async function concurrently(
  total: number,
  concurrency: number,
  send: (i: number) => Promise<number>,
): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const status = await send(next++);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return statuses;
}

/**
 * A refused write sent with a bearer token, answered with its status (the body read and dropped). A connection
 * of its own: a reused keep-alive socket the service is closing would lose the request (ECONNRESET) on a loaded
 * machine, and the flood's counts must add up.
 */
export function sendRefused(url: string, token: string, key: string): Promise<number> {
  const { method, path } = randomPath(key);
  const body = method === 'DELETE' ? undefined : '{}';
  return new Promise<number>((resolve, reject) => {
    const req = httpRequest(
      `${url}${path}`,
      {
        method,
        agent: false,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          ...(body ? { 'content-length': Buffer.byteLength(body) } : {}),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The refusal rows written after row `afterId`. */
export function refusalRows(app: INestApplicationContext, afterId = 0): Promise<AdminEvent[]> {
  return app
    .get(DataSource)
    .getRepository(AdminEvent)
    .find({
      where: { Id: MoreThan(afterId), OutcomeId: AdminEventOutcome.Refused },
      order: { Id: 'ASC' },
    });
}

export const countOf = (rows: AdminEvent[]) => rows.reduce((n, r) => n + r.EventCount, 0);

/** The last AdminEvent Id (0: none). */
export async function lastAdminEventId(app: INestApplicationContext): Promise<number> {
  const [last] = await app
    .get(DataSource)
    .getRepository(AdminEvent)
    .find({ order: { Id: 'DESC' }, take: 1 });
  return last?.Id ?? 0;
}
