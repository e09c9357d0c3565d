import { spawn } from 'node:child_process';
import { createServer, IncomingMessage, Server } from 'node:http';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ApiKeyService } from '@app/api-keys';
import {
  CaptureFlusher,
  ModelInvokeWarning,
  CaseCreationWarning,
  OpenTelemetryMetric,
} from '@app/capture-queues';
import { Actor, Permission, ProblemException } from '@app/common';
import { createEngineModel, transaction } from '../../../test/factories/engine.factory';
import { createUser, landlordActor } from '../../../test/factories/identity.factory';
import { TEST_PROVIDERS } from '../../../test/support/databases';
import { freePort } from '../../../test/support/free-port';
import { startTestApp, TestApp } from '../../../test/support/test-app';
import { ArchiverService } from './archiver/archiver.service';
import { CaseCreationService } from './case-creation/case-creation.service';
import { CaseRepository } from './case-creation/case.repository';
import { ConfigurationRepository } from './model/configuration.repository';
import { ModelCatalog } from './model/model-catalog';
import { ModelService } from './configuration/model.service';
import { DEMO_MODEL_GUID } from './demo/demo-model';
import {
  ArchiverStagePerformanceCounter,
  CaseCreationStagePerformanceCounter,
  CaseRecord,
  CaseWorkflow,
  CaseWorkflowStatus,
  EntityAnalysisModel,
  EntityAnalysisModelArchive,
} from './entities';
import { InvokeService } from './invoke/invoke.service';
import { StageRollupService } from './rollups/stage-rollup.service';
import { ArchiverStage, CaseCreationStage } from './telemetry/stages';

interface ReceivedMail {
  to: string[];
  raw: string;
}
interface ReceivedCall {
  method: string;
  url: string;
  body: string;
}

const SLOW_MS = 600;
/** A version 7 GUID (RFC 9562): the version digit 7, the variant 10. */
const GUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** The Unix milliseconds a version 7 GUID carries in its first 48 bits. */
const instantOfGuid = (guid: string) => parseInt(guid.replace(/-/g, '').slice(0, 12), 16);
const CASE_WARN_MS = 300;
const ARCHIVER_CAPACITY = 3;

/** A real SMTP server (smtp-server) that keeps what it receives. */
async function startSmtp(): Promise<{ server: SMTPServer; port: number; mails: ReceivedMail[] }> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, port, mails };
}

