import type { Request, Response } from 'express';
import type { Params } from 'nestjs-pino';
import pino, { DestinationStream, Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Settings } from '@app/config';
import { terminalLogStream } from '@app/runtime';
import { isShed } from '@app/engine';
import { lineBatcher, REQUEST_LINE_BATCH } from './fast-paths/line-batcher';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request id: the caller's X-Request-Id when it is a plain token, else a new UUID; echoed in the answer. */
function requestId(req: IncomingMessage, res: ServerResponse): string {
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
  res.setHeader('x-request-id', id);
  return id;
}

interface Destinations {
  stream: DestinationStream;
  base: Record<string, unknown>;
  /** The request lines' logger: pino's own lines, handed to `stream` in batches (lineBatcher). */
  lines: Logger;
}

/**
 * JSON lines to stdout through pino's own destination, synchronously (pino's default): each write is one
 * `write(2)` before it returns, so nothing is ever in flight when the process exits and lines leave in the order
 * they were written. The request lines reach it in batches (lineBatcher), so a write carries about 70 lines under
 * load; the application's own lines are rare. A full pipe (EAGAIN) is retried after a short sleep, as pino does.
 * Only a killed process (SIGKILL) can lose a batch still being collected (at most LOG_FLUSH_MILLISECONDS old: fast-paths/line-batcher.ts).
 */
export function stdoutDestination(): DestinationStream {
  return pino.destination({ dest: 1, sync: true });
}

/** One destination per settings object: the application's logger and the request lines share it. */
const destinations = new WeakMap<Settings, Destinations>();

function destinationOf(settings: Settings): Destinations {
  let d = destinations.get(settings);
  if (!d) {
    const terminal = terminalLogStream();
    const stream = terminal ?? stdoutDestination();
    // once, for every line (pid and hostname are pino's defaults, kept)
    const base = { pid: process.pid, hostname: hostname(), instance: settings.InstanceName };
    const writeLine = lineBatcher(stream, terminal ? 0 : REQUEST_LINE_BATCH);
    d = { stream, base, lines: pino({ level: settings.LogLevel, base }, { write: writeLine }) };
    destinations.set(settings, d);
  }
  return d;
}

/**
 * The application's logger (nestjs-pino, for Nest's Logger and every service's log lines). Secrets never reach
 * a line: the redaction below guards anything logged by hand. nestjs-pino's per-request middleware (pino-http)
 * is not mounted: request lines are requestLines' (below), one per request at a fraction of the cost.
 */
export function requestLogging(settings: Settings): Params {
  const { stream, base } = destinationOf(settings);
  return {
    pinoHttp: [
      {
        level: settings.LogLevel,
        base,
        redact: {
          paths: [
            'req.headers.authorization',
            'req.headers.cookie',
            'req.headers["x-api-key"]',
            'res.headers["set-cookie"]',
            '*.password',
            '*.newPassword',
            '*.repeatNewPassword',
          ],
          censor: '[redacted]',
        },
      },
      stream,
    ],
    forRoutes: [],
  };
}

/**
 * One short line per request at `info` when the answer is done (id, method, path without the query, status,
 * time taken in ms; `request aborted`, at info, when the client left first; `error` level for a 5xx): pino's own
 * serialisation of plain values, so no header, query or body can reach it. Also sets the request id (X-Request-Id) on every
 * answer, at any level. Called synchronously by the front layer (create-app), first of its steps.
 */
export function requestLines(settings: Settings): (req: Request, res: Response) => void {
  const { lines: logger } = destinationOf(settings);
  return (req, res) => {
    const id = requestId(req, res);
    if (!logger.isLevelEnabled('info')) return;
    const started = performance.now();
    const method = req.method;
    const query = req.originalUrl.indexOf('?');
    const url = query < 0 ? req.originalUrl : req.originalUrl.slice(0, query);
    // 'close' comes once for every answer (finished or cut off); the response is never reused
    res.on('close', () => {
      // Load shed (503, queue full): summarised once a second (InvokeAdmission), never a line per request.
      if (isShed(res)) return;
      const statusCode = res.statusCode;
      // A client that left (mid-body included: a slow or cut-off sender) is its own business: info, never more.
      const aborted = !res.writableFinished;
      const line = {
        req: { id, method, url },
        res: { statusCode },
        responseTime: Math.round(performance.now() - started),
      };
      if (aborted) logger.info(line, 'request aborted');
      else if (statusCode >= 500) logger.error(line, 'request failed');
      else logger.info(line, 'request completed');
    });
  };
}
