import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { MixState, recordAnswer } from '../bench/cluster-answers';

/**
 * bench:cluster counts the invocations answered 200 from autocannon's onResponse. A server that closes some
 * connections after an answer (as a draining node's answers do) makes autocannon hand later answers to the
 * wrong request of the mix; the record must still hold exactly the entry guids the server answered, each with
 * the node its own answer names, and never a read's answer as an invocation (which the bench once reported
 * as an invocation missing from the archive).
 */
describe('bench/cluster-answers', () => {
  let server: Server;
  let url: string;
  const answered = new Set<string>();
  let answers = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        // Every seventh answer closes its connection, as a node's answers do while it drains.
        if (++answers % 7 === 0) res.setHeader('connection', 'close');
        res.setHeader('content-type', 'application/json');
        res.setHeader('x-served-by', 'node-x');
        if (req.url === '/invoke') {
          const guid = randomUUID();
          res.on('finish', () => answered.add(guid));
          res.end(JSON.stringify({ entityAnalysisModelInstanceEntryGuid: guid }));
        } else res.end(JSON.stringify({ userGuid: 'reader' }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('holds exactly the invocations answered, whichever request autocannon pairs an answer with', async () => {
    const state: MixState = { accepted: new Map(), sequence: 0, mispaired: 0 };
    await autocannon({
      url,
      connections: 2,
      amount: 400,
      requests: [
        { method: 'POST', path: '/invoke', body: '{}', onResponse: recordAnswer(state, true) },
        { method: 'GET', path: '/read', onResponse: recordAnswer(state, false) },
        { method: 'GET', path: '/read', onResponse: recordAnswer(state, false) },
      ],
    });
    expect(answered.size).toBeGreaterThan(50);
    expect([...state.accepted.keys()].sort()).toEqual([...answered].sort());
    expect(new Set(state.accepted.values())).toEqual(new Set(['node-x']));
    // The case the record is for did happen: answers handed to the other kind of request.
    expect(state.mispaired).toBeGreaterThan(0);
  });
});
