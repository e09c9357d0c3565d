import { StreamableFile } from '@nestjs/common';
import type { Application, Response } from 'express';
import { fastPathOff } from './fast-path-off';

/** Express's settings under which `res.json` writes what jsonAnswer writes: none of its JSON or ETag ones. */
function jsonSettingsAllow(app: Pick<Application, 'get'>): boolean {
  return (
    !app.get('json replacer') &&
    !app.get('json spaces') &&
    !app.get('json escape') &&
    typeof app.get('etag fn') !== 'function'
  );
}

/**
 * At start, once the application's settings are made: one warning (fastPathOff) when they keep the direct JSON
 * reply from ever engaging (Express's `etag` setting on, say): every answer then takes `res.json`.
 */
export function checkJsonReply(
  app: Pick<Application, 'get'>,
  warn: (name: string, why: string) => void = fastPathOff,
): boolean {
  const engages = jsonSettingsAllow(app);
  if (!engages)
    warn(
      'direct JSON reply',
      "Express's json replacer, json spaces, json escape or etag setting is on: every JSON answer takes res.json",
    );
  return engages;
}

/** The statuses whose answer `res.send` shapes itself: no body (204, 304) or an empty one (205). */
function bodilessStatus(status: number): boolean {
  return status === 204 || status === 205 || status === 304;
}

/**
 * Whether `body` is an answer `jsonAnswer` writes as Express's `res.json` would: a plain JSON value of a handler
 * (an object or an array) on a response with no Content-Type, Transfer-Encoding or ETag of its own and a status
 * that carries a body, to a request that is not conditional (no If-None-Match or If-Modified-Since), in an
 * application with none of Express's JSON or ETag settings. Everything else (strings, files, errors, null, a
 * problem whose filter chose its media type, a versioned record's ETag answer, whatever freshness could turn
 * into a 304) is Nest's and Express's own path: `res.json`, then `res.send` with its freshness handling.
 */
export function isPlainJsonAnswer(response: Response, body: unknown): body is object {
  if (typeof body !== 'object' || body === null) return false;
  if (body instanceof StreamableFile || body instanceof Error) return false;
  if (
    bodilessStatus(response.statusCode) ||
    response.getHeader('content-type') !== undefined ||
    response.getHeader('transfer-encoding') !== undefined ||
    response.getHeader('etag') !== undefined
  )
    return false;
  const conditional = response.req.headers;
  if (conditional['if-none-match'] !== undefined || conditional['if-modified-since'] !== undefined)
    return false;
  return jsonSettingsAllow(response.app);
}

/**
 * Fast path (README.md, "direct JSON reply"): a handler's JSON answer, byte for byte and header for header what
 * `res.json` then `res.send` write in the case isPlainJsonAnswer admits (express-adapter.spec compares the two):
 * the text, `application/json; charset=utf-8` and its length in bytes. Why: Express reaches the same headers
 * through its generic steps (the media type looked up by name, then parsed and formatted again to add the
 * charset, each header set through `res.set`), which cost about a sixth of the CPU of an answer of
 * `GET /api/Live` (docs/decisions.md, Performance). Returns false, having written nothing, when the value has
 * no JSON text (a toJSON that returns undefined).
 */
export function jsonAnswer(response: Response, body: object): boolean {
  const text = JSON.stringify(body) as string | undefined;
  if (text === undefined) return false;
  writeJsonText(response, text);
  return true;
}

/** Writes a JSON text as jsonAnswer does (the conditional step writes the text it hashed for its ETag). */
export function writeJsonText(response: Response, text: string): void {
  response.setHeader('Content-Type', 'application/json; charset=utf-8');
  response.setHeader('Content-Length', String(Buffer.byteLength(text)));
  response.end(text, 'utf8'); // node:http sends no body to a HEAD request
}
