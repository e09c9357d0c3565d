import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { CaseCreationWarning } from '@app/capture-queues';
import { Actor } from '@app/access';
import { createEngineModel, transaction } from '../../../test/factories/engine.factory';
import { TEST_PROVIDERS } from '../../../test/support/databases';
import { CASE_WARN_MS, engineApp, GUID_V7, type EngineApp } from '../../../test/support/engine-app';
import type { TestApp } from '../../../test/support/test-app';
import { ArchiverService } from './archiver/archiver.service';
import { CaseCreationService } from './case-creation/case-creation.service';
import { CaseRepository } from './case-creation/case.repository';
import { ConfigurationRepository } from './model/configuration.repository';
import {
  CaseCreationStagePerformanceCounter,
  CaseRecord,
  CaseWorkflow,
  CaseWorkflowStatus,
} from './entities';
import { InvokeService } from './invoke/invoke.service';
import { StageRollupService } from './rollups/stage-rollup.service';
import { CaseCreationStage } from './telemetry/stages';

/** Case creation: notifications and callbacks, priorities, concurrent openings, the look-ups, its rollups. */
describe.each(TEST_PROVIDERS)('decisioning engine: case creation on %s', (provider) => {
  const f = engineApp(provider);
  const { flush, counterSince, lastMetricId, casesOf } = f;
  let t: TestApp;
  let actor: Actor;
  let archiver: ArchiverService;
  let invoker: InvokeService;
  let ds: DataSource;
  beforeAll(() => {
    ({ t, actor, archiver, invoker, ds } = f);
  });
  let smtp: EngineApp['smtp'];
  let callbacks: EngineApp['callbacks'];
  beforeAll(() => {
    ({ smtp, callbacks } = f);
  });

  it('notifies by e-mail through SMTP with the tokens filled, and calls the HTTP endpoint', async () => {
    const { model, statuses } = await createEngineModel(t.app, actor, {
      statuses: [
        {
          name: 'Review',
          priority: 3,
          enableNotification: true,
          notificationDestination: '{Email}',
          notificationSubject: 'Case {CaseKeyValue} in {CaseWorkflowStatusName}',
          notificationBody: 'Amount {Amount} from {Country} for {AccountId}.',
          enableHttpEndpoint: true,
          httpEndpointUrl: `${callbacks.url}/hook/{AccountId}`,
          httpEndpointMethod: 'POST',
        },
      ],
      rules: [{ condition: { '>': [{ var: 'Amount' }, 1000] }, status: 0 }],
    });
    const res = await invoker.invoke(actor, model.guid, transaction('ACC-MAIL', 1500));
    await archiver.drain();
    const mail = smtp.mails.find((m) => m.to.includes('acc-mail@example.test'));
    expect(mail).toBeDefined();
    expect(mail?.raw).toContain('Subject: Case ACC-MAIL in Review');
    expect(mail?.raw).toContain('Amount 1500 from DE for ACC-MAIL.');
    const call = callbacks.calls.find((c) => c.url === '/hook/ACC-MAIL');
    expect(call?.method).toBe('POST');
    const payload = JSON.parse(call?.body ?? '{}') as Record<string, unknown>;
    expect(payload).toEqual(
      expect.objectContaining({
        caseKeyValue: 'ACC-MAIL',
        caseWorkflowStatusGuid: statuses[0].guid,
        outcome: 'inserted',
        entityAnalysisModelInstanceEntryGuid: res.entityAnalysisModelInstanceEntryGuid,
      }),
    );
    expect(await casesOf('ACC-MAIL')).toHaveLength(1);
  });

  it('a slow callback past CaseCreationWarnThresholdMilliseconds raises a CaseCreationWarning naming its URL', async () => {
    const { model, workflowGuid } = await createEngineModel(t.app, actor, {
      statuses: [
        {
          name: 'Slow',
          priority: 1,
          enableHttpEndpoint: true,
          httpEndpointUrl: `${callbacks.url}/slow?a={AccountId}`,
          httpEndpointMethod: 'GET',
        },
      ],
      rules: [{ condition: true, status: 0 }],
    });
    await flush();
    const mark = await lastMetricId();
    await invoker.invoke(actor, model.guid, transaction('ACC-SLOW', 1));
    await archiver.drain();
    await flush();
    const warning = await ds.getRepository(CaseCreationWarning).findOneBy({ CaseKeyValue: 'ACC-SLOW' });
    expect(warning).toEqual(
      expect.objectContaining({
        StageId: CaseCreationStage.HttpEndpoint,
        CaseWorkflowGuid: workflowGuid,
        CaseKey: 'AccountId',
        Destination: `${callbacks.url}/slow?a=ACC-SLOW`,
      }),
    );
    expect(warning?.DurationMicroseconds).toBeGreaterThan(CASE_WARN_MS * 1000);
    expect(await counterSince('service.engine.casecreation.warn.count', mark)).toBe(1);
    expect(callbacks.calls.some((c) => c.method === 'GET' && c.url === '/slow?a=ACC-SLOW')).toBe(true);
  });

  it('upgrades a case to a better (lower) priority and never downgrades it; callbacks only on insert and upgrade', async () => {
    const hook = (name: string) => ({
      enableHttpEndpoint: true,
      httpEndpointUrl: `${callbacks.url}/prio/${name}/{AccountId}`,
    });
    const { model, statuses } = await createEngineModel(t.app, actor, {
      statuses: [
        { name: 'Low', priority: 5, ...hook('low') },
        { name: 'High', priority: 1, ...hook('high') },
      ],
      rules: [
        { condition: { '<': [{ var: 'Amount' }, 1000] }, status: 0 },
        { condition: { '>=': [{ var: 'Amount' }, 1000] }, status: 1 },
      ],
    });
    const caseOf = async () => {
      await archiver.drain();
      const rows = await casesOf('ACC-PRIO');
      expect(rows).toHaveLength(1);
      return rows[0];
    };
    await invoker.invoke(actor, model.guid, transaction('ACC-PRIO', 10));
    const inserted = await caseOf();
    expect(inserted.Priority).toBe(5);
    expect(inserted.Guid).toMatch(GUID_V7);
    await invoker.invoke(actor, model.guid, transaction('ACC-PRIO', 5000));
    const upgraded = await caseOf();
    expect(upgraded.Id).toBe(inserted.Id);
    expect(upgraded.Priority).toBe(1);
    expect(upgraded.UpdatedDate).not.toBeNull();
    await invoker.invoke(actor, model.guid, transaction('ACC-PRIO', 20));
    const kept = await caseOf();
    expect(kept.Priority).toBe(1);
    expect(kept.CaseWorkflowStatusId).toBe(upgraded.CaseWorkflowStatusId);
    expect(statuses[1].priority).toBe(1);
    const calls = callbacks.calls.filter((c) => c.url.startsWith('/prio/')).map((c) => c.url);
    expect(calls).toEqual(['/prio/low/ACC-PRIO', '/prio/high/ACC-PRIO']);
  });

  it('two activations for the same workflow/key/value in a burst never race: one case', async () => {
    const { model } = await createEngineModel(t.app, actor, { rules: [{ condition: true, status: 0 }] });
    await Promise.all([0, 1].map((i) => invoker.invoke(actor, model.guid, transaction('ACC-RACE', i))));
    await archiver.drain();
    expect(await casesOf('ACC-RACE')).toHaveLength(1);
  });

  it('another node opening the same case between look-up and insert: the unique open-case index makes it an upgrade', async () => {
    const { model, statuses, workflowGuid } = await createEngineModel(t.app, actor, {
      statuses: [
        { name: 'Low', priority: 5 },
        { name: 'High', priority: 1 },
      ],
    });
    const workflow = await ds.getRepository(CaseWorkflow).findOneByOrFail({ Guid: workflowGuid });
    const [low, high] = await Promise.all(
      statuses.map((st) => ds.getRepository(CaseWorkflowStatus).findOneByOrFail({ Guid: st.guid })),
    );
    // The other node's case, which our look-up does not see yet.
    await ds.getRepository(CaseRecord).insert({
      Guid: randomUUID(),
      CaseWorkflowId: workflow.Id,
      CaseKey: 'AccountId',
      CaseKeyValue: 'ACC-NODES',
      CaseWorkflowStatusId: low.Id,
      Priority: 5,
      EntityAnalysisModelInstanceEntryGuid: randomUUID(),
      CreatedDate: new Date(),
      UpdatedDate: null,
      ClosedDate: null,
    });
    const lookup = jest.spyOn(t.app.get(CaseRepository), 'findOpen').mockResolvedValueOnce([]);
    try {
      const outcome = await t.app.get(CaseCreationService).run({
        caseWorkflow: { id: workflow.Id, guid: workflow.Guid, name: workflow.Name },
        caseWorkflowStatusId: high.Id,
        caseKey: 'AccountId',
        caseKeyValue: 'ACC-NODES',
        entityAnalysisModelGuid: model.guid,
        entityAnalysisModelInstanceEntryGuid: randomUUID(),
        fields: {},
      });
      expect(outcome).toBe('upgraded');
    } finally {
      lookup.mockRestore();
    }
    const rows = await casesOf('ACC-NODES');
    expect(rows).toHaveLength(1);
    expect(rows[0].Priority).toBe(1);
  });

  it("the open-case look-up (a prepared read) finds only the workflow's open case of exactly that key and value", async () => {
    const { statuses, workflowGuid } = await createEngineModel(t.app, actor, {});
    const workflow = await ds.getRepository(CaseWorkflow).findOneByOrFail({ Guid: workflowGuid });
    const status = await ds.getRepository(CaseWorkflowStatus).findOneByOrFail({ Guid: statuses[0].guid });
    const row = (value: string, priority: number, closed: boolean) => ({
      Guid: randomUUID(),
      CaseWorkflowId: workflow.Id,
      CaseKey: 'AccountId',
      CaseKeyValue: value,
      CaseWorkflowStatusId: status.Id,
      Priority: priority,
      EntityAnalysisModelInstanceEntryGuid: randomUUID(),
      CreatedDate: new Date(),
      UpdatedDate: null,
      ClosedDate: closed ? new Date() : null,
    });
    const cases = ds.getRepository(CaseRecord);
    await cases.insert(row('ACC-LOOKUP', 9, true));
    const open = await cases.save(cases.create(row('ACC-LOOKUP', 4, false)));
    await cases.insert(row('ACC-CLOSED', 2, true));
    const repo = t.app.get(CaseRepository);
    const key = (CaseWorkflowId: number, CaseKey: string, CaseKeyValue: string) => ({
      CaseWorkflowId,
      CaseKey,
      CaseKeyValue,
    });
    expect(await repo.findOpen([key(workflow.Id, 'AccountId', 'ACC-LOOKUP')])).toEqual([
      { ...key(workflow.Id, 'AccountId', 'ACC-LOOKUP'), Id: open.Id, Priority: 4 },
    ]);
    // closed only, another case of the letters, another key, another workflow, a value shaped as SQL: none
    expect(
      await repo.findOpen([
        key(workflow.Id, 'AccountId', 'ACC-CLOSED'),
        key(workflow.Id, 'AccountId', 'acc-lookup'),
        key(workflow.Id, 'accountid', 'ACC-LOOKUP'),
        key(workflow.Id + 100_000, 'AccountId', 'ACC-LOOKUP'),
        key(workflow.Id, 'AccountId', "ACC-LOOKUP' OR '1'='1"),
      ]),
    ).toEqual([]);
  });

  it("the status look-up gives the status's own values, and nothing once it is deleted", async () => {
    const { statuses } = await createEngineModel(t.app, actor, {
      statuses: [
        {
          name: 'Mailed and called',
          priority: 3,
          enableNotification: true,
          notificationDestination: 'ops@example.test',
          notificationSubject: 'Case {CaseKeyValue}',
          enableHttpEndpoint: true,
          httpEndpointUrl: 'http://127.0.0.1:9/hook',
          httpEndpointMethod: 'GET',
        },
        { name: 'Quiet', priority: 7 },
      ],
    });
    const rows = ds.getRepository(CaseWorkflowStatus);
    const [loud, quiet] = await Promise.all(statuses.map((st) => rows.findOneByOrFail({ Guid: st.guid })));
    const config = t.app.get(ConfigurationRepository);
    const live = async (id: number) => (await config.findLiveStatusesByIds([id])).get(id) ?? null;
    expect(await live(loud.Id)).toEqual({
      Id: loud.Id,
      Guid: loud.Guid,
      Name: 'Mailed and called',
      Priority: 3,
      EnableNotification: true,
      NotificationDestination: 'ops@example.test',
      NotificationSubject: 'Case {CaseKeyValue}',
      NotificationBody: loud.NotificationBody,
      EnableHttpEndpoint: true,
      HttpEndpointUrl: 'http://127.0.0.1:9/hook',
      HttpEndpointMethod: 'GET',
    });
    expect(await live(quiet.Id)).toMatchObject({
      Priority: 7,
      EnableNotification: false,
      NotificationDestination: null,
      EnableHttpEndpoint: false,
      HttpEndpointUrl: null,
    });
    await rows.update({ Id: quiet.Id }, { DeletedDate: new Date() });
    expect(await live(quiet.Id)).toBeNull();
    expect(await live(quiet.Id + 1_000_000)).toBeNull();
    expect((await config.findLiveStatusesByIds([loud.Id, quiet.Id])).size).toBe(1);
  });
  // Last: the rollups of the case creations the tests above ran.
  it('writes case creation rollups, one row per stage that ran, with names and Instance', async () => {
    await archiver.drain();
    await t.app.get(StageRollupService).flush();
    const rows = await ds.getRepository(CaseCreationStagePerformanceCounter).find();
    const names = new Set(rows.map((r) => r.StageName));
    expect(names).toEqual(
      new Set([
        'ExistingCasePriorityLookup',
        'WorkflowStatusLookupAndPersist',
        'Notification',
        'HttpEndpoint',
      ]),
    );
    expect(rows.every((r) => r.Instance === t.settings.InstanceName && r.InvokeCount > 0)).toBe(true);
  });
});
