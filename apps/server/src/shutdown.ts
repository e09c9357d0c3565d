import type { Server } from 'node:http';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Logger } from 'nestjs-pino';
import { Lifecycle, TimeoutError, withTimeout } from '@app/runtime';
import type { Settings } from '@app/config';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Draining shutdown (README, Production), on the first SIGTERM or SIGINT:
 * 1. grace (ShutdownGraceMilliseconds): still serving, /api/Ready 503 so a balancer's health check takes the
 *    node out, every answer with `Connection: close` so kept-alive clients move to another node;
 * 2. drain (ShutdownDrainMilliseconds at most): no new connections, event streams end with reason `shutdown`,
 *    in-flight requests finish (the rest are cut when the time is up);
 * 3. flush: only now the modules' shutdown hooks run (the Archiver's queue, case creation and buffer, the
 *    capture queues, bounded by SHUTDOWN_FLUSH_MS), so every invocation answered 200 is archived;
 * then the pools close. The caller exits 0 after it, 1 on a failure or at ShutdownTimeoutMilliseconds.
 */
export async function drainAndClose(
  app: NestExpressApplication,
  settings: Settings,
  logger: Logger,
  signal: string,
): Promise<void> {
  const lifecycle = app.get(Lifecycle);
  const server: Server = app.getHttpServer();
  lifecycle.startDraining();
  logger.log(
    `${signal} received: not ready for ${settings.ShutdownGraceMilliseconds} ms while still serving, then draining`,
  );
  await sleep(settings.ShutdownGraceMilliseconds);

  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  lifecycle.stopAccepting();
  server.closeIdleConnections();
  try {
    await withTimeout(closed, settings.ShutdownDrainMilliseconds, 'Finishing in-flight requests');
  } catch (err) {
    if (!(err instanceof TimeoutError)) throw err;
    logger.warn(`In-flight requests still open after ${settings.ShutdownDrainMilliseconds} ms were cut`);
    server.closeAllConnections();
  }
  logger.log('No requests left: flushing the Archiver and the capture queues');
  await app.close();
}
