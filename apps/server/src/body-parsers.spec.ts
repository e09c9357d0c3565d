import express, { type NextFunction, type Request, type Response } from 'express';
import { request as httpRequest, type OutgoingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { MAX_JSON_DEPTH } from '@app/input-rules';
import { ProblemException } from '@app/problems';
import { BODY_LIMIT, bodyParsers, libraryParsers } from './body-parsers.middleware';

interface Outcome {
  status: number;
  body: unknown;
}

/** An app that answers what the parsers made of the body: the parsed value, or the problem (or error) they gave. */
function parserApp(parsers: express.RequestHandler, handled: { count: number }): express.Express {
  const app = express();
  app.use(parsers);
  app.use((req: Request, res: Response) => {
    handled.count++;
    res.json({ parsed: req.body === undefined ? '(undefined)' : req.body });
  });
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof ProblemException) res.status(err.getStatus()).json(err.toProblem());
    else {
      const e = err as { status?: number; type?: string };
      res.status(e.status ?? 500).json({ error: e.type ?? 'unknown' });
    }
  });
  return app;
}

function listen(app: express.Express): Promise<Server> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
  });
}

function send(server: Server, headers: OutgoingHttpHeaders, body: Buffer | Buffer[]): Promise<Outcome> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }));
    });
    req.on('error', reject);
    for (const piece of Array.isArray(body) ? body : [body]) req.write(piece);
    req.end();
  });
}

const JSON_TYPE = 'application/json';
const text = (s: string) => Buffer.from(s, 'utf8');
/** A request with a Content-Length, as almost every client sends it. */
const plain = (body: Buffer, type = JSON_TYPE): [OutgoingHttpHeaders, Buffer] => [
  { 'content-type': type, 'content-length': body.length },
  body,
];

/** One request written as it stands (a head and maybe a body); the answer's status and body. */
function sendRaw(server: Server, raw: string): Promise<Outcome> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    let answer = '';
    const socket = connect(port, '127.0.0.1', () => socket.end(raw));
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (answer += d));
    socket.on('error', reject);
    socket.on('end', () => {
      const [head, body] = answer.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), body: JSON.parse(body) as unknown });
    });
  });
}

/**
 * Every body is read by body-parser; the no-body pass (fast-paths/README.md) answers a request without a body
 * as body-parser's two parsers do (`parser` below: the same parsers without the pass).
 */
