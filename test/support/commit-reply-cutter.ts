import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL that can lose the reply to one COMMIT: once armed, the first
 * connection that sends a simple-protocol `COMMIT` has it delivered to the server, then, before any answer
 * reaches the client, both sides are cut. The transaction is committed; the client only sees a dropped
 * connection. The real way a commit becomes "unknown".
 */
export interface CommitReplyCutter {
  /** postgres:// URL through the proxy (database and user as given). */
  url: string;
  /** Cut the reply of the next COMMIT; resolves when that cut happened. */
  armOnce(): Promise<void>;
  close(): Promise<void>;
}

/** A simple Query message ('Q', int32 length, "COMMIT\0"), as node-postgres sends a bare COMMIT. */
function isCommit(chunk: Buffer): boolean {
  for (let i = 0; i + 5 < chunk.length; i++) {
    if (chunk[i] !== 0x51) continue;
    const text = chunk.subarray(i + 5, i + 5 + 7).toString('latin1');
    if (text === 'COMMIT\0') return true;
  }
  return false;
}

export async function startCommitReplyCutter(target: string): Promise<CommitReplyCutter> {
  const t = new URL(target);
  const sockets = new Set<Socket>();
  let armed: (() => void) | null = null;
  const server: Server = createServer((client) => {
    const upstream = connect(Number(t.port || 5432), t.hostname);
    sockets.add(client).add(upstream);
    let cut = false;
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      if (armed && isCommit(chunk)) {
        const done = armed;
        armed = null;
        cut = true;
        // Give the server time to commit, then drop both sides without passing its answer on.
        setTimeout(() => {
          end();
          done();
        }, 300);
      }
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!cut) client.write(chunk);
    });
    client.on('error', end);
    upstream.on('error', end);
    client.on('close', end);
    upstream.on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    armOnce: () => new Promise<void>((resolve) => (armed = resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