/** A real HTTP server receiving the callbacks; /slow answers after SLOW_MS. */
async function startCallbackServer(): Promise<{ server: Server; url: string; calls: ReceivedCall[] }> {
  const calls: ReceivedCall[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      calls.push({
        method: req.method ?? '',
        url: req.url ?? '',
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const delay = req.url?.startsWith('/slow') ? SLOW_MS : 0;
      setTimeout(() => res.writeHead(204).end(), delay);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
}

describe.each(TEST_PROVIDERS)('decisioning engine on %s', (provider) => {
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let callbacks: Awaited<ReturnType<typeof startCallbackServer>>;
  let actor: Actor;
  let archiver: ArchiverService;
  let invoker: InvokeService;
  let ds: DataSource;
  /** HTTP callers authenticate with real API keys, created as an administrator would. */
  const keys = new Map<string, string>();
  const keyFor = async (name: string, a: Actor) => {
    const admin = await landlordActor(t.app);
    const owner = a.landlord
      ? admin
      : (
          await createUser(t.app, {
            tenantGuid: a.tenantGuid,
            // nobody creates a key for a user who holds more than they do (security issue 37)
            permissions: [Permission.ReadWriteSecurityUser, ...a.permissions],
          })
        ).actor;
    keys.set(
      name,
      (await t.app.get(ApiKeyService).create(owner, { userRegistryGuid: a.userGuid, name })).key,
    );
  };
  /**
   * What the real telemetry recorded between two marks: the capture rows (after a flush) and the counter
   * increments, read back from the OpenTelemetryMetric aggregation the same flush wrote.
   */
  const flush = () => t.app.get(CaptureFlusher).flush();
  const counterSince = async (instrument: string, since: number): Promise<number> => {
    const rows = await ds.getRepository(OpenTelemetryMetric).find({ where: { InstrumentName: instrument } });
    return rows.filter((r) => r.Id > since).reduce((sum, r) => sum + Number(r.Sum), 0);
  };
  const lastMetricId = async (): Promise<number> =>
    Number(
      (await ds.getRepository(OpenTelemetryMetric).find({ order: { Id: 'DESC' }, take: 1 }))[0]?.Id ?? 0,
    );

  beforeAll(async () => {
    smtp = await startSmtp();
    callbacks = await startCallbackServer();
    t = await startTestApp(provider, {
      SmtpHost: '127.0.0.1',
      SmtpPort: String(smtp.port),
      CaseCreationWarnThresholdMilliseconds: String(CASE_WARN_MS),
      ArchiverQueueCapacity: String(ARCHIVER_CAPACITY),
      // Flushed by the tests themselves, so nothing runs behind their back.
      StageRollupIntervalMilliseconds: '3600000',
      ArchiveBulkCopyIntervalMilliseconds: '600000',
    });
    actor = (
      await createUser(t.app, {
        permissions: [Permission.ReadWriteModel, Permission.ReadWriteCaseWorkflow, Permission.Invoke],
      })
    ).actor;
    await keyFor('engineer', actor);
    archiver = t.app.get(ArchiverService);
    invoker = t.app.get(InvokeService);
    ds = t.app.get(DataSource);
  });

  afterAll(async () => {
    await t?.close();
    await new Promise<void>((resolve) => smtp?.server.close(() => resolve()));
    await new Promise<void>((resolve) => callbacks?.server.close(() => resolve()));
  });

  const http = () => request(t.url);
  const casesOf = (keyValue: string) =>
    ds.getRepository(CaseRecord).find({ where: { CaseKeyValue: keyValue } });

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
    expect((listed.body as { condition: unknown }[]).map((r) => r.condition)).toEqual([condition]);

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
    await archiver.drain();
  });

  it('a change made on this node reaches the next invocation, even when one compiled the model during the write', async () => {
    const { model } = await createEngineModel(t.app, actor);
    const repo = t.app.get(ConfigurationRepository);
    const catalog = t.app.get(ModelCatalog);
    const write = repo.writeModel.bind(repo);
    let during: boolean | undefined;
    // an invocation arriving while the write is in flight compiles (and caches) the model as it still is
    const spy = jest.spyOn(repo, 'writeModel').mockImplementation(async (before, after, version) => {
      during = (await catalog.get(model.guid))?.active;
      return write(before, after, version);
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
    expect(during).toBe(true);
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
    // Rollups: per stage, exactly the accepted invocations (stage 4 once, for the one batch).
    const counters = await ds
      .getRepository(ArchiverStagePerformanceCounter)
      .find({ where: { EntityAnalysisModelGuid: model.guid } });
    const byStage = new Map(counters.map((c) => [c.StageId, c]));
    for (const stage of [
      ArchiverStage.BuildArchiveJson,
      ArchiverStage.CaseCreationDispatch,
      ArchiverStage.RdbmsArchiveWrite,
    ])
      expect(byStage.get(stage)?.InvokeCount).toBe(ARCHIVER_CAPACITY);
    expect(byStage.get(ArchiverStage.BulkCopyArchiveBuffer)?.InvokeCount).toBe(1);
    expect(counters).toHaveLength(4);
    const c1 = byStage.get(ArchiverStage.BuildArchiveJson);
    expect(c1?.StageName).toBe('BuildArchiveJson');
    expect(c1?.Instance).toBe(t.settings.InstanceName);
    expect(c1?.MinMicroseconds).toBeLessThanOrEqual(c1?.MaxMicroseconds ?? -1);
    expect(c1?.TotalMicroseconds).toBeGreaterThanOrEqual(c1?.MaxMicroseconds ?? Infinity);
  });

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
