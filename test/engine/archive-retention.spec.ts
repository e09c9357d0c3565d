import request from 'supertest';
import { DataSource, In } from 'typeorm';
import { AdminEvent } from '@app/audit';
import { Actor, Permission } from '@app/access';
import { ManualClock } from '@app/runtime';
import {
  ArchivePurgeService,
  ArchiverService,
  EntityAnalysisModel,
  EntityAnalysisModelArchive,
  InvokeService,
} from '@app/engine';
import { createEngineModel, transaction } from '../factories/engine.factory';
import { createUser } from '../factories/identity.factory';
import { signIn } from '../support/auth';
import { SQLITE_AND_POSTGRES } from '../support/databases';
import { startTestApp, TestApp } from '../support/test-app';

const DAY = 86_400_000;

/**
 * The archive's lifecycle: rows older than their retention are purged, except those an open case names; a
 * Model's archiveRetentionDays overrides the ArchiveRetentionInterval settings (0: for ever); reprocessing a
 * purged entry answers a 404 that says it is past retention; a change of a model's retention is on the
 * administrators' trail.
 */
describe.each(SQLITE_AND_POSTGRES)('archive retention on %s', (provider) => {
  const clock = new ManualClock(Date.now());
  let t: TestApp;
  let ds: DataSource;
  let actor: Actor;
  let credentials: { name: string; password: string };
  /** A session started at the test clock's present (the clock moves by days between tests). */
  const bearer = async () => `Bearer ${(await signIn(t.url, credentials.name, credentials.password)).token}`;
  beforeAll(async () => {
    t = await startTestApp(
      provider,
      {
        ArchiveRetentionInterval: 'd',
        ArchiveRetentionIntervalValue: '30',
        // run by the test (purge()), so nothing runs behind its back
        ArchivePurgeIntervalMilliseconds: '86400000',
      },
      { clock },
    );
    ds = t.app.get(DataSource);
    const user = await createUser(t.app, {
      permissions: [Permission.ReadWriteModel, Permission.ReadWriteCaseWorkflow, Permission.Invoke],
    });
    actor = user.actor;
    credentials = user;
  });
  afterAll(() => t.close());

  /** A model whose rule raises a case above an amount of 100; `days`: its own retention. */
  const model = async (days?: number | null) =>
    (
      await createEngineModel(t.app, actor, {
        model: days === undefined ? {} : { archiveRetentionDays: days },
        rules: [{ condition: { '>': [{ var: 'Amount' }, 100] }, status: 0 }],
      })
    ).model;
  const invoke = async (guid: string, account: string, amount: number) =>
    (await t.app.get(InvokeService).invoke(actor, guid, transaction(account, amount)))
      .entityAnalysisModelInstanceEntryGuid;
  const archived = async (entries: string[]) =>
    (
      await ds
        .getRepository(EntityAnalysisModelArchive)
        .findBy({ EntityAnalysisModelInstanceEntryGuid: In(entries) })
    )
      .map((r) => r.EntityAnalysisModelInstanceEntryGuid)
      .sort();

  it('purges what is past retention, keeps what an open case names, and a model may keep longer or for ever', async () => {
    const settingsOnly = await model();
    const forEver = await model(0);
    const sixtyDays = await model(60);
    // settingsOnly: the case names its inserting entry; a later entry without activation, and one whose
    // priority does not beat the case's, are named by nothing
    const named = await invoke(settingsOnly.guid, `ACC-RET-${provider}`, 500);
    const unnamed = [
      await invoke(settingsOnly.guid, `ACC-RET-${provider}`, 5),
      await invoke(settingsOnly.guid, `ACC-RET-${provider}`, 600),
    ];
    const kept = [await invoke(forEver.guid, 'ACC-FOREVER', 5), await invoke(sixtyDays.guid, 'ACC-60', 5)];
    await t.app.get(ArchiverService).drain();
    const purge = t.app.get(ArchivePurgeService);

    clock.advance(29 * DAY);
    expect((await purge.purge()).deleted).toBe(0);
    clock.advance(2 * DAY);
    const run = await purge.purge();
    expect(run.deleted).toBeGreaterThanOrEqual(2);
    expect(run.kept).toBeGreaterThanOrEqual(1);
    expect(await archived([named, ...unnamed, ...kept])).toEqual([named, ...kept].sort());

    clock.advance(30 * DAY); // 61 days: the 60-day model's row goes, the for-ever one stays
    await purge.purge();
    expect(await archived([named, ...kept])).toEqual([named, kept[0]].sort());
  });

  it('reprocessing a purged entry answers 404 saying it is past retention; an unknown entry a plain 404', async () => {
    const m = await model();
    const entry = await invoke(m.guid, 'ACC-REPROCESS', 5);
    await t.app.get(ArchiverService).drain();
    clock.advance(31 * DAY);
    await t.app.get(ArchivePurgeService).purge();
    const auth = await bearer();
    const reprocess = (e: string) =>
      request(t.url)
        .post(`/api/Invoke/EntityAnalysisModel/${m.guid}/Reprocess/${e}`)
        .set('Authorization', auth);
    const past = await reprocess(entry);
    expect(past.status).toBe(404);
    expect(past.body).toMatchObject({
      type: 'urn:problem-type:not-found',
      detail: "The entry is past the archive's retention (30 days): it was purged and cannot be reprocessed.",
    });
    const unknown = await reprocess('00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toBe('The archived entry does not exist or is not visible to you.');
  });

  it("a model's retention is changed over HTTP like any field, and its AdminEvent row says so", async () => {
    const m = await model();
    const auth = await bearer();
    const res = await request(t.url)
      .put(`/api/EntityAnalysisModel/${m.guid}`)
      .set('Authorization', auth)
      .send({ archiveRetentionDays: 90 });
    expect(res.status).toBe(200);
    expect(res.body.archiveRetentionDays).toBe(90);
    const row = await ds.getRepository(EntityAnalysisModel).findOneByOrFail({ Guid: m.guid });
    expect(row.ArchiveRetentionDays).toBe(90);
    const events = await ds.getRepository(AdminEvent).findBy({ TargetGuid: m.guid });
    expect(events.map((e) => JSON.parse(e.Changes ?? '[]') as { field: string }[]).flat()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'ArchiveRetentionDays', old: null, new: 90 }),
      ]),
    );
    const refused = await request(t.url)
      .put(`/api/EntityAnalysisModel/${m.guid}`)
      .set('Authorization', auth)
      .send({ archiveRetentionDays: -1 });
    expect(refused.status).toBe(400);
  });
});
