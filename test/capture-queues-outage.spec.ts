import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { CaptureFlusher, CaptureQueueId, CaptureQueues } from '@app/capture-queues';
import { startPostgresServer, PostgresServer } from './support/postgres-server';
import { startTestApp, TestApp } from './support/test-app';
import { createPostgresDatabase } from './support/databases';
import { startCommitReplyCutter, CommitReplyCutter } from './support/commit-reply-cutter';

/**
 * spec: Events, queue mechanics — a flush while PostgreSQL is really stopped (its own throwaway cluster,
 * paused with pg_ctl stop) keeps the rows and writes them once it is back: nothing lost, nothing twice.
 */
describe('capture flush while PostgreSQL is stopped', () => {
  let pg: PostgresServer;
  let t: TestApp;
  let ds: DataSource;
  let queues: CaptureQueues;
  let flusher: CaptureFlusher;

  const warn = (message: string, i: number) =>
    queues.enqueueModelInvokeWarning({
      entityAnalysisModelGuid: '11111111-1111-4111-8111-111111111111',
      entityAnalysisModelName: 'Outage model',
      entityAnalysisModelInstanceEntryGuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      message,
      elapsedMicroseconds: i,
      sinceLastEntryMicroseconds: i,
    });

  beforeAll(async () => {
    pg = await startPostgresServer();
    const admin = new Client({ connectionString: pg.url });
    await admin.connect();
    await admin.query('CREATE DATABASE capture_outage');
    await admin.end();
    const url = new URL(pg.url);
    url.pathname = '/capture_outage';
    t = await startTestApp(
      'postgres',
      { CaptureQueueFlushIntervalMilliseconds: '3600000', InstanceName: 'node-outage' },
      { connectionString: url.toString() },
    );
    ds = t.app.get(DataSource);
    queues = t.app.get(CaptureQueues);
    flusher = t.app.get(CaptureFlusher);
    await flusher.flush();
    await ds.query(`DELETE FROM "CaptureQueueHealth"`);
  });

  afterAll(async () => {
    await t?.close();
    pg?.stop();
  });

  it('keeps the rows and the health rows, and writes each exactly once when the database returns', async () => {
    for (let i = 0; i < 100; i++) warn('before', i);
    pg.pause();
    try {
      const first = await flusher.flush();
      expect(first.deferred).toBe(true);
      expect(first.written[CaptureQueueId.ModelInvokeWarning]).toBe(0);
      expect(queues.modelInvokeWarning.depth).toBe(100);
      for (let i = 100; i < 150; i++) warn('during', i);
      const second = await flusher.flush();
      expect(second.deferred).toBe(true);
      expect(second.health.find((h) => h.QueueId === CaptureQueueId.ModelInvokeWarning)?.QueueDepth).toBe(
        150,
      );
    } finally {
      pg.start();
    }
    const third = await flusher.flush();
    expect(third.deferred).toBe(false);
    expect(third.written[CaptureQueueId.ModelInvokeWarning]).toBe(150);
    expect(third.healthWritten).toBe(true);

    const written = await ds.query<
      { Message: string; EntityAnalysisModelInstanceEntryGuid: string; Instance: string }[]
    >(
      `SELECT "Message", "EntityAnalysisModelInstanceEntryGuid", "Instance" FROM "ModelInvokeWarning" ORDER BY "Id"`,
    );
    expect(written).toHaveLength(150);
    expect(new Set(written.map((w) => w.EntityAnalysisModelInstanceEntryGuid)).size).toBe(150);
    // In their order of capture: the retained rows went back in front of the later ones.
    expect(written.map((w) => Number(w.EntityAnalysisModelInstanceEntryGuid.slice(-12)))).toEqual(
      Array.from({ length: 150 }, (_, i) => i),
    );
    expect(written.every((w) => w.Instance === 'node-outage')).toBe(true);

    // Three flushes, six health rows each, the two from the outage with their own time and depth.
    const health = await ds.query<
      { QueueId: number; QueueDepth: number; DroppedCount: string; CreatedDate: Date }[]
    >(
      `SELECT "QueueId", "QueueDepth", "DroppedCount", "CreatedDate" FROM "CaptureQueueHealth" ORDER BY "Id"`,
    );
    expect(health.map((h) => h.QueueId)).toEqual([1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6]);
    expect(health.filter((h) => h.QueueId === 1).map((h) => h.QueueDepth)).toEqual([100, 150, 0]);
    expect(health.every((h) => Number(h.DroppedCount) === 0)).toBe(true);
    const times = health.filter((h) => h.QueueId === 1).map((h) => h.CreatedDate.getTime());
    expect(times[0]).toBeLessThan(times[2]);

    // And nothing is written twice by later flushes.
    await flusher.flush();
    expect(
      Number((await ds.query<{ n: string }[]>(`SELECT COUNT(*) AS "n" FROM "ModelInvokeWarning"`))[0].n),
    ).toBe(150);
  });
});

