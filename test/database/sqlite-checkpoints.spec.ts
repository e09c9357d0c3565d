import { existsSync, statSync } from 'node:fs';
import { DataSource } from 'typeorm';
import {
  SQLITE_CHECKPOINT_FOLLOW_UP_FRAMES,
  SQLITE_CHECKPOINT_FOLLOW_UP_MS,
  SQLITE_CHECKPOINT_INTERVAL_MS,
  SqliteCheckpoints,
} from '@app/database';
import { startTestApp, TestApp } from '../support/test-app';

/** The service's SQLite file's write-ahead log: its size in bytes (0 when absent). */
function walBytes(ds: DataSource): number {
  const wal = `${ds.options.database as string}-wal`;
  return existsSync(wal) ? statSync(wal).size : 0;
}

/**
 * SQLite's checkpoints run on a thread of their own, never inside the service's commits (which hold the event
 * loop): the service's connection has its own checkpoints off, and the thread copies the log into the database.
 */
describe('SQLite checkpoints off the event loop', () => {
  let t: TestApp;
  let ds: DataSource;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
    ds = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  it("turns the service connection's own checkpoints off once the thread runs", async () => {
    const [setting] = await ds.query<{ wal_autocheckpoint: number }[]>('PRAGMA wal_autocheckpoint');
    expect(setting.wal_autocheckpoint).toBe(0);
  });

  it('copies what the service wrote into the database file, the log included, on the thread', async () => {
    const checkpoints = t.app.get(SqliteCheckpoints);
    await ds.query('CREATE TABLE checkpoint_probe (id INTEGER PRIMARY KEY, body TEXT)');
    // about 6 MB through the log: past the 1 000 pages at which the connection would checkpoint by itself
    for (let batch = 0; batch < 30; batch++)
      await ds.transaction(async (tx) => {
        for (let i = 0; i < 50; i++)
          await tx.query('INSERT INTO checkpoint_probe (body) VALUES (?)', ['x'.repeat(4000)]);
      });
    expect(walBytes(ds)).toBeGreaterThan(1000 * 4096);
    let run = await checkpoints.nextRun();
    while (run.log === 0 || run.checkpointed < run.log) run = await checkpoints.nextRun();
    expect(run.busy).toBe(0);
    expect(run.checkpointed).toBe(run.log);
    // the log is reused from its start by the next writer once everything in it is in the database
    await ds.query('INSERT INTO checkpoint_probe (body) VALUES (?)', ['after']);
    const [{ n }] = await ds.query<{ n: number }[]>('SELECT count(*) AS n FROM checkpoint_probe');
    expect(n).toBe(1501);
  });

  it('checks again soon while a long log is written, then waits the interval once it is copied', async () => {
    const checkpoints = t.app.get(SqliteCheckpoints);
    await ds.query('CREATE TABLE follow_up_probe (id INTEGER PRIMARY KEY, body TEXT)');
    // one commit of about 1 500 pages: a log past the threshold at once
    await ds.transaction(async (tx) => {
      for (let i = 0; i < 1500; i++)
        await tx.query('INSERT INTO follow_up_probe (body) VALUES (?)', ['y'.repeat(4000)]);
    });
    let run = await checkpoints.nextRun();
    while (run.log <= SQLITE_CHECKPOINT_FOLLOW_UP_FRAMES) run = await checkpoints.nextRun();
    expect(run.nextInMilliseconds).toBe(SQLITE_CHECKPOINT_FOLLOW_UP_MS);
    // nothing more written: once a run finds the same log as the run before, copied whole, the next waits the
    // full interval
    let previous = run;
    run = await checkpoints.nextRun();
    let seen = 2; // runs seen: the one above and this one
    while (!(run.log === previous.log && run.checkpointed === run.log)) {
      [previous, run] = [run, await checkpoints.nextRun()];
      seen++;
    }
    expect(run.nextInMilliseconds).toBe(SQLITE_CHECKPOINT_INTERVAL_MS);
    expect(seen).toBeLessThan(10);
  });

  it('never holds the process: a service nobody closed does not keep it from ending', async () => {
    const ports = () => process.getActiveResourcesInfo().filter((r) => r === 'MessagePort').length;
    const before = ports();
    const other = await startTestApp('sqlite');
    try {
      expect(other.app.get(SqliteCheckpoints).running).toBe(true);
      // a ref'd thread shows as a MessagePort among the resources that keep the event loop alive
      expect(ports()).toBe(before);
    } finally {
      await other.close();
    }
  });

  it('stops the thread when the service stops', async () => {
    const other = await startTestApp('sqlite');
    const checkpoints = other.app.get(SqliteCheckpoints);
    expect(checkpoints.running).toBe(true);
    await other.close();
    expect(checkpoints.running).toBe(false);
  });
});
