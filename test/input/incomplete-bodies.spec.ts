import { connect, Socket } from 'node:net';
import { createSqliteDirectory } from '../support/databases';
import { freePort } from '../support/free-port';
import { spawnServer, SpawnedServer, waitFor } from '../support/spawn-server';

jest.setTimeout(120_000);

/**
 * A client that leaves before its body is complete is its own business: a 400-class
 * event, one request line at `info`, never a 500, an `error` line or a stack trace, on body-parser's JSON and
 * form parsers. A body that never completes is cut after
 * RequestBodyTimeoutMilliseconds (408), counted, and logged once. Both are counted in
 * service.http.request.incomplete, by reason.
 */
const BODY_TIMEOUT_MS = 1500;
const TIMES = 10;

/** The three ways a body reaches the parsers: Content-Length JSON, chunked JSON, a form. */
const KINDS = {
  length: 'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":"half',
  chunked: 'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n{"name":\r\n',
  form: 'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nname=half',
};

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.on('error', reject);
  });
}

const head = (id: string) =>
  `POST /api/TenantRegistry HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: ${id}\r\n`;

describe('a body that stops half-way (one real process, both body parsers)', () => {
  let server: SpawnedServer;
  let port: number;
  let metricsPort: number;
  const ids = { left: [] as string[], cut: [] as string[] };
  const cutAnswers: { ms: number; answer: string }[] = [];
  let metrics = '';
  let output = '';

  beforeAll(async () => {
    port = await freePort();
    metricsPort = await freePort();
    server = spawnServer({
      DataDirectory: createSqliteDirectory(),
      Port: String(port),
      LogLevel: 'info',
      RequestBodyTimeoutMilliseconds: String(BODY_TIMEOUT_MS),
      EnableOpenTelemetry: 'True',
      OpenTelemetryPrometheusPort: String(metricsPort),
    });
    await waitFor(() => server.output().includes('Service listening'), 60_000, 'the service to listen');
    const mark = server.output().length;

    for (const [kind, rest] of Object.entries(KINDS))
      for (let i = 0; i < TIMES; i++) {
        const id = `left-${kind}-${i}`;
        ids.left.push(id);
        const socket = await open(port);
        socket.write(head(id) + rest);
        await new Promise((r) => setTimeout(r, 50));
        socket.destroy();
      }
    await Promise.all(
      Object.entries(KINDS).map(async ([kind, rest]) => {
        const id = `cut-${kind}`;
        ids.cut.push(id);
        const socket = await open(port);
        const started = Date.now();
        let answer = '';
        socket.setEncoding('latin1');
        socket.on('data', (d: string) => (answer += d));
        socket.write(head(id) + rest);
        await new Promise<void>((resolve) => socket.on('close', () => resolve()));
        cutAnswers.push({ ms: Date.now() - started, answer });
      }),
    );
    // The counters, read from the Prometheus endpoint before the process ends.
    metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    output = server.output().slice(mark);
  });
  afterAll(() => server.child.kill('SIGKILL'));

  const lines = () =>
    output
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map(
        (l) =>
          JSON.parse(l) as { level: number; msg: string; req?: { id: string }; res?: { statusCode: number } },
      );

  it('a client that leaves: one request line each, at info, 400-class; nothing at error, no stack', () => {
    for (const id of ids.left) {
      const mine = lines().filter((l) => l.req?.id === id);
      expect({ id, count: mine.length, level: mine[0]?.level, status: mine[0]?.res?.statusCode }).toEqual({
        id,
        count: 1,
        level: 30,
        status: 400,
      });
    }
    expect(lines().filter((l) => l.level >= 50)).toEqual([]);
    expect(output).not.toMatch(/stack|request aborted"?,"stack|Unhandled error/);
  });

  it('a body that never completes is cut with 408 after RequestBodyTimeoutMilliseconds, and logged once', () => {
    expect(cutAnswers).toHaveLength(3);
    for (const { ms, answer } of cutAnswers) {
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(ms).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 100);
    }
    for (const id of ids.cut) {
      const mine = lines().filter((l) => l.req?.id === id);
      expect({ id, count: mine.length, level: mine[0]?.level, status: mine[0]?.res?.statusCode }).toEqual({
        id,
        count: 1,
        level: 30,
        status: 408,
      });
    }
  });

  it('both are counted, by reason', () => {
    const count = (reason: string) =>
      Number(
        new RegExp(
          `^service_http_request_incomplete_total\\{[^}]*reason="${reason}"[^}]*\\} (\\d+)`,
          'm',
        ).exec(metrics)?.[1],
      );
    expect({ left: count('client-left'), cut: count('body-timeout') }).toEqual({
      left: ids.left.length,
      cut: ids.cut.length,
    });
  });
});
