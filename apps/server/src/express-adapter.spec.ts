import express from 'express';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp } from '../../../test/support/test-app';
import { bornWith, expressServer, ServiceExpressAdapter } from './express-adapter';

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

  it('keeps a constructor that is a class as it is (it cannot be called on an object of another prototype)', () => {
    class Later extends IncomingMessage {}
    expect(bornWith(Later, app.request)).toBe(Later);
    const Born = bornWith(IncomingMessage, app.request);
    expect(Born).not.toBe(IncomingMessage);
    expect(Born.prototype).toBe(app.request);
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
