import request from 'supertest';
import { DataSource } from 'typeorm';
import { sqliteRowSpan } from '@app/database';
import { Actor, Permission } from '@app/access';
import { ArchiverService, InvokeService } from '@app/engine';
import { DatabaseSizeGauges, SIZED_TABLES } from '@app/telemetry';
import { createEngineModel, transaction } from './factories/engine.factory';
import { createUser, landlordActor } from './factories/identity.factory';
import { signIn } from './support/auth';
import { SQLITE_AND_POSTGRES } from './support/databases';
import { freePort } from './support/free-port';
import { samples } from './support/prometheus';
import { startTestApp, TestApp } from './support/test-app';

const ROWS = 300;

/**
 * Sizes an operator can see: rows and bytes per table from the database's own statistics (never a count), on
 * the scrape with their units and at GET /api/Runtime (the console's home page).
 */
describe.each(SQLITE_AND_POSTGRES)('database sizes on %s', (provider) => {
  let t: TestApp;
  let promPort: number;
  let actor: Actor;
  beforeAll(async () => {
    promPort = await freePort();
    t = await startTestApp(provider, {
      EnableOpenTelemetry: 'True',
      OpenTelemetryPrometheusPort: String(promPort),
      ArchiveBulkCopyIntervalMilliseconds: '20',
    });
    actor = (
      await createUser(t.app, {
        permissions: [Permission.ReadWriteModel, Permission.ReadWriteCaseWorkflow, Permission.Invoke],
      })
    ).actor;
  });
  afterAll(() => t.close());

  it('estimates the archive it holds, exports rows and bytes with their units, and answers them to the landlord', async () => {
    const { model } = await createEngineModel(t.app, actor);
    for (let i = 0; i < ROWS; i++)
      await t.app.get(InvokeService).invoke(actor, model.guid, transaction(`ACC-SIZE-${i}`, i));
    await t.app.get(ArchiverService).drain();
    // PostgreSQL's estimate is its statistics: autovacuum's ANALYZE in production, here at once
    if (provider === 'postgres') await t.app.get(DataSource).query('ANALYZE');
    const gauges = t.app.get(DatabaseSizeGauges);
    await gauges.refresh();
    const archive = gauges.lastReading()!.tables.find((x) => x.table === 'EntityAnalysisModelArchive')!;
    // an estimate from a sample: within a fifth of the truth
    expect(archive.rows).toBeGreaterThanOrEqual(ROWS * 0.8);
    expect(archive.rows).toBeLessThanOrEqual(ROWS * 1.2);
    if (provider === 'postgres') expect(archive.bytes).toBeGreaterThan(ROWS * 100);
    else expect(archive.bytes).toBeNull();
    expect(gauges.lastReading()!.bytes).toBeGreaterThan(0);
    if (provider === 'sqlite') {
      // each table's estimate is two look-ups at its b-tree's ends, never a walk of the table (SCAN) that grows
      // with it and holds the event loop while it runs
      for (const table of SIZED_TABLES) {
        const plan = await t.app
          .get(DataSource)
          .query<{ detail: string }[]>(`EXPLAIN QUERY PLAN ${sqliteRowSpan(table)}`);
        const details = plan.map((p) => p.detail);
        expect(details.filter((d) => d.startsWith('SEARCH'))).toHaveLength(2);
        expect(details.filter((d) => d.startsWith('SCAN') && d !== 'SCAN CONSTANT ROW')).toEqual([]);
      }
    }

    const text = await (await fetch(`http://127.0.0.1:${promPort}/metrics`)).text();
    expect(text).toContain('# UNIT service_database_table_rows {row}');
    expect(text).toContain('# UNIT service_database_size By');
    const rows = samples(text).find(
      (s) => s.name === 'service_database_table_rows' && s.labels.table === 'EntityAnalysisModelArchive',
    );
    expect(rows?.value).toBe(archive.rows);
    if (provider === 'postgres') expect(text).toContain('# UNIT service_database_table_size By');

    const landlord = await createUser(t.app, { tenantGuid: (await landlordActor(t.app)).tenantGuid });
    const token = (await signIn(t.url, landlord.name, landlord.password)).token;
    const res = await request(t.url).get('/api/Runtime').set('Authorization', `Bearer ${token}`).expect(200);
    expect(res.body.database.tables.map((x: { table: string }) => x.table)).toEqual([...SIZED_TABLES]);
    expect(res.body.database.tables).toContainEqual({
      table: 'EntityAnalysisModelArchive',
      rows: archive.rows,
      bytes: archive.bytes,
    });
    expect(Date.parse(res.body.database.readAt)).toBeGreaterThan(0);
  });
});
