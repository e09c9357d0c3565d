import { randomUUID } from 'node:crypto';
import { DataSource, IsNull } from 'typeorm';
import { Actor, Permission } from '@app/access';
import {
  ArchiverService,
  CaseActivation,
  CaseCreationService,
  CaseRecord,
  CaseWorkflow,
  CaseWorkflowStatus,
  InvokeService,
} from '@app/engine';
import { CaseRepository } from '../../libs/engine/src/case-creation/case.repository';
import { createEngineModel, transaction } from '../factories/engine.factory';
import { createUser } from '../factories/identity.factory';
import { SQLITE_AND_POSTGRES } from '../support/databases';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Case creation in batches keeps the spec's case semantics (one open case per workflow, key
 * and value; a lower priority number supersedes, never the reverse; each key's activations in arrival order)
 * under concurrency, on both databases.
 */
describe.each(SQLITE_AND_POSTGRES)('case creation in batches on %s', (provider) => {
  let t: TestApp;
  let ds: DataSource;
  let actor: Actor;
  beforeAll(async () => {
    t = await startTestApp(provider, { ArchiveBulkCopyIntervalMilliseconds: '20' });
    ds = t.app.get(DataSource);
    actor = (
      await createUser(t.app, {
        permissions: [Permission.ReadWriteModel, Permission.ReadWriteCaseWorkflow, Permission.Invoke],
      })
    ).actor;
  });
  afterAll(() => t.close());

  /** A model whose amount below 1000 raises Low (priority 5), from 1000 High (priority 1). */
  const twoPriorities = async () => {
    const made = await createEngineModel(t.app, actor, {
      statuses: [
        { name: 'Low', priority: 5 },
        { name: 'High', priority: 1 },
      ],
      rules: [
        { condition: { '<': [{ var: 'Amount' }, 1000] }, status: 0 },
        { condition: { '>=': [{ var: 'Amount' }, 1000] }, status: 1 },
      ],
    });
    const workflow = await ds.getRepository(CaseWorkflow).findOneByOrFail({ Guid: made.workflowGuid });
    const [low, high] = await Promise.all(
      made.statuses.map((s) => ds.getRepository(CaseWorkflowStatus).findOneByOrFail({ Guid: s.guid })),
    );
    return { model: made.model, workflow, low, high };
  };
  const openCases = (value: string) =>
    ds.getRepository(CaseRecord).findBy({ CaseKeyValue: value, ClosedDate: IsNull() });

  it('two invocations for the same key in flight: one open case, and the higher priority wins', async () => {
    const { model, high } = await twoPriorities();
    const invoker = t.app.get(InvokeService);
    for (const order of [
      [10, 5000],
      [5000, 10],
    ]) {
      const value = `ACC-FLIGHT-${order[0]}`;
      await Promise.all(order.map((amount) => invoker.invoke(actor, model.guid, transaction(value, amount))));
      await t.app.get(ArchiverService).drain();
      const cases = await openCases(value);
      expect(cases).toHaveLength(1);
      expect(cases[0]).toMatchObject({ Priority: 1, CaseWorkflowStatusId: high.Id });
    }
  });

  it('within one batch, each key in arrival order: inserted, upgraded, unchanged; other keys apart', async () => {
    const { model, workflow, low, high } = await twoPriorities();
    const activation = (value: string, statusId: number): CaseActivation => ({
      caseWorkflow: { id: workflow.Id, guid: workflow.Guid, name: workflow.Name },
      caseWorkflowStatusId: statusId,
      caseKey: 'AccountId',
      caseKeyValue: value,
      entityAnalysisModelGuid: model.guid,
      entityAnalysisModelInstanceEntryGuid: randomUUID(),
      fields: {},
    });
    const service = t.app.get(CaseCreationService);
    // Queued in the same turn: one batch.
    const outcomes = await Promise.all([
      service.run(activation('ACC-BATCH-A', low.Id)),
      service.run(activation('ACC-BATCH-B', high.Id)),
      service.run(activation('ACC-BATCH-A', high.Id)),
      service.run(activation('ACC-BATCH-A', low.Id)),
      service.run(activation('ACC-BATCH-B', low.Id)),
    ]);
    expect(outcomes).toEqual(['inserted', 'inserted', 'upgraded', 'unchanged', 'unchanged']);
    // The next batch starts from what the last one left.
    expect(await service.run(activation('ACC-BATCH-A', low.Id))).toBe('unchanged');
    for (const value of ['ACC-BATCH-A', 'ACC-BATCH-B']) {
      const cases = await openCases(value);
      expect(cases).toHaveLength(1);
      expect(cases[0].Priority).toBe(1);
    }
  });

  it('50 concurrent upserts of one case (as from 50 nodes): one open case, at the best priority offered', async () => {
    const { workflow, low } = await twoPriorities();
    const repo = t.app.get(CaseRepository);
    const priorities = Array.from({ length: 50 }, (_, i) => ((i * 17) % 50) + 1);
    const answers = await Promise.all(
      priorities.map((Priority) =>
        repo.upsert([
          {
            CaseWorkflowId: workflow.Id,
            CaseKey: 'AccountId',
            CaseKeyValue: 'ACC-NODES-50',
            Guid: randomUUID(),
            CaseWorkflowStatusId: low.Id,
            Priority,
            EntityAnalysisModelInstanceEntryGuid: randomUUID(),
            At: new Date(),
          },
        ]),
      ),
    );
    const cases = await openCases('ACC-NODES-50');
    expect(cases).toHaveLength(1);
    expect(cases[0].Priority).toBe(1);
    // Whoever wrote it said so; the one that offered 1 always did.
    expect(answers[priorities.indexOf(1)]).toEqual([expect.objectContaining({ Guid: cases[0].Guid })]);
    expect(answers.filter((a) => a.length).length).toBeGreaterThanOrEqual(1);
  });
});
