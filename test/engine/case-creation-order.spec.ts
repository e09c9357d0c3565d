import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DataSource, IsNull } from 'typeorm';
import { Actor, Permission } from '@app/access';
import { ArchiverService, CaseRecord, InvokeService, ModelService } from '@app/engine';
import { createEngineModel, DemoLikeModel, transaction } from '../factories/engine.factory';
import { createUser } from '../factories/identity.factory';
import { TEST_PROVIDERS } from '../support/databases';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * spec: What the service does 2 — case creation "is one global queue shared by every Model". Two Models raise
 * cases on the same workflow, key and value, alternately and each with a strictly better priority than the one
 * before: only one queue deciding them in their one arrival order makes every activation after the first an
 * upgrade. (Per-Model queues would decide one Model's activations, then the other's: most would be unchanged.)
 * The activations wait together in the queue (the Archiver is held while they are accepted), so the order
 * observed is the queue's, not the order the test happened to send them in one by one.
 */

interface Callback {
  entityAnalysisModelGuid: string;
  priority: number;
  outcome: string;
}

/** A real HTTP server receiving the case callbacks, in the order they arrive. */
async function startCallbackReceiver(): Promise<{ server: Server; url: string; calls: Callback[] }> {
  const calls: Callback[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      calls.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Callback);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
}

const PRIORITIES = [10, 9, 8, 7, 6, 5, 4, 3, 2, 1];
/** Model A raises the even priorities, model B the odd ones: invoked in PRIORITIES order they alternate. */
const ofModelA = (p: number) => p % 2 === 0;
const amountIs = (p: number) => ({ '==': [{ var: 'Amount' }, p] });

describe.each(TEST_PROVIDERS)('one case creation queue shared by every Model on %s', (provider) => {
  let t: TestApp;
  let ds: DataSource;
  let actor: Actor;
  let receiver: Awaited<ReturnType<typeof startCallbackReceiver>>;
  beforeAll(async () => {
    receiver = await startCallbackReceiver();
    t = await startTestApp(provider);
    ds = t.app.get(DataSource);
    actor = (
      await createUser(t.app, {
        permissions: [Permission.ReadWriteModel, Permission.ReadWriteCaseWorkflow, Permission.Invoke],
      })
    ).actor;
  });
  afterAll(async () => {
    await t?.close();
    await new Promise<void>((resolve) => receiver?.server.close(() => resolve()));
  });

  /**
   * Model A with a workflow of one status per priority (each calling back), rules for the even priorities;
   * model B with rules for the odd ones on A's workflow. Neither keeps the relational archive, so the
   * Archiver hands each invocation's case to case creation as it takes it, in arrival order.
   */
  async function twoModelsOneWorkflow(): Promise<{ a: DemoLikeModel; bGuid: string }> {
    const a = await createEngineModel(t.app, actor, {
      model: { enableRdbmsArchive: false },
      statuses: PRIORITIES.map((priority) => ({
        name: `P${priority}`,
        priority,
        enableHttpEndpoint: true,
        httpEndpointUrl: `${receiver.url}/case`,
        httpEndpointMethod: 'POST' as const,
      })),
      rules: PRIORITIES.flatMap((p, status) => (ofModelA(p) ? [{ condition: amountIs(p), status }] : [])),
    });
    const models = t.app.get(ModelService);
    const b = await models.create(actor, { name: `${a.model.name} B`, enableRdbmsArchive: false });
    await models.createXPath(actor, b.guid, {
      name: 'AccountId',
      xPath: '$.account.id',
      dataType: 'String',
      required: true,
    });
    await models.createXPath(actor, b.guid, {
      name: 'Amount',
      xPath: '$.amount',
      dataType: 'Float',
      required: false,
    });
    for (const [status, p] of PRIORITIES.entries()) {
      if (ofModelA(p)) continue;
      await models.createRule(actor, b.guid, {
        name: `P${p}`,
        condition: amountIs(p),
        caseWorkflowGuid: a.workflowGuid,
        caseWorkflowStatusGuid: a.statuses[status].guid,
        caseKeyFieldName: 'AccountId',
      });
    }
    return { a, bGuid: b.guid };
  }

  it('activations of two Models are decided in their one interleaved arrival order', async () => {
    const { a, bGuid } = await twoModelsOneWorkflow();
    const invoker = t.app.get(InvokeService);
    const archiver = t.app.get(ArchiverService);
    const account = `ACC-SHARED-${provider}`;
    const guidOf = (p: number) => (ofModelA(p) ? a.model.guid : bGuid);

    archiver.pause();
    const entries: string[] = [];
    try {
      for (const p of PRIORITIES) {
        const answer = await invoker.invoke(actor, guidOf(p), transaction(account, p));
        expect(answer.activations).toHaveLength(1);
        entries.push(answer.entityAnalysisModelInstanceEntryGuid);
      }
    } finally {
      archiver.resume();
    }
    await archiver.drain();

    expect(receiver.calls.map((c) => [c.entityAnalysisModelGuid, c.priority, c.outcome])).toEqual(
      PRIORITIES.map((p, i) => [guidOf(p), p, i === 0 ? 'inserted' : 'upgraded']),
    );
    const open = await ds.getRepository(CaseRecord).findBy({ CaseKeyValue: account, ClosedDate: IsNull() });
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({ Priority: 1, EntityAnalysisModelInstanceEntryGuid: entries.at(-1) });
  });
});
