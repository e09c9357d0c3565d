import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { ModelInvokeWarning } from '@app/capture-queues';
import { Actor, Permission } from '@app/access';
import { createEngineModel, transaction } from '../../../test/factories/engine.factory';
import { createUser, landlordActor } from '../../../test/factories/identity.factory';
import { TEST_PROVIDERS } from '../../../test/support/databases';
import { engineApp, GUID_V7, instantOfGuid } from '../../../test/support/engine-app';
import type { TestApp } from '../../../test/support/test-app';
import { ArchiverService } from './archiver/archiver.service';
import { ConfigurationRepository } from './model/configuration.repository';
import { ModelCatalog } from './model/model-catalog';
import { DEMO_MODEL_GUID } from './demo/demo-model';
import { EntityAnalysisModel, EntityAnalysisModelArchive } from './entities';
import { InvokeService } from './invoke/invoke.service';

/** The engine's models and invocations: the demo, configuration validation, invoking over HTTP, warnings. */
describe.each(TEST_PROVIDERS)('decisioning engine: models and invocation on %s', (provider) => {
  const f = engineApp(provider);
  const { keys, keyFor, flush, counterSince, lastMetricId, http } = f;
  let t: TestApp;
  let actor: Actor;
  let archiver: ArchiverService;
  let invoker: InvokeService;
  let ds: DataSource;
  beforeAll(() => {
    ({ t, actor, archiver, invoker, ds } = f);
  });

  /**
   * What an invocation of `model` refuses: too large, not JSON, a field missing, another tenant's caller, no
   * credential, the model made inactive (it is left inactive).
   */
  const expectRefusals = async (model: { guid: string }) => {
    // Larger than 1 MiB: 413; not JSON: 400 (problems, before any credential is even read).
    const large = await http()
      .post(`/api/Invoke/EntityAnalysisModel/${model.guid}`)
      .set('x-api-key', keys.get('engineer')!)
      .set('content-type', 'application/json')
      .send(JSON.stringify({ pad: 'x'.repeat(1024 * 1024) }));
    expect(large.status).toBe(413);
    expect(large.headers['content-type']).toContain('application/problem+json');
    const malformed = await http()
      .post(`/api/Invoke/EntityAnalysisModel/${model.guid}`)
      .set('x-api-key', keys.get('engineer')!)
      .set('content-type', 'application/json')
      .send('{"amount": ');
    expect(malformed.status).toBe(400);

    // A missing required field is a 422 problem naming it (the document takes any JSON object; the model
    // says which fields it reads).
    const missing = await http()
      .post(`/api/Invoke/EntityAnalysisModel/${model.guid}`)
      .set('x-api-key', keys.get('engineer')!)
      .send({ amount: 3 });
    expect(missing.status).toBe(422);
    expect(JSON.stringify(missing.body)).toContain('AccountId');

    // Another tenant's caller, an inactive model and no credential: 404, 404, 401.
    const stranger = await createUser(t.app, { permissions: [Permission.Invoke] });
    await keyFor('stranger', stranger.actor);
    const other = await http()
      .post(`/api/Invoke/EntityAnalysisModel/${model.guid}`)
      .set('x-api-key', keys.get('stranger')!)
      .send(transaction('ACC-1', 1));
    expect(other.status).toBe(404);
    const anonymous = await http().post(`/api/Invoke/EntityAnalysisModel/${model.guid}`).send({});
    expect(anonymous.status).toBe(401);
    await http()
      .put(`/api/EntityAnalysisModel/${model.guid}`)
      .set('x-api-key', keys.get('engineer')!)
      .send({ active: false })
      .expect(200);
    const inactive = await http()
      .post(`/api/Invoke/EntityAnalysisModel/${model.guid}`)
      .set('x-api-key', keys.get('engineer')!)
      .send(transaction('ACC-1', 1));
    expect(inactive.status).toBe(404);
  };

  it('first start created the demo model in the landlord tenant', async () => {
    const demo = await ds.getRepository(EntityAnalysisModel).findOneByOrFail({ Guid: DEMO_MODEL_GUID });
    expect(demo.Name).toBe('Demo payments');
  });

  it('npm run demo streams demo transactions to the demo model with the API key it is given', async () => {
    await keyFor('demo-test-key', await landlordActor(t.app));
    const model = await ds.getRepository(EntityAnalysisModel).findOneByOrFail({ Guid: DEMO_MODEL_GUID });
    const before = await ds
      .getRepository(EntityAnalysisModelArchive)
      .countBy({ EntityAnalysisModelId: model.Id });
    const root = join(__dirname, '../../..');
    const child = spawn(
      process.execPath,
      [
        '-r',
        join(root, 'scripts/ts-register.js'),
        join(root, 'scripts/demo.ts'),
        '--api-key',
        keys.get('demo-test-key')!,
        '--url',
        t.url,
        '--count',
        '16',
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(out).toContain('statuses: 200×16');
    expect(code).toBe(0);
    await archiver.drain();
    expect(
      await ds.getRepository(EntityAnalysisModelArchive).countBy({ EntityAnalysisModelId: model.Id }),
    ).toBe(before + 16);
  });

  it('the API explorer documents the engine routes', async () => {
    const doc = await http().get('/swagger/json').set('x-api-key', keys.get('engineer')!).expect(200);
    const paths = Object.keys((doc.body as { paths: Record<string, unknown> }).paths);
    for (const p of [
      '/api/EntityAnalysisModel',
      '/api/EntityAnalysisModel/{guid}/RequestXPath',
      '/api/EntityAnalysisModel/{guid}/ActivationRule/{ruleGuid}',
      '/api/CaseWorkflow',
      '/api/CaseWorkflowStatus/{guid}',
      '/api/Invoke/EntityAnalysisModel/{guid}',
      '/api/Invoke/EntityAnalysisModel/{guid}/Reprocess/{entryGuid}',
    ])
      expect(paths).toContain(p);
  });

  it('validates configuration records: 400 for what the document states, 422 for what only the engine knows, each naming the field', async () => {
    const { model } = await createEngineModel(t.app, actor);
    const as = { 'x-api-key': keys.get('engineer')! };
    const badPath = await http()
      .post(`/api/EntityAnalysisModel/${model.guid}/RequestXPath`)
      .set(as)
      .send({ name: 'X', xPath: '$.a.__proto__', dataType: 'String' });
    expect(badPath.status).toBe(400);
    expect(badPath.headers['content-type']).toContain('application/problem+json');
    expect(JSON.stringify(badPath.body)).toContain('xPath');

    const code = await http()
      .post(`/api/EntityAnalysisModel/${model.guid}/ActivationRule`)
      .set(as)
      .send({ name: 'evil', condition: { method: [{ var: 'AccountId' }, 'toString'] } });
    // an object, as the document says; not an operation this engine runs
    expect(code.status).toBe(422);
    expect(JSON.stringify(code.body)).toContain('method');

    const condition = { and: [{ '>': [{ var: 'Amount' }, 10] }, { in: [{ var: 'Country' }, ['DE', 'FR']] }] };
    const created = await http()
      .post(`/api/EntityAnalysisModel/${model.guid}/ActivationRule`)
      .set(as)
      .send({ name: 'ok', condition });
    expect(created.status).toBe(201);
    const listed = await http()
      .get(`/api/EntityAnalysisModel/${model.guid}/ActivationRule`)
      .set(as)
      .expect(200);
    expect((listed.body as { items: { condition: unknown }[] }).items.map((r) => r.condition)).toEqual([
      condition,
    ]);

    const badType = await http()
      .post(`/api/EntityAnalysisModel/${model.guid}/RequestXPath`)
      .set(as)
      .send({ name: 'Y', xPath: '$.y', dataType: 'Decimal' });
    expect(badType.status).toBe(400);

    const noDestination = await http()
      .post('/api/CaseWorkflow')
      .set(as)
      .send({ name: 'wf' })
      .then((wf) =>
        http()
          .post('/api/CaseWorkflowStatus')
          .set(as)
          .send({
            caseWorkflowGuid: (wf.body as { guid: string }).guid,
            name: 's',
            priority: 1,
            enableNotification: true,
          }),
      );
    // each field valid on its own; together they contradict each other
    expect(noDestination.status).toBe(422);
    expect(JSON.stringify(noDestination.body)).toContain('notificationDestination');

    const unknown = await http().post('/api/EntityAnalysisModel').set(as).send({ name: 'm', extra: 1 });
    expect(unknown.status).toBe(400);
  });
  it('invokes over HTTP: entry guid, fields, activations and, with ?trace=true, five trace points', async () => {
    const { model, rules } = await createEngineModel(t.app, actor, {
      rules: [
        { condition: { '>': [{ var: 'Amount' }, 100] } },
        { condition: { '<': [{ var: 'Amount' }, 0] } },
      ],
    });
    const before = Date.now();
    const res = await http()
      .post(`/api/Invoke/EntityAnalysisModel/${model.guid}?trace=true`)
      .set('x-api-key', keys.get('engineer')!)
      .send(transaction('ACC-1', 250.5));
    expect(res.status).toBe(200);
    const body = res.body as {
      entityAnalysisModelInstanceEntryGuid: string;
      fields: Record<string, unknown>;
      activations: { entityAnalysisModelActivationRuleGuid: string }[];
      trace: { message: string; elapsedMicroseconds: number; sinceLastEntryMicroseconds: number }[];
    };
    // a version 7 GUID carrying the invocation's instant (archive inserts stay at the index's right edge)
    expect(body.entityAnalysisModelInstanceEntryGuid).toMatch(GUID_V7);
    expect(instantOfGuid(body.entityAnalysisModelInstanceEntryGuid)).toBeGreaterThanOrEqual(before);
    expect(instantOfGuid(body.entityAnalysisModelInstanceEntryGuid)).toBeLessThanOrEqual(Date.now());
    expect(body.fields).toEqual({
      AccountId: 'ACC-1',
      Email: 'acc-1@example.test',
      Amount: 250.5,
      Country: 'DE',
    });
    expect(body.activations.map((a) => a.entityAnalysisModelActivationRuleGuid)).toEqual([rules[0].guid]);
    expect(body.trace.map((p) => p.message)).toEqual([
      'Parse',
      'ExtractFields',
      'Activation',
      'BuildResponse',
      'BuildArchivePayload',
    ]);
    for (const [i, p] of body.trace.entries()) {
      expect(p.sinceLastEntryMicroseconds).toBeGreaterThanOrEqual(0);
      if (i > 0) expect(p.elapsedMicroseconds).toBeGreaterThanOrEqual(body.trace[i - 1].elapsedMicroseconds);
    }

    const plain = await http()
      .post(`/api/Invoke/EntityAnalysisModel/${model.guid}`)
      .set('x-api-key', keys.get('engineer')!)
      .send(transaction('ACC-1', 1));
    expect(plain.status).toBe(200);
    expect(plain.body).not.toHaveProperty('trace');

    await expectRefusals(model);
    await archiver.drain();
  });

  it('a change made on this node reaches the next invocation, even when one compiled the model during the write', async () => {
    const { model } = await createEngineModel(t.app, actor);
    const repo = t.app.get(ConfigurationRepository);
    const catalog = t.app.get(ModelCatalog);
    // called on the repository bound to the write's transaction (repo.in(tx)): the original runs on it too
    const write = ConfigurationRepository.prototype.writeModel;
    let during: boolean | undefined;
    let reading: Promise<unknown> = Promise.resolve();
    // an invocation arriving while the write is in flight compiles (and caches) the model as it is then read:
    // on PostgreSQL the row as it still is; on SQLite its read waits for the write's transaction (SqliteGate)
    const spy = jest.spyOn(repo, 'writeModel').mockImplementation(async function (
      this: ConfigurationRepository,
      before,
      after,
      version,
    ) {
      reading = catalog.get(model.guid).then((m) => (during = m?.active));
      if (provider === 'postgres') await reading;
      return write.call(this, before, after, version);
    });
    try {
      await http()
        .put(`/api/EntityAnalysisModel/${model.guid}`)
        .set('x-api-key', keys.get('engineer')!)
        .send({ active: false })
        .expect(200);
    } finally {
      spy.mockRestore();
    }
    await reading;
    expect(during).toBe(provider === 'postgres');
    const after = await http()
      .post(`/api/Invoke/EntityAnalysisModel/${model.guid}`)
      .set('x-api-key', keys.get('engineer')!)
      .send(transaction('ACC-1', 1));
    expect(after.status).toBe(404);
  });

  it('a 0 ms threshold produces ModelInvokeWarnings equal in number to the logs.warn.count increments', async () => {
    const { model } = await createEngineModel(t.app, actor, { model: { logsWarnThresholdMilliseconds: 0 } });
    await flush();
    const mark = await lastMetricId();
    for (let i = 0; i < 3; i++) await invoker.invoke(actor, model.guid, transaction('ACC-0', i));
    await archiver.drain();
    await flush();
    const increments = await counterSince('service.engine.logs.warn.count', mark);
    const warnings = await ds
      .getRepository(ModelInvokeWarning)
      .find({ where: { EntityAnalysisModelGuid: model.guid } });
    expect(increments).toBeGreaterThan(0);
    expect(warnings).toHaveLength(increments);
    expect(
      warnings.every(
        (w) => w.EntityAnalysisModelGuid === model.guid && w.EntityAnalysisModelName === model.name,
      ),
    ).toBe(true);
    expect(warnings[0]).toEqual(
      expect.objectContaining({
        ElapsedMicroseconds: expect.any(Number),
        SinceLastEntryMicroseconds: expect.any(Number),
      }),
    );
    // A model with the threshold off records none.
    const { model: off } = await createEngineModel(t.app, actor);
    await flush();
    const offMark = await lastMetricId();
    await invoker.invoke(actor, off.guid, transaction('ACC-0', 1));
    await flush();
    expect(await counterSince('service.engine.logs.warn.count', offMark)).toBe(0);
    expect(await ds.getRepository(ModelInvokeWarning).countBy({ EntityAnalysisModelGuid: off.guid })).toBe(0);
  });
});
