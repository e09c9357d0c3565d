import { connect } from 'node:net';
import { startTestApp, TestApp } from '../support/test-app';
import { clientErrorStatus } from '../../apps/server/src/client-errors';

/** Writes raw bytes to the service and reads its whole answer, until it closes the connection. */
function rawExchange(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes, 'latin1'));
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (answer += d));
    socket.on('close', () => resolve(answer));
    socket.on('error', (err: NodeJS.ErrnoException) =>
      // the service closes after its answer, possibly while the rest of a long request is still being sent
      err.code === 'ECONNRESET' || err.code === 'EPIPE' ? resolve(answer) : reject(err),
    );
  });
}

function parsed(answer: string): { status: number; headers: string; body: unknown } {
  const [head, body] = [
    answer.slice(0, answer.indexOf('\r\n\r\n')),
    answer.slice(answer.indexOf('\r\n\r\n') + 4),
  ];
  return {
    status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1]),
    headers: head,
    body: JSON.parse(body) as unknown,
  };
}

/**
 * Requests node:http refuses before the application sees them are answered with RFC 9457 problems on the
 * socket (the clientError event): 414 for a request target over the limit, 431 for oversize headers, 400 for
 * what does not parse (an unknown method included).
 */
describe('answers of node:http refusals (raw sockets)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each([
    [
      'a request target of 20 000 characters',
      `GET /api/Live?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      414,
    ],
    [
      'a header of 20 000 characters',
      `GET /api/Live HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`,
      431,
    ],
    [
      'many headers, 17 KiB together',
      `GET /api/Live HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 200 }, (_, i) => `X-H${i}: ${'c'.repeat(80)}\r\n`).join('')}\r\n`,
      431,
    ],
    ['an unknown method', 'FROB /api/Live HTTP/1.1\r\nHost: x\r\n\r\n', 400],
    ['a header line without a colon', 'GET /api/Live HTTP/1.1\r\nHost: x\r\nNot a header\r\n\r\n', 400],
    [
      'a Content-Length that is not a number',
      'POST /api/Live HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
      400,
    ],
  ])('%s: a problem body with its status, and the connection closed', async (_name, bytes, status) => {
    const answer = parsed(await rawExchange(t.url, bytes));
    expect(answer.status).toBe(status);
    expect(answer.headers).toMatch(/\r\nContent-Type: application\/problem\+json\r\n/);
    expect(answer.headers).toMatch(/\r\nConnection: close(\r\n|$)/);
    expect(answer.body).toEqual({
      type: 'about:blank',
      title: expect.any(String),
      status,
      detail: expect.any(String),
    });
  });

  it('a well-formed request on a new connection is answered as ever', async () => {
    const answer = await rawExchange(t.url, 'GET /api/Live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
  });
});

describe('clientErrorStatus', () => {
  const overflow = (packet: string) =>
    Object.assign(new Error('Header overflow'), {
      code: 'HPE_HEADER_OVERFLOW',
      rawPacket: Buffer.from(packet, 'latin1'),
    });

  it('tells a long request target from large headers by the bytes the parser failed on', () => {
    expect(clientErrorStatus(overflow(`GET /${'a'.repeat(17_000)}`), 16_384)).toBe(414);
    expect(
      clientErrorStatus(overflow(`GET /${'a'.repeat(9_000)} HTTP/1.1\r\nX: ${'b'.repeat(8_000)}`), 16_384),
    ).toBe(414);
    expect(clientErrorStatus(overflow(`GET /short HTTP/1.1\r\nX: ${'b'.repeat(17_000)}`), 16_384)).toBe(431);
    // a later read of a long head: its request line is not in it
    expect(clientErrorStatus(overflow('b'.repeat(4_000)), 16_384)).toBe(431);
    expect(clientErrorStatus(Object.assign(new Error('x'), { code: 'HPE_HEADER_OVERFLOW' }))).toBe(431);
  });

  it("keeps node:http's other statuses", () => {
    expect(clientErrorStatus(Object.assign(new Error('x'), { code: 'HPE_INVALID_METHOD' }))).toBe(400);
    expect(clientErrorStatus(Object.assign(new Error('x'), { code: 'HPE_CHUNK_EXTENSIONS_OVERFLOW' }))).toBe(
      413,
    );
    expect(clientErrorStatus(Object.assign(new Error('x'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }))).toBe(408);
  });
});
