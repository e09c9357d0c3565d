import { createSqliteDirectory } from './support/databases';
import { freePort } from './support/free-port';
import { spawnServer, waitFor } from './support/spawn-server';

jest.setTimeout(90_000);

/**
 * Request logging at `info`, in the real process (JSON lines on a pipe, pino's asynchronous destination): one
 * short line per request, nothing of its headers, its query or its credentials, and every line written by the
 * time the process has exited.
 */
describe('request logging at info', () => {
  it('one short line per request with id, method, path, status and time; no header, query or secret; none lost at exit', async () => {
    const port = await freePort();
    const server = spawnServer({
      DataDirectory: createSqliteDirectory(),
      Port: String(port),
      LogLevel: 'info',
    });
    await waitFor(() => server.output().includes('Service listening'), 30_000, 'the service to listen');
    const base = `http://127.0.0.1:${port}`;
    const secretBearer = 'eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LWJlYXJlcg.bm90LWEtc2lnbmF0dXJl';
    const secretKey = 'not-a-key-but-secret-0123456789';
    const first = await fetch(`${base}/api/Authentication/Session?token=query-secret`, {
      headers: { authorization: `Bearer ${secretBearer}`, 'x-request-id': 'log-test-1' },
    });
    expect(first.status).toBe(401);
    const second = await fetch(`${base}/api/Authentication/Session`, {
      headers: { 'x-api-key': secretKey, 'x-request-id': 'log-test-2' },
    });
    expect(second.status).toBe(401);
    const many = 200;
    for (let i = 0; i < many; i += 20)
      await Promise.all(
        Array.from({ length: 20 }, (_, j) =>
          fetch(`${base}/api/Live`, { headers: { 'x-request-id': `live-${i + j}` } }).then((r) =>
            r.arrayBuffer(),
          ),
        ),
      );
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);

    const lines = server
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => ({ raw: l, json: JSON.parse(l) as Record<string, unknown> }));
    const requestLines = lines.filter((l) => (l.json.req as { id?: string } | undefined)?.id !== undefined);
    const byId = (id: string) => requestLines.filter((l) => (l.json.req as { id: string }).id === id);

    const [line] = byId('log-test-1');
    expect(byId('log-test-1')).toHaveLength(1);
    expect(line.json).toMatchObject({
      level: 30,
      instance: expect.any(String),
      req: { id: 'log-test-1', method: 'GET', url: '/api/Authentication/Session' },
      res: { statusCode: 401 },
      responseTime: expect.any(Number),
    });
    expect(Object.keys(line.json.req as object).sort()).toEqual(['id', 'method', 'url']);
    expect(Object.keys(line.json.res as object)).toEqual(['statusCode']);
    expect(line.raw.length).toBeLessThan(400);
    const everything = server.output();
    for (const secret of [secretBearer, secretKey, 'query-secret']) expect(everything).not.toContain(secret);
    expect(everything).not.toMatch(/content-security-policy|set-cookie|www-authenticate/i);
    // every request's line reached the pipe before the process ended
    for (let i = 0; i < many; i++) expect(byId(`live-${i}`)).toHaveLength(1);
  });
});
