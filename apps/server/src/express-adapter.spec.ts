import { StreamableFile } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import express, { type Response } from 'express';
import fc from 'fast-check';
import { createServer, IncomingMessage, request, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp } from '../../../test/support/test-app';
import { hashedETagOf, takesHashedETag } from '@app/http-edge';
import { ServiceExpressAdapter } from './express-adapter';
import { checkJsonReply } from './fast-paths/json-reply';
import {
  bornConstructors,
  bornWith,
  expressServer,
  NODE_HTTP_CONSTRUCTORS,
} from './fast-paths/express-prototypes';

/** The prototypes of each request and response as node:http hands them over, before any listener runs. */
function watchPrototypes(server: Server): { request: object | null; response: object | null }[] {
  const seen: { request: object | null; response: object | null }[] = [];
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) =>
    seen.push({
      request: Object.getPrototypeOf(req) as object,
      response: Object.getPrototypeOf(res) as object,
    }),
  );
  return seen;
}

async function listening(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** An answer without its Date (the only header that may differ between two servers). */
async function answer(url: string, init?: RequestInit) {
  const res = await fetch(url, init);
  const headers = Object.fromEntries([...res.headers].filter(([name]) => name !== 'date'));
  return { status: res.status, headers, body: await res.text() };
}

describe('expressServer', () => {
  const app = express();
  app.use(express.json());
  app.get('/hello', (req, res) => void res.json({ ok: true, secure: req.secure, path: req.path }));
  app.post('/echo', (req, res) => void res.status(201).json({ got: req.body as unknown }));
  const servers: Server[] = [];
  afterAll(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));

  it("builds every request and response on the application's prototypes from the start, and answers as Express's own server does", async () => {
    const born = expressServer(app);
    const plain = createServer(app);
    servers.push(born, plain);
    const seen = watchPrototypes(born);
    const seenPlain = watchPrototypes(plain);
    const [bornUrl, plainUrl] = [await listening(born), await listening(plain)];

    const requests: [string, RequestInit | undefined][] = [
      ['/hello', undefined],
      ['/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":[1,2]}' }],
      ['/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":' }],
      ['/missing', undefined],
    ];
    for (const [path, init] of requests) {
      const got = await answer(`${bornUrl}${path}`, init);
      expect(got).toEqual(await answer(`${plainUrl}${path}`, init));
    }
    expect(seen).toHaveLength(requests.length);
    for (const s of seen) expect(s).toEqual({ request: app.request, response: app.response });
    // Express's own server hands over node:http's objects (Express re-prototypes them afterwards)
    for (const s of seenPlain)
      expect(s).toEqual({ request: IncomingMessage.prototype, response: ServerResponse.prototype });
  });

  it('replaces no constructor that is a class (it cannot be called on an object of another prototype)', () => {
    class Later extends IncomingMessage {}
    expect(bornWith(Later, app.request)).toBeUndefined();
    const Born = bornWith(IncomingMessage, app.request);
    expect(Born).not.toBe(IncomingMessage);
    expect(Born?.prototype).toBe(app.request);
  });

  it("says once that the fast path is off when node:http's constructors are classes, and keeps node:http's own", () => {
    const warnings: string[] = [];
    const warn = (name: string, why: string) => warnings.push(`${name}: ${why}`);
    class LaterRequest extends IncomingMessage {}
    class LaterResponse extends ServerResponse {}
    const options = bornConstructors(
      app as never,
      { IncomingMessage: LaterRequest, ServerResponse: LaterResponse as typeof ServerResponse },
      warn,
    );
    expect(options).toEqual({});
    expect(warnings).toEqual([
      "Express prototypes at birth: node:http's IncomingMessage and ServerResponse are classes: requests and responses get Express's prototypes afterwards, as in bare Express",
    ]);
    // node:http's own constructors (today's): both replaced, no warning
    const engaged = bornConstructors(app as never, NODE_HTTP_CONSTRUCTORS, warn);
    expect(Object.keys(engaged).sort()).toEqual(['IncomingMessage', 'ServerResponse']);
    expect(warnings).toHaveLength(1);
  });
});

describe('the service on ServiceExpressAdapter', () => {
  it('serves every request on objects born with its Express prototypes', async () => {
    const t = await startTestApp('sqlite');
    try {
      expect(t.app.getHttpAdapter()).toBeInstanceOf(ServiceExpressAdapter);
      const seen = watchPrototypes(t.app.getHttpServer());
      const instance = t.app.getHttpAdapter().getInstance() as { request: object; response: object };
      expect((await fetch(`${t.url}/api/Live`)).status).toBe(200);
      expect((await fetch(`${t.url}/api/EntityAnalysisModel`)).status).toBe(401);
      expect(seen).toEqual([
        { request: instance.request, response: instance.response },
        { request: instance.request, response: instance.response },
      ]);
    } finally {
      await t.close();
    }
  });
});

