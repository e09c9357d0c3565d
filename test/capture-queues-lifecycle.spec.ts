import Database from 'better-sqlite3';
import { join } from 'node:path';
import { Client } from 'pg';
import { CaptureFlusher, CaptureQueues } from '@app/capture-queues';
import {
  createPostgresDatabase,
  createSqliteDirectory,
  SQLITE_AND_POSTGRES,
  type TestProvider,
} from './support/databases';
import { startTestApp } from './support/test-app';

/** Reads a count straight from the database, outside the app (also after it is gone). */
async function countInDatabase(provider: TestProvider, where: { dir: string; url?: string }, table: string) {
  if (provider === 'sqlite') {
    const db = new Database(join(where.dir, 'service.sqlite'), { readonly: true });
    try {
      return (db.prepare(`SELECT COUNT(*) AS n FROM "${table}"`).get() as { n: number }).n;
    } finally {
      db.close();
    }
  }
  const client = new Client({ connectionString: where.url });
  await client.connect();
  try {
    return Number((await client.query<{ n: string }>(`SELECT COUNT(*) AS n FROM "${table}"`)).rows[0].n);
  } finally {
    await client.end();
  }
}

const warn = (queues: CaptureQueues, i: number) =>
  queues.enqueueCaseCreationWarning({
    caseWorkflowGuid: '44444444-4444-4444-8444-444444444444',
    caseWorkflowName: 'Fraud',
    caseKey: 'AccountId',
    caseKeyValue: String(i),
    stageId: 1,
    durationMicroseconds: 10_000_001,
  });

// SQLite and PostgreSQL only: the counts are read through their own clients, after the app has stopped.
describe.each(SQLITE_AND_POSTGRES)('capture flush lifecycle on %s', (provider) => {
  const start = async (interval: string) => {
    const dir = createSqliteDirectory();
    const url = provider === 'postgres' ? await createPostgresDatabase() : undefined;
    const t = await startTestApp(
      provider,
      { CaptureQueueFlushIntervalMilliseconds: interval },
      { dataDirectory: dir, connectionString: url },
    );
    return { t, where: { dir, url }, queues: t.app.get(CaptureQueues) };
  };

  it('flushes on its own every CaptureQueueFlushIntervalMilliseconds', async () => {
    const { t, where, queues } = await start('100');
    let healthRows: number;
    try {
      // Two flushes the timer runs after the rows are queued: the first takes them, each writes six health rows.
      const twoFlushes = new Promise<void>((resolve) => {
        let flushes = 0;
        const stop = t.app.get(CaptureFlusher).onFlushed(() => {
          if (++flushes < 2) return;
          stop();
          resolve();
        });
      });
      warn(queues, 1);
      warn(queues, 2);
      await twoFlushes;
      expect(queues.caseCreationWarning.depth).toBe(0);
      healthRows = await countInDatabase(provider, where, 'CaptureQueueHealth');
    } finally {
      await t.close();
    }
    expect(await countInDatabase(provider, where, 'CaseCreationWarning')).toBe(2);
    expect(healthRows).toBeGreaterThanOrEqual(12);
  });

  it('flushes once more at graceful shutdown', async () => {
    const { t, where, queues } = await start('3600000');
    try {
      for (let i = 0; i < 3; i++) warn(queues, i);
    } finally {
      await t.close();
    }
    expect(await countInDatabase(provider, where, 'CaseCreationWarning')).toBe(3);
    expect(await countInDatabase(provider, where, 'CaptureQueueHealth')).toBe(6);
  });
});