describe('bodyParsers: the answers to every kind of body, and the no-body pass answers as body-parser does', () => {
  const handledDirect = { count: 0 };
  const handledParser = { count: 0 };
  let direct: Server;
  let parser: Server;
  beforeAll(async () => {
    direct = await listen(parserApp(bodyParsers(), handledDirect));
    parser = await listen(parserApp(libraryParsers(), handledParser));
  });
  afterAll(() => {
    direct.close();
    parser.close();
  });

  const both = async (headers: OutgoingHttpHeaders, body: Buffer | Buffer[]) => {
    const [a, b] = [await send(direct, headers, body), await send(parser, headers, body)];
    expect(a).toEqual(b);
    return a;
  };

  it.each([
    ['an object', plain(text('{"a":1,"b":[1,2,{"c":"d"}],"e":null}')), 200],
    ['an array', plain(text('[1,"2",true]')), 200],
    ['whitespace before the object', plain(text(' \n\t\r{"a":1}')), 200],
    ['a byte order mark before the object', plain(text('\ufeff{"a":1}')), 200],
    ['a byte order mark alone', plain(text('\ufeff')), 200],
    ['whitespace alone', plain(text('   ')), 400],
    ['a number', plain(text('1')), 400],
    ['a string', plain(text('"x"')), 400],
    ['null', plain(text(' null')), 400],
    ['a truncated object', plain(text('{"a":')), 400],
    ['an unquoted name', plain(text('{a:1}')), 400],
    ['text after the object', plain(text('{"a":1} x')), 400],
    [
      'bytes that are not UTF-8',
      plain(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d])),
      400,
    ],
    [`${MAX_JSON_DEPTH} levels`, plain(text('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH))), 200],
    ['one level more', plain(text('['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1))), 400],
    ['an escaped U+0000 (marked for the route, parsed here)', plain(text('{"a":"\\u0000"}')), 200],
    ['characters beyond ASCII', plain(text('{"é":"ü€😀"}')), 200],
    ['a repeated member (the last wins)', plain(text('{"a":1,"a":2}')), 200],
    ['a member named __proto__', plain(text('{"__proto__":{"x":1}}')), 200],
    ['charset=utf-8', plain(text('{"a":1}'), 'application/json; charset=utf-8'), 200],
    ['charset=UTF-8 without a space', plain(text('{"a":1}'), 'application/json;charset=UTF-8'), 200],
    ['charset=utf8 (body-parser: not utf-)', plain(text('{"a":1}'), 'application/json; charset=utf8'), 415],
    ['a quoted charset', plain(text('{"a":1}'), 'application/json; charset="utf-8"'), 200],
    ['charset=latin1', plain(text('{"a":1}'), 'application/json; charset=latin1'), 415],
    ['charset=utf-16', plain(text('{"a":1}'), 'application/json; charset=utf-16'), 415],
    ['the type in capitals', plain(text('{"a":1}'), 'Application/JSON'), 200],
    ['another type (not parsed)', plain(text('{"a":1}'), 'text/plain'), 200],
    ['an empty body', plain(Buffer.alloc(0)), 200],
  ] as [string, [OutgoingHttpHeaders, Buffer], number][])('%s', async (_what, [headers, body], status) => {
    expect((await both(headers, body)).status).toBe(status);
  });

  it.each([
    ['a GET', 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
    [
      'a GET with a JSON type',
      `GET / HTTP/1.1\r\nHost: x\r\nContent-Type: ${JSON_TYPE}\r\nConnection: close\r\n\r\n`,
    ],
    [
      'a POST without Content-Length',
      `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: ${JSON_TYPE}\r\nConnection: close\r\n\r\n`,
    ],
    [
      'a DELETE with Content-Length 0',
      `DELETE / HTTP/1.1\r\nHost: x\r\nContent-Type: ${JSON_TYPE}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
    ],
    [
      'a form with Content-Length 0',
      'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 0\r\nConnection: close\r\n\r\n',
    ],
    [
      'a chunked POST of nothing',
      `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: ${JSON_TYPE}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n`,
    ],
  ])('%s: the same answer', async (_what, raw) => {
    const [a, b] = [await sendRaw(direct, raw), await sendRaw(parser, raw)];
    expect(a).toEqual(b);
  });

  it('a body of exactly the limit is read; one byte more is refused as too large', async () => {
    const fill = (n: number) => text(`{"a":"${'x'.repeat(n - 8)}"}`);
    expect(fill(BODY_LIMIT).length).toBe(BODY_LIMIT);
    const fits = await both(...plain(fill(BODY_LIMIT)));
    expect(fits.status).toBe(200);
    expect((fits.body as { parsed: { a: string } }).parsed.a.length).toBe(BODY_LIMIT - 8);
    expect((await both(...plain(fill(BODY_LIMIT + 1)))).status).toBe(413);
  });

  it('a body sent in several pieces is read whole', async () => {
    const pieces = ['{"a":', '"é', '', '€', '","b":[1,', '2]}'].map(text);
    const length = pieces.reduce((n, p) => n + p.length, 0);
    const outcome = await both({ 'content-type': JSON_TYPE, 'content-length': length }, pieces);
    expect(outcome).toEqual({ status: 200, body: { parsed: { a: 'é€', b: [1, 2] } } });
  });

  it('compressed and chunked bodies (body-parser reads them) give the same answers', async () => {
    const body = text('{"a":[1,2,3]}');
    const gzipped = gzipSync(body);
    expect(
      await both(
        { 'content-type': JSON_TYPE, 'content-encoding': 'gzip', 'content-length': gzipped.length },
        gzipped,
      ),
    ).toEqual({ status: 200, body: { parsed: { a: [1, 2, 3] } } });
    expect(
      await both({ 'content-type': JSON_TYPE, 'transfer-encoding': 'chunked' }, [
        body.subarray(0, 5),
        body.subarray(5),
      ]),
    ).toEqual({
      status: 200,
      body: { parsed: { a: [1, 2, 3] } },
    });
  });

  it('a client that leaves mid-body never reaches the handler, and the server goes on answering', async () => {
    const before = handledDirect.count;
    const { port } = direct.address() as AddressInfo;
    await new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: ${JSON_TYPE}\r\nContent-Length: 100\r\n\r\n{"a":"part`,
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 50);
      });
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(handledDirect.count).toBe(before);
    expect(await send(direct, ...plain(text('{"after":true}')))).toEqual({
      status: 200,
      body: { parsed: { after: true } },
    });
  });
});
