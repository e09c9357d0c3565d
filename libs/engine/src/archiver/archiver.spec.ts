import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ArchiverWarning, CaptureFlusher } from '@app/capture-queues';
import { ALL_PERMISSIONS, Actor } from '@app/access';
import { createEngineModel, DemoLikeModel, transaction } from '../../../../test/factories/engine.factory';
import { createUser, landlordActor } from '../../../../test/factories/identity.factory';
import { signIn } from '../../../../test/support/auth';
import { TEST_PROVIDERS, TestProvider } from '../../../../test/support/databases';
import { startTestApp, TestApp } from '../../../../test/support/test-app';
import { CaseCreationService } from '../case-creation/case-creation.service';
import {
  ArchiverStagePerformanceCounter,
  CaseRecord,
  EntityAnalysisModel,
  EntityAnalysisModelArchive,
} from '../entities';
import { InvokeService } from '../invoke/invoke.service';
import { StageRollupService } from '../rollups/stage-rollup.service';
import { ArchiverStage } from '../telemetry/stages';
import { ArchiverService } from './archiver.service';

/** A real refusal by the database (not a mock): a trigger that refuses archive rows with this EntryReference. */
const REFUSED_REFERENCE = 'refuse-me';

async function refuseArchiveRows(ds: DataSource, provider: TestProvider, condition: string): Promise<void> {
  if (provider === 'sqlite') {
    await ds.query(
      `CREATE TRIGGER refuse_archive BEFORE INSERT ON "EntityAnalysisModelArchive" WHEN ${condition}
       BEGIN SELECT RAISE(ABORT, 'refused by the test trigger'); END`,
    );
  } else {
    await ds.query(
      `CREATE OR REPLACE FUNCTION refuse_archive() RETURNS trigger AS $$
       BEGIN IF ${condition} THEN RAISE EXCEPTION 'refused by the test trigger'; END IF; RETURN NEW; END
       $$ LANGUAGE plpgsql`,
    );
    await ds.query(
      `CREATE TRIGGER refuse_archive BEFORE INSERT ON "EntityAnalysisModelArchive"
       FOR EACH ROW EXECUTE FUNCTION refuse_archive()`,
    );
  }
}

async function allowArchiveRows(ds: DataSource, provider: TestProvider): Promise<void> {
  await ds.query(
    provider === 'sqlite'
      ? 'DROP TRIGGER refuse_archive'
      : 'DROP TRIGGER refuse_archive ON "EntityAnalysisModelArchive"',
  );
}

