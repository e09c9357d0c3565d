import type { Params } from 'nestjs-pino';
import pino from 'pino';
import type { Options as PinoHttpOptions } from 'pino-http';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hostname } from 'node:os';
import type { Settings } from '@app/config';
import { terminalLogStream } from '@app/common';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request id: the caller's X-Request-Id when it is a plain token, else a new UUID; echoed in the answer. */
function requestId(req: IncomingMessage, res: ServerResponse): string {
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
  res.setHeader('x-request-id', id);
  return id;
}

/**
 * The service's logging (nestjs-pino over pino-http): one short line per request at `info` (id, method, path
 * without the query, status, time taken; no header), JSON lines written asynchronously (pino's own
 * destination, which flushes what is pending when the process exits), or readable lines on a terminal.
 * Secrets never reach a line: the serializers keep no header and no body, and the redaction below is the
 * second guard for anything logged by hand.
 */
export function requestLogging(settings: Settings): Params {
  const options: PinoHttpOptions = {
    level: settings.LogLevel,
    // once, for every line (pid and hostname are pino's defaults, kept)
    base: { pid: process.pid, hostname: hostname(), instance: settings.InstanceName },
    genReqId: requestId,
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
    serializers: {
      req: (req: { id: unknown; method: unknown; url: unknown }) => ({
        id: req.id,
        method: req.method,
        url: typeof req.url === 'string' ? req.url.split('?')[0] : req.url,
      }),
      res: (res: { statusCode: unknown }) => ({ statusCode: res.statusCode }),
    },
  };
  const stream = terminalLogStream() ?? pino.destination({ dest: 1, sync: false });
  return { pinoHttp: [options, stream] };
}