/** One answer as it went over the wire: status, every header but Date in order and case, the body's bytes. */
function rawAnswer(
  url: string,
  method: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: string[]; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const raw: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2)
          if (res.rawHeaders[i].toLowerCase() !== 'date')
            raw.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
        resolve({
          status: res.statusCode ?? 0,
          headers: raw,
          body: Buffer.concat(chunks).toString('latin1'),
        });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Nest's own adapter given what the conditional step adds to an answer before Express sees it: a list's hashed
 * ETag (a GET's or HEAD's JSON array, 2xx). Express's `res.send` then judges freshness with `fresh`, which agrees
 * with the step except on a request's `Cache-Control: no-cache` (its own test below).
 */
class NestsWithHashedETag extends ExpressAdapter {
  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    const status = statusCode ?? response.statusCode;
    const { method } = response.req;
    if (
      (method === 'GET' || method === 'HEAD') &&
      status >= 200 &&
      status < 300 &&
      takesHashedETag(response, body)
    )
      response.setHeader('ETag', hashedETagOf(JSON.stringify(body)));
    return super.reply(response, body, statusCode);
  }
}

describe("ServiceExpressAdapter's JSON answers", () => {
  /** What a handler hands Nest's reply, and the response as it finds it. */
  interface Case {
    body: unknown;
    /** a body that can be answered once only, made anew for each server */
    make?: () => unknown;
    status?: number;
    method?: string;
    headers?: Record<string, string>;
    /** headers set on the response before the reply (a handler's or a filter's) */
    preset?: Record<string, string>;
    /** an Express setting of the application */
    setting?: [string, unknown];
  }
  const cases: Record<string, Case> = {
    object: { body: { status: 'ok' } },
    'array, 201': { body: [1, 'two', null, { three: 3 }], status: 201 },
    'text beyond ASCII (bytes, not characters)': { body: { name: 'Zoë ✓ \u2028 😀', q: '"quoted"' } },
    'longer than 1000 characters': { body: { rows: Array.from({ length: 200 }, (_, i) => `row-${i}`) } },
    'a Date': { body: new Date(Date.UTC(2026, 10, 26)) },
    'a Map (no own JSON)': { body: new Map([['a', 1]]) },
    'toJSON giving undefined': { body: { toJSON: () => undefined }, status: 202 },
    'nested toJSON': { body: { at: { toJSON: () => 'then' }, n: 1 } },
    '204 with a body': { body: { ignored: true }, status: 204 },
    '205 with a body': { body: { ignored: true }, status: 205 },
    '304 with a body': { body: { ignored: true }, status: 304 },
    HEAD: { body: { status: 'ok' }, method: 'HEAD' },
    'HEAD, 201': { body: { created: 1 }, method: 'HEAD', status: 201 },
    'a fresh GET (If-None-Match: *)': { body: { status: 'ok' }, headers: { 'if-none-match': '*' } },
    'a fresh HEAD': { body: { status: 'ok' }, method: 'HEAD', headers: { 'if-none-match': '*' } },
    'a POST with If-None-Match: *': {
      body: { status: 'ok' },
      method: 'POST',
      headers: { 'if-none-match': '*' },
    },
    'a list to a GET (its hashed ETag)': { body: [{ a: 1 }, 'b'] },
    'a list to a HEAD': { body: [{ a: 1 }], method: 'HEAD' },
    'a list to a GET naming its ETag': {
      body: [{ a: 1 }],
      headers: { 'if-none-match': hashedETagOf('[{"a":1}]') },
    },
    'a list to a GET naming another ETag': { body: [{ a: 1 }], headers: { 'if-none-match': 'W/"other"' } },
    'a list to a POST (no ETag)': { body: [{ a: 1 }], method: 'POST' },
    'If-Modified-Since without Last-Modified': {
      body: { a: 1 },
      headers: { 'if-modified-since': 'Wed, 25 Nov 2026 10:00:00 GMT' },
    },
    'If-Modified-Since with an older Last-Modified': {
      body: { a: 1 },
      headers: { 'if-modified-since': 'Wed, 25 Nov 2026 10:00:00 GMT' },
      preset: { 'Last-Modified': 'Tue, 24 Nov 2026 10:00:00 GMT' },
    },
    'a fresh GET with an error status': { body: { a: 1 }, status: 404, headers: { 'if-none-match': '*' } },
    'a Content-Length already set': { body: { a: 1 }, preset: { 'Content-Length': '99' } },
    '204 with a Content-Length set': { body: { a: 1 }, status: 204, preset: { 'Content-Length': '7' } },
    '304 with a Content-Length set': { body: { a: 1 }, status: 304, preset: { 'Content-Length': '7' } },
    'a problem (its media type set)': {
      body: { type: 'about:blank', status: 400 },
      status: 400,
      preset: { 'Content-Type': 'application/problem+json' },
    },
    'Transfer-Encoding set': { body: { a: 1 }, preset: { 'Transfer-Encoding': 'chunked' } },
    'an ETag set': { body: { a: 1 }, preset: { ETag: '"v1"' }, headers: { 'if-none-match': '"v1"' } },
    'json spaces': { body: { a: [1, 2] }, setting: ['json spaces', 2] },
    'json escape': { body: { html: '<b>&</b>' }, setting: ['json escape', true] },
    'json replacer': {
      body: { a: 1, secret: 2 },
      setting: ['json replacer', (k: string, v: unknown) => (k === 'secret' ? undefined : v)],
    },
    'etag on': { body: { a: 1 }, setting: ['etag', 'weak'] },
    'a string': { body: 'plain text' },
    'a number': { body: 42 },
    'a Buffer': { body: Buffer.from('bytes') },
    'an Error, 500': { body: new Error('boom'), status: 500 },
    null: { body: null, status: 200 },
    undefined: { body: undefined, status: 204 },
    'a StreamableFile': { body: undefined, make: () => new StreamableFile(Buffer.from('file')) },
  };

  /** An Express application whose one route hands `current` to `adapter.reply`, as Nest's router would. */
  function serverOf(adapter: ExpressAdapter, current: () => Case): Server {
    const app = express();
    app.set('etag', false); // as the service (create-app)
    app.all('/reply', (_req, res: Response) => {
      const c = current();
      for (const [name, value] of Object.entries(c.preset ?? {})) res.setHeader(name, value);
      void adapter.reply(res, c.make ? c.make() : c.body, c.status);
    });
    return createServer(app);
  }

  let current: Case = { body: null };
  const ours = serverOf(new ServiceExpressAdapter(), () => current);
  const nests = serverOf(new NestsWithHashedETag(), () => current);
  const urls: string[] = [];
  beforeAll(async () => {
    urls.push(await listening(ours), await listening(nests));
  });
  afterAll(() => Promise.all([ours, nests].map((s) => new Promise((resolve) => s.close(resolve)))));

  /** The answer of each server to the same case, the application's setting applied to both (and undone). */
  async function both(c: Case) {
    current = c;
    const apps = [ours, nests].map((s) => s.listeners('request')[0] as express.Express);
    const before = apps.map((a) => (c.setting ? (a.get(c.setting[0]) as unknown) : undefined));
    if (c.setting) for (const a of apps) a.set(c.setting[0], c.setting[1]);
    try {
      const method = c.method ?? 'GET';
      return await Promise.all(urls.map((u) => rawAnswer(`${u}/reply`, method, c.headers ?? {})));
    } finally {
      if (c.setting) apps.forEach((a, i) => a.set(c.setting![0], before[i]));
    }
  }

  it.each(Object.entries(cases))('answers %s exactly as Nest on Express does', async (_name, c) => {
    const [mine, theirs] = await both(c);
    expect(mine).toEqual(theirs);
  });

  it.each([
    ['*', undefined],
    ['"v1"', '"v1"'],
    ['W/"v1"', '"v1"'],
  ])(
    'answers If-None-Match %s with Cache-Control: no-cache 304 with the ETag, where Express answers 200',
    async (ifNoneMatch, etag) => {
      const headers = { 'if-none-match': ifNoneMatch, 'cache-control': 'no-cache' };
      const [mine, theirs] = await both({ body: { a: 1 }, headers, preset: etag ? { ETag: etag } : {} });
      expect(theirs.status).toBe(200);
      expect(mine.status).toBe(304);
      expect(mine.body).toBe('');
      expect(mine.headers.some((h) => /^content-(type|length):/i.test(h))).toBe(false);
      if (etag) expect(mine.headers).toContain(`ETag: ${etag}`);
    },
  );

  it('answers 150 generated JSON values exactly as Nest on Express does', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.object(), fc.array(fc.jsonValue())),
        fc.constantFrom(undefined, 200, 201, 202, 400, 422),
        fc.constantFrom('GET', 'POST', 'HEAD'),
        async (body, status, method) => {
          const [mine, theirs] = await both({ body, status, method });
          expect(mine).toEqual(theirs);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('the direct JSON reply at start', () => {
  it("says once that it is off when the application's settings keep it from engaging, and nothing when they do not", () => {
    const warnings: string[] = [];
    const warn = (name: string) => warnings.push(name);
    const app = express();
    expect(checkJsonReply(app, warn)).toBe(false); // Express's default: a weak ETag for every answer
    expect(warnings).toEqual(['direct JSON reply']);
    app.set('etag', false); // as the service (create-app)
    expect(checkJsonReply(app, warn)).toBe(true);
    app.set('json spaces', 2);
    expect(checkJsonReply(app, warn)).toBe(false);
    expect(warnings).toHaveLength(2);
  });
});