describe.each(TEST_PROVIDERS)('the Archiver never loses an accepted invocation, on %s', (provider) => {
  let t: TestApp;
  let ds: DataSource;
  let actor: Actor;
  let archiver: ArchiverService;
  let invoker: InvokeService;
  let model: DemoLikeModel;
  let token: string;

  beforeAll(async () => {
    // No timer-driven bulk copy during a test: each test copies when it means to.
    t = await startTestApp(provider, {
      ArchiveBulkCopyIntervalMilliseconds: '600000',
      CaptureQueueFlushIntervalMilliseconds: '3600000',
      StageRollupIntervalMilliseconds: '3600000',
    });
    ds = t.app.get(DataSource);
    actor = await landlordActor(t.app);
    archiver = t.app.get(ArchiverService);
    invoker = t.app.get(InvokeService);
    model = await createEngineModel(t.app, actor, { rules: [{ condition: true, status: 0 }] });
    const user = await createUser(t.app, {
      tenantGuid: actor.tenantGuid,
      permissions: [...ALL_PERMISSIONS],
    });
    token = (await signIn(t.url, user.name, user.password)).token;
  });
  afterAll(() => t.close());

  const modelId = async () =>
    (await ds.getRepository(EntityAnalysisModel).findOneByOrFail({ Guid: model.model.guid })).Id;
  const archiveRow = (entryGuid: string) =>
    ds
      .getRepository(EntityAnalysisModelArchive)
      .findOneBy({ EntityAnalysisModelInstanceEntryGuid: entryGuid });
  const casesOf = (entryGuid: string) =>
    ds.getRepository(CaseRecord).countBy({ EntityAnalysisModelInstanceEntryGuid: entryGuid });
  const warnings = async (stage: ArchiverStage) => {
    await t.app.get(CaptureFlusher).flush();
    return ds
      .getRepository(ArchiverWarning)
      .findBy({ StageId: stage, EntityAnalysisModelGuid: model.model.guid });
  };
  const reprocess = (entryGuid: string) =>
    request(t.url)
      .post(`/api/Invoke/EntityAnalysisModel/${model.model.guid}/Reprocess/${entryGuid}`)
      .set('authorization', `Bearer ${token}`);

  /** Resolves once the Archiver's consumer has handled the entry (it sits in the buffer, not yet copied). */
  async function buffered(entryGuid: string): Promise<void> {
    await archiver.consumed();
    expect(archiver.isBuffered(model.model.guid, entryGuid)).toBe(true);
  }

  it('creates a case only once the bulk copy holding its archive row has committed (no case points at a missing entry)', async () => {
    const answer = await invoker.invoke(actor, model.model.guid, transaction('ACC-ORDER', 10));
    expect(answer.activations).toHaveLength(1);
    const entry = answer.entityAnalysisModelInstanceEntryGuid;
    await buffered(entry);
    await t.app.get(CaseCreationService).idle();
    expect(await archiveRow(entry)).toBeNull();
    expect(await casesOf(entry)).toBe(0);

    await archiver.bulkCopy();
    await t.app.get(CaseCreationService).idle();
    expect(await archiveRow(entry)).not.toBeNull();
    expect(await casesOf(entry)).toBe(1);
  });

  it('a row the database refuses becomes an error row: the case points at it, a warning says so, and it can be reprocessed', async () => {
    await refuseArchiveRows(ds, provider, `NEW."EntryReference" = '${REFUSED_REFERENCE}'`);
    try {
      await invoker.invoke(actor, model.model.guid, transaction('ACC-GOOD', 1));
      const refused = await invoker.invoke(actor, model.model.guid, {
        ...transaction('ACC-REFUSED', 1),
        transactionId: REFUSED_REFERENCE,
      });
      expect(refused.entryReference).toBe(REFUSED_REFERENCE);
      await archiver.drain();
    } finally {
      await allowArchiveRows(ds, provider);
    }
    const rows = await ds.getRepository(EntityAnalysisModelArchive).find({ order: { Id: 'DESC' }, take: 2 });
    const errorRow = rows.find((r) => r.Json.includes('ACC-REFUSED'));
    expect(errorRow).toBeDefined();
    expect(errorRow!.EntryReference).toBeNull();
    const json = JSON.parse(errorRow!.Json) as {
      request: { transactionId: string };
      archiveError: unknown;
    };
    expect(json.request.transactionId).toBe(REFUSED_REFERENCE);
    expect(json.archiveError).toEqual({
      stage: 'BulkCopyArchiveBuffer',
      reason: expect.any(String) as string,
    });
    expect(rows.find((r) => r.Json.includes('ACC-GOOD'))?.EntryReference).toMatch(/^tx-/);
    expect(await casesOf(errorRow!.EntityAnalysisModelInstanceEntryGuid)).toBe(1);
    expect((await warnings(ArchiverStage.BulkCopyArchiveBuffer)).length).toBeGreaterThanOrEqual(1);
    const again = await reprocess(errorRow!.EntityAnalysisModelInstanceEntryGuid);
    expect(again.status).toBe(200);
    expect(again.body.caseOutcomes).toEqual(['unchanged']);
  });

  it('a row whose error row is refused too raises no case, and is counted as lost', async () => {
    const entryGuid = randomUUID();
    await refuseArchiveRows(ds, provider, `NEW."EntityAnalysisModelInstanceEntryGuid" = '${entryGuid}'`);
    const lost = archiver.lostRows;
    try {
      archiver.enqueue({
        modelId: await modelId(),
        modelGuid: model.model.guid,
        enableRdbmsArchive: true,
        entryGuid,
        entryReference: 'tx-lost',
        referenceDate: new Date(),
        payload: { request: {} },
        cases: [],
      });
      await archiver.drain();
    } finally {
      await allowArchiveRows(ds, provider);
    }
    expect(await archiveRow(entryGuid)).toBeNull();
    expect(archiver.lostRows).toBe(lost + 1);
  });

  it('a payload that cannot be serialised is archived as an error row, with its warning and its duration, and refuses reprocessing', async () => {
    // The invoke accepts nothing JSON.stringify refuses (its bodies are parsed JSON, 64 levels at most), so
    // the Archiver is handed such a payload directly.
    const entryGuid = randomUUID();
    const before = (await warnings(ArchiverStage.BuildArchiveJson)).length;
    archiver.enqueue({
      modelId: await modelId(),
      modelGuid: model.model.guid,
      enableRdbmsArchive: true,
      entryGuid,
      entryReference: 'tx-bigint',
      referenceDate: new Date(),
      payload: { entityAnalysisModelInstanceEntryGuid: entryGuid, request: { amount: BigInt(1) } },
      cases: [],
    });
    await archiver.drain();
    const row = await archiveRow(entryGuid);
    expect(row).not.toBeNull();
    const json = JSON.parse(row!.Json) as Record<string, unknown>;
    expect(json.request).toBeUndefined();
    expect(json.archiveError).toEqual({ stage: 'BuildArchiveJson', reason: expect.any(String) as string });
    expect(json.entityAnalysisModelInstanceEntryGuid).toBe(entryGuid);
    expect((await warnings(ArchiverStage.BuildArchiveJson)).length).toBe(before + 1);
    await t.app.get(StageRollupService).flush();
    const rollups = await ds
      .getRepository(ArchiverStagePerformanceCounter)
      .findBy({ EntityAnalysisModelGuid: model.model.guid, StageId: ArchiverStage.BuildArchiveJson });
    expect(rollups.reduce((n, r) => n + Number(r.InvokeCount), 0)).toBeGreaterThanOrEqual(1);
    const again = await reprocess(entryGuid);
    expect(again.status).toBe(409);
  });

  if (provider === 'postgres')
    it('on PostgreSQL, U+0000 in an entry reference (refused by the database) still ends with an archive row and its case', async () => {
      const answer = await invoker.invoke(actor, model.model.guid, {
        ...transaction('ACC-PG-NUL', 1),
        transactionId: 'tx\u0000nul',
      });
      await archiver.drain();
      const row = await archiveRow(answer.entityAnalysisModelInstanceEntryGuid);
      expect(row?.EntryReference).toBeNull();
      expect(await casesOf(answer.entityAnalysisModelInstanceEntryGuid)).toBe(1);
    });
});