/**
 * A flush whose COMMIT reached PostgreSQL but whose answer never came back (a proxy cuts the connection
 * between them): the rows are in, the flusher cannot know. The next flush asks the CaptureBatch ledger
 * first and does not write them twice.
 */
describe('capture flush whose COMMIT reply is lost', () => {
  let cutter: CommitReplyCutter;
  let t: TestApp;
  let direct: Client;

  beforeAll(async () => {
    const database = await createPostgresDatabase();
    cutter = await startCommitReplyCutter(database);
    t = await startTestApp(
      'postgres',
      { CaptureQueueFlushIntervalMilliseconds: '3600000', InstanceName: 'node-cut' },
      { connectionString: cutter.url },
    );
    direct = new Client({ connectionString: database });
    await direct.connect();
  });

  afterAll(async () => {
    await t?.close();
    await direct?.end();
    await cutter?.close();
  });

  it('writes each row exactly once: the retry finds its batch in the ledger and leaves those rows out', async () => {
    const queues = t.app.get(CaptureQueues);
    const flusher = t.app.get(CaptureFlusher);
    await flusher.flush(); // the start's own rows out of the way
    const warn = (i: number) =>
      queues.enqueueModelInvokeWarning({
        entityAnalysisModelGuid: '11111111-1111-4111-8111-111111111111',
        entityAnalysisModelName: 'Cut model',
        entityAnalysisModelInstanceEntryGuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        message: 'ExtractFields',
        elapsedMicroseconds: i,
        sinceLastEntryMicroseconds: i,
      });
    for (let i = 0; i < 40; i++) warn(i);
    const cut = cutter.armOnce();
    const lost = await flusher.flush();
    await cut;
    expect(lost.deferred).toBe(true);
    const count = async () =>
      Number((await direct.query<{ n: string }>('SELECT COUNT(*) AS n FROM "ModelInvokeWarning"')).rows[0].n);
    // Committed all the same, though the flusher was told the connection died.
    expect(await count()).toBe(40);
    expect(queues.modelInvokeWarning.depth).toBe(40);
    for (let i = 40; i < 45; i++) warn(i);

    const retried = await flusher.flush();
    expect(retried.deferred).toBe(false);
    expect(retried.written[CaptureQueueId.ModelInvokeWarning]).toBe(5);
    expect(await count()).toBe(45);
    const distinct = await direct.query<{ n: string }>(
      'SELECT COUNT(DISTINCT "EntityAnalysisModelInstanceEntryGuid") AS n FROM "ModelInvokeWarning"',
    );
    expect(Number(distinct.rows[0].n)).toBe(45);
    const ledger = await direct.query<{ TableName: string; RowCount: number }>(
      `SELECT "TableName", "RowCount" FROM "CaptureBatch" WHERE "TableName" = 'ModelInvokeWarning' ORDER BY "Id"`,
    );
    expect(ledger.rows).toEqual([
      { TableName: 'ModelInvokeWarning', RowCount: 40 },
      { TableName: 'ModelInvokeWarning', RowCount: 5 },
    ]);
  });
});
