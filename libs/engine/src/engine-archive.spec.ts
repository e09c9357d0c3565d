import { DataSource } from 'typeorm';
import { Actor } from '@app/access';
import { ProblemException } from '@app/problems';
import { createEngineModel, transaction } from '../../../test/factories/engine.factory';
import { TEST_PROVIDERS } from '../../../test/support/databases';
import { ARCHIVER_CAPACITY, engineApp } from '../../../test/support/engine-app';
import type { TestApp } from '../../../test/support/test-app';
import { ArchiverService } from './archiver/archiver.service';
import { ModelService } from './configuration/model.service';
import { ArchiverStagePerformanceCounter, EntityAnalysisModel, EntityAnalysisModelArchive } from './entities';
import { InvokeService } from './invoke/invoke.service';
import { StageRollupService } from './rollups/stage-rollup.service';
import { ArchiverStage } from './telemetry/stages';

/** The archive: reprocessing an archived entry, and the Archiver queue's back-pressure (503) and rollups. */
describe.each(TEST_PROVIDERS)('decisioning engine: archive on %s', (provider) => {
  const f = engineApp(provider);
  const { keys, flush, counterSince, lastMetricId, http, casesOf } = f;
  let t: TestApp;
  let actor: Actor;
  let archiver: ArchiverService;
  let invoker: InvokeService;
  let ds: DataSource;
  beforeAll(() => {
    ({ t, actor, archiver, invoker, ds } = f);
  });

  it('reprocessing re-runs an archived entry with synchronous case creation and updates its archive row in place', async () => {
    const { model, rules } = await createEngineModel(t.app, actor, {
      rules: [{ condition: { '>': [{ var: 'Amount' }, 1_000_000] }, status: 0 }],
    });
    const first = await invoker.invoke(actor, model.guid, transaction('ACC-RE', 500));
    expect(first.activations).toEqual([]);
    await archiver.drain();
    const archive = ds.getRepository(EntityAnalysisModelArchive);
    const before = await archive.findOneByOrFail({
      EntityAnalysisModelInstanceEntryGuid: first.entityAnalysisModelInstanceEntryGuid,
    });
    expect(before.UpdatedDate).toBeNull();
    expect(await casesOf('ACC-RE')).toHaveLength(0);

    // The rule changes; reprocessing the same entry now activates it.
    await t.app
      .get(ModelService)
      .updateRule(actor, model.guid, rules[0].guid, { condition: { '>': [{ var: 'Amount' }, 100] } });
    const res = await http()
      .post(
        `/api/Invoke/EntityAnalysisModel/${model.guid}/Reprocess/${first.entityAnalysisModelInstanceEntryGuid}`,
      )
      .set('x-api-key', keys.get('engineer')!);
    expect(res.status).toBe(200);
    const body = res.body as {
      entityAnalysisModelInstanceEntryGuid: string;
      activations: unknown[];
      caseOutcomes: string[];
    };
    expect(body.entityAnalysisModelInstanceEntryGuid).toBe(first.entityAnalysisModelInstanceEntryGuid);
    expect(body.activations).toHaveLength(1);
    expect(body.caseOutcomes).toEqual(['inserted']);
    // Synchronous: the case exists when the response arrives, without waiting for any queue.
    expect(await casesOf('ACC-RE')).toHaveLength(1);
    const after = await archive.find({
      where: { EntityAnalysisModelInstanceEntryGuid: first.entityAnalysisModelInstanceEntryGuid },
    });
    expect(after).toHaveLength(1);
    expect(after[0].Id).toBe(before.Id);
    expect(after[0].CreatedDate.getTime()).toBe(before.CreatedDate.getTime());
    expect(after[0].UpdatedDate).not.toBeNull();
    const json = JSON.parse(after[0].Json) as { activations: unknown[]; reprocessedDate?: string };
    expect(json.activations).toHaveLength(1);
    expect(json.reprocessedDate).toBeDefined();

    const unknown = await http()
      .post(`/api/Invoke/EntityAnalysisModel/${model.guid}/Reprocess/00000000-0000-4000-8000-000000000000`)
      .set('x-api-key', keys.get('engineer')!);
    expect(unknown.status).toBe(404);
  });

  it('answers 503 with Retry-After when the Archiver queue is full, leaving no archive row, case or rollup behind', async () => {
    await archiver.drain();
    await t.app.get(StageRollupService).flush();
    const { model } = await createEngineModel(t.app, actor, {
      model: { logsWarnThresholdMilliseconds: 0 },
      rules: [{ condition: true, status: 0 }],
    });
    archiver.pause();
    const accepted: string[] = [];
    try {
      for (let i = 0; i < ARCHIVER_CAPACITY; i++)
        accepted.push(
          (await invoker.invoke(actor, model.guid, transaction(`ACC-OK-${i}`, i)))
            .entityAnalysisModelInstanceEntryGuid,
        );
      await flush();
      const mark = await lastMetricId();
      const rejected = await http()
        .post(`/api/Invoke/EntityAnalysisModel/${model.guid}`)
        .set('x-api-key', keys.get('engineer')!)
        .send(transaction('ACC-REJECTED', 1, { transactionId: 'tx-rejected' }));
      expect(rejected.status).toBe(503);
      expect(rejected.headers['retry-after']).toBe('1');
      expect(rejected.headers['content-type']).toContain('application/problem+json');
      await expect(invoker.invoke(actor, model.guid, transaction('ACC-REJECTED', 2))).rejects.toBeInstanceOf(
        ProblemException,
      );
      // Not even a trace warning: the answer came before the pipeline ran.
      await flush();
      expect(await counterSince('service.engine.logs.warn.count', mark)).toBe(0);
    } finally {
      archiver.resume();
    }
    await archiver.drain();
    await t.app.get(StageRollupService).flush();
    const archive = ds.getRepository(EntityAnalysisModelArchive);
    const rows = await archive.find({
      where: {
        EntityAnalysisModelId: (
          await ds.getRepository(EntityAnalysisModel).findOneByOrFail({ Guid: model.guid })
        ).Id,
      },
    });
    expect(rows.map((r) => r.EntityAnalysisModelInstanceEntryGuid).sort()).toEqual([...accepted].sort());
    // Dates and text survive the dialect's bulk path exactly.
    for (const r of rows) {
      expect(r.ReferenceDate.toISOString()).toBe('2026-01-02T03:04:05.000Z');
      expect(Math.abs(r.CreatedDate.getTime() - Date.now())).toBeLessThan(60_000);
      expect(r.UpdatedDate).toBeNull();
      expect(r.EntryReference).toMatch(/^tx-/);
      expect((JSON.parse(r.Json) as { request: { amount: number } }).request.amount).toEqual(
        expect.any(Number),
      );
    }
    expect(await archive.countBy({ EntryReference: 'tx-rejected' })).toBe(0);
    expect(await casesOf('ACC-REJECTED')).toHaveLength(0);
    expect(await casesOf('ACC-OK-0')).toHaveLength(1);
    // Rollups: per stage, exactly the accepted invocations (stage 4 ran once, for the one batch: its time once,
    // its rows as the invocations it handled).
    const counters = await ds
      .getRepository(ArchiverStagePerformanceCounter)
      .find({ where: { EntityAnalysisModelGuid: model.guid } });
    const byStage = new Map(counters.map((c) => [c.StageId, c]));
    for (const stage of [
      ArchiverStage.BuildArchiveJson,
      ArchiverStage.CaseCreationDispatch,
      ArchiverStage.RdbmsArchiveWrite,
      ArchiverStage.BulkCopyArchiveBuffer,
    ])
      expect(byStage.get(stage)?.InvokeCount).toBe(ARCHIVER_CAPACITY);
    const c4 = byStage.get(ArchiverStage.BulkCopyArchiveBuffer);
    expect(c4?.MinMicroseconds).toBe(c4?.MaxMicroseconds);
    expect(c4?.TotalMicroseconds).toBe(c4?.MaxMicroseconds);
    expect(counters).toHaveLength(4);
    const c1 = byStage.get(ArchiverStage.BuildArchiveJson);
    expect(c1?.StageName).toBe('BuildArchiveJson');
    expect(c1?.Instance).toBe(t.settings.InstanceName);
    expect(c1?.MinMicroseconds).toBeLessThanOrEqual(c1?.MaxMicroseconds ?? -1);
    expect(c1?.TotalMicroseconds).toBeGreaterThanOrEqual(c1?.MaxMicroseconds ?? Infinity);
  });
});
