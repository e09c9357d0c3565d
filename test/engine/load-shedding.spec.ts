import { request as httpRequest } from 'node:http';
import { Client } from 'pg';
import { DEMO_MODEL_GUID } from '@app/engine';
import { createPostgresDatabase } from '../support/databases';
import { freePort } from '../support/free-port';
import { spawnServer, waitFor } from '../support/spawn-server';
import { TEST_ADMIN_PASSWORD, TEST_API_HMAC_KEY, TEST_JWT_KEY } from '../support/test-app';

jest.setTimeout(120_000);

const SUMMARY = 'Invoke refused requests with 503 (overload) in the last second';

type Invoke = ((body: string, auth?: boolean) => Promise<Response>) & { token: string };

const account = (i: number) =>
  JSON.stringify({ transactionId: `t${i}`, account: { id: `ACC-SHED-${i}` }, amount: 9999, country: 'DE' });

function startService(connectionString: string, port: number) {
  return spawnServer({
    DatabaseProvider: 'postgres',
    ConnectionString: connectionString,
    Port: String(port),
    LogLevel: 'info',
    JwtKey: TEST_JWT_KEY,
    ApiHmacKey: TEST_API_HMAC_KEY,
    BootstrapAdministratorPassword: TEST_ADMIN_PASSWORD,
    Argon2MemoryKiB: '19456',
    Argon2Iterations: '2',
    CaseCreationQueueCapacity: '2',
    ArchiveBulkCopyIntervalMilliseconds: '20',
  });
}

async function invoker(base: string): Promise<Invoke> {
  const signIn = await fetch(`${base}/api/Authentication/ByUserNamePassword`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      userName: 'Administrator',
      password: TEST_ADMIN_PASSWORD,
      newPassword: 'A-New-Password-123',
      repeatNewPassword: 'A-New-Password-123',
    }),
  });
  const { token } = (await signIn.json()) as { token: string };
  const invoke = (body: string, auth = true) =>
    fetch(`${base}/api/Invoke/EntityAnalysisModel/${DEMO_MODEL_GUID}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${token}` } : {}) },
      body,
    });
  return Object.assign(invoke, { token });
}

interface RawAnswer {
  status: number;
  retryAfter: string | undefined;
  body: string;
}

/**
 * An Invoke whose head has passed the door once this resolves (the node answered 100 Continue in the turn it
 * ran the front layer), its body sent by `finish`: the handler's own check then decides.
 */
function invokeHeadFirst(base: string, token: string, body: string): Promise<() => Promise<RawAnswer>> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}/api/Invoke/EntityAnalysisModel/${DEMO_MODEL_GUID}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        authorization: `Bearer ${token}`,
        expect: '100-continue',
      },
    });
    const answer = new Promise<RawAnswer>((done) =>
      req.on('response', (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () =>
          done({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body: text }),
        );
      }),
    );
    req.on('error', reject);
    req.on('continue', () => resolve(() => (req.end(body), answer)));
    req.flushHeaders();
  });
}

/** Invocations accepted until the held cases fill the backlog (two activations an invocation): their numbers. */
async function fillBacklog(invoke: Invoke): Promise<number[]> {
  const accepted: number[] = [];
  let refused = 0;
  for (let i = 0; refused === 0 && i < 200; i++) {
    const answer = await invoke(account(i));
    await answer.arrayBuffer();
    if (answer.status === 200) accepted.push(i);
    else if (answer.status === 503) refused++;
    else throw new Error(`unexpected ${answer.status}`);
    await new Promise((r) => setTimeout(r, 30));
  }
  expect(refused).toBe(1);
  return accepted;
}

/** Twenty rounds of a valid, a malformed and a too-large body, each refused the same: how many. */
async function expectRefusals(invoke: Invoke): Promise<number> {
  const bodies = [account(1000), '{not json', `{"x":"${'y'.repeat(2 * 1024 * 1024)}"}`];
  let refused = 0;
  for (let round = 0; round < 20; round++) {
    for (const answer of await Promise.all(bodies.map((b) => invoke(b)))) {
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('1');
      expect(answer.headers.get('content-type')).toContain('application/problem+json');
      expect(await answer.json()).toMatchObject({
        type: 'urn:problem-type:service-unavailable',
        status: 503,
        detail: expect.stringContaining('Case creation is behind'),
      });
      refused++;
    }
  }
  return refused;
}

async function countRows(pg: Client, sql: string): Promise<number> {
  const { rows } = await pg.query<{ n: string }>(sql);
  return Number(rows[0].n);
}

