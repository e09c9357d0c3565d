import type { Request, Response } from 'express';
import type { Params } from 'nestjs-pino';
import pino, { DestinationStream, Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Settings } from '@app/config';
import { isShed, terminalLogStream } from '@app/common';

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
  /** A request line into the stream, in a batch of lines (lineBatcher). */
  writeLine: (text: string) => void;
  base: Record<string, unknown>;
  /** The request lines' logger: their level (switched by the HTTP benchmark); the lines go to `stream`. */
  lines: Logger;
  /** pino's bindings of every line (`,"pid":…,"hostname":…,"instance":…`), serialised once. */
  bindings: string;
}

/** Longest time a request line waits in its batch before it is written (on a quiet service). */
export const LOG_FLUSH_MILLISECONDS = 250;

/**
 * JSON lines to stdout through pino's own destination, synchronously (pino's default): each write is one
 * `write(2)` before it returns, so nothing is ever in flight when the process exits and lines leave in the order
 * they were written. The request lines reach it in batches (lineBatcher), so a write carries about 70 lines under
 * load; the application's own lines are rare. A full pipe (EAGAIN) is retried after a short sleep, as pino does.
 * Only a killed process (SIGKILL) can lose a batch still being collected (at most LOG_FLUSH_MILLISECONDS old).
 */
export function stdoutDestination(): DestinationStream {
  return pino.destination({ dest: 1, sync: true });
}

/** What every line batcher still holds, written out when the process exits (the exit listener: once). */
const pendingBatches = new Set<() => void>();

function writePendingBatches(): void {
  for (const flush of pendingBatches) flush();
}

/**
 * Characters of request lines a batcher collects before it hands them to the destination in one write: just under
 * sonic-boom's largest write (16 KiB), so a batch leaves in one `write(2)`.
 */
export const REQUEST_LINE_BATCH = 16_000;

/**
 * Request lines handed to `stream` in batches, never one write per line: each write is a system call, and pino's
 * destination measures what it is given (Buffer.byteLength) on every write.
 * - `batch` > 0: the lines wait until `batch` characters are pending, or LOG_FLUSH_MILLISECONDS after the first
 *   of them: one write for about 70 lines under load, a line at most LOG_FLUSH_MILLISECONDS late when the service
 *   is quiet. (`npm run bench:request-lines` prints what a line costs each way.)
 * - `batch` 0: the lines of one event-loop turn, in one write at the end of the turn (setImmediate): for a
 *   terminal, where a person reads them as they come.
 * The application's own lines may come before the request lines written around them (each line carries its
 * time). When the process exits (normally, on a handled signal, on an uncaught error) what a batch holds is
 * written before it ends; with a synchronous destination it leaves after every line written earlier.
 */
export function lineBatcher(stream: DestinationStream, batch = 0): (text: string) => void {
  let pending = '';
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (!pending) return;
    const text = pending;
    pending = '';
    stream.write(text);
  };
  const late = () => {
    timer = undefined;
    flush();
  };
  if (pendingBatches.size === 0) process.on('exit', writePendingBatches);
  pendingBatches.add(flush);
  if (batch <= 0)
    return (text) => {
      if (!pending) setImmediate(flush);
      pending += text;
    };
  return (text) => {
    pending += text;
    if (pending.length >= batch) flush();
    else timer ??= setTimeout(late, LOG_FLUSH_MILLISECONDS).unref();
  };
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
    d = {
      stream,
      writeLine: lineBatcher(stream, terminal ? 0 : REQUEST_LINE_BATCH),
      base,
      lines: pino({ level: settings.LogLevel, base }, stream),
      bindings: `,${JSON.stringify(base).slice(1, -1)}`,
    };
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

/** pino's numbers of the request lines' levels. */
const INFO = 30;
const ERROR = 50;

/**
 * A character JSON.stringify writes escaped in a string: `"`, `\\`, U+0000–U+001F, and a surrogate (it escapes a
 * lone one; a paired one goes to JSON.stringify too, which keeps it).
 */
// eslint-disable-next-line no-control-regex -- the control characters are what it looks for
const ESCAPED_IN_JSON = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON.stringify(text), without its generic serialisation for the common text that has nothing to escape. */
function jsonString(text: string): string {
  return ESCAPED_IN_JSON.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/** The last line's time and its digits: the lines of one millisecond share them (a time needs a double's
 * conversion to text). */
let lastTime = -1;
let lastTimeText = '';

/**
 * One request line, byte for byte as pino writes `logger.info({ req: { id, method, url }, res: { statusCode },
 * responseTime }, message)` with `bindings` (level, time, the bindings, the object's keys, msg; the test
 * compares the two, on named and on generated values): built from the few plain values directly, because pino's
 * generic serialisation of the nested objects was most of what a line cost. Each text is quoted as
 * JSON.stringify would, through it only when it holds a character to escape (jsonString).
 */
export function requestLineText(
  bindings: string,
  level: number,
  time: number,
  line: { id: string; method: string; url: string; statusCode: number; responseTime: number },
  message: string,
): string {
  if (time !== lastTime) {
    lastTime = time;
    lastTimeText = String(time);
  }
  return (
    `{"level":${level},"time":${lastTimeText}${bindings},"req":{"id":${jsonString(line.id)},` +
    `"method":${jsonString(line.method)},"url":${jsonString(line.url)}},` +
    `"res":{"statusCode":${line.statusCode}},"responseTime":${line.responseTime},"msg":${jsonString(message)}}\n`
  );
}

/**
 * One short line per request at `info` when the answer is done (id, method, path without the query, status,
 * time taken in ms; `request aborted`, at info, when the client left first; `error` level for a 5xx): built here from
 * plain values, so no header, query or body can reach it. Also sets the request id (X-Request-Id) on every
 * answer, at any level. Called synchronously by the front layer (create-app), first of its steps.
 */
export function requestLines(settings: Settings): (req: Request, res: Response) => void {
  const { lines: logger, writeLine, bindings } = destinationOf(settings);
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
      // A client that left (mid-body included, security issue 37) is its own business: info, never more.
      const aborted = !res.writableFinished;
      const level = aborted ? INFO : statusCode >= 500 ? ERROR : INFO;
      const message = aborted ? 'request aborted' : level === ERROR ? 'request failed' : 'request completed';
      const responseTime = Math.round(performance.now() - started);
      writeLine(
        requestLineText(bindings, level, Date.now(), { id, method, url, statusCode, responseTime }, message),
      );
    });
  };
}

/** The logger of the request lines (the HTTP benchmark switches its level to weigh what the lines cost). */
export function requestLineLogger(settings: Settings): Logger {
  return destinationOf(settings).lines;
}