const jsonLines = (output: string): Record<string, unknown>[] =>
  output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** The refusals the summary lines written so far account for. */
const summarisedRefusals = (output: string): number =>
  jsonLines(output)
    .filter((l) => l.msg === SUMMARY)
    .reduce((n, l) => n + Number(l.refused), 0);

/** No request line for a 503; warn summaries whose counts add up to the refusals. */
function expectSummaries(output: string, refused: number): void {
  const lines = jsonLines(output);
  const refusedLines = lines.filter(
    (l) => (l.res as { statusCode?: number } | undefined)?.statusCode === 503,
  );
  expect(refusedLines).toEqual([]);
  const summaries = lines.filter((l) => l.msg === SUMMARY);
  expect(summaries.every((l) => l.level === 40)).toBe(true);
  expect(summaries.reduce((n, l) => n + Number(l.refused), 0)).toBe(refused);
  expect(summaries.reduce((n, l) => n + Number(l.caseLag), 0)).toBe(refused);
  expect(summaries.length).toBeLessThan(refused);
}

/**
 * Overload in the real process on PostgreSQL: while case creation is held (the test locks the Case table), the
 * case backlog reaches CaseCreationQueueCapacity and Invoke refuses: 503 with Retry-After, before the body is
 * read (a body that is not JSON, or too large, is refused the same), or by the handler for a request let in
 * before the backlog filled (the same answer, counted the same), no request line per refusal but
 * one summary line a second whose counts add up to the refusals; a request without a credential still gets its
 * 401, and every accepted invocation is archived and cased once the lock goes.
 */
describe('load shedding at Invoke (PostgreSQL)', () => {
  it('refuses early and cheaply, summarises the refusals, and loses nothing accepted', async () => {
    const connectionString = await createPostgresDatabase();
    const port = await freePort();
    const server = startService(connectionString, port);
    const pg = new Client({ connectionString });
    try {
      await waitFor(() => server.output().includes('Service listening'), 60_000, 'the service to listen');
      const base = `http://127.0.0.1:${port}`;
      const invoke = await invoker(base);
      await pg.connect();
      await pg.query('BEGIN');
      await pg.query('LOCK TABLE "Case" IN ACCESS EXCLUSIVE MODE');
      const late = await invokeHeadFirst(base, invoke.token, account(4000));
      const accepted = await fillBacklog(invoke);
      expect(accepted.length).toBeGreaterThanOrEqual(1);
      const refused = 4 + (await expectRefusals(invoke));
      // Its head was let in before the backlog filled: the handler refuses it, with the door's very answer.
      const byHandler = await late();
      const byDoor = await invoke(account(5000));
      expect([byHandler.status, byHandler.retryAfter]).toEqual([503, '1']);
      expect(byHandler.body).toBe(await byDoor.text());
      // The door knows the route as Express matches it (any letter case, a final slash, a query): a 2 MiB body,
      // which the body parser would refuse with a 413, gets the 503 before it is read.
      const spelled = await fetch(`${base}/api/invoke/entityanalysismodel/${DEMO_MODEL_GUID}/?trace=true`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${invoke.token}` },
        body: `{"x":"${'y'.repeat(2 * 1024 * 1024)}"}`,
      });
      expect([spelled.status, spelled.headers.get('retry-after')]).toEqual([503, '1']);
      expect((await invoke(account(2000), false)).status).toBe(401);
      expect((await fetch(`${base}/api/Live`)).status).toBe(200);

      await pg.query('COMMIT');
      const casesSql = `SELECT COUNT(*) AS n FROM "Case" WHERE "CaseKeyValue" LIKE 'ACC-SHED-%'`;
      await waitFor(
        async () => (await countRows(pg, casesSql)) === accepted.length,
        30_000,
        'the cases of every accepted invocation',
      );
      const archived = `SELECT COUNT(*) AS n FROM "EntityAnalysisModelArchive" WHERE "Json" LIKE '%ACC-SHED-%'`;
      expect(await countRows(pg, archived)).toBe(accepted.length);
      // Taken again once the backlog is gone.
      await waitFor(
        async () => (await invoke(account(3000))).status === 200,
        30_000,
        'Invoke to accept again',
      );
      await waitFor(
        () => summarisedRefusals(server.output()) >= refused,
        30_000,
        'the summary lines of every refusal',
      );
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      expectSummaries(server.output(), refused);
    } finally {
      await pg.end().catch(() => undefined);
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    }
  });
});
