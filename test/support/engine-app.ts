import { createServer, IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ApiKeyService } from '@app/api-keys';
import { CaptureFlusher, OpenTelemetryMetric } from '@app/capture-queues';
import { Actor, Permission } from '@app/access';
import { ArchiverService } from '../../libs/engine/src/archiver/archiver.service';
import { CaseRecord } from '../../libs/engine/src/entities';
import { InvokeService } from '../../libs/engine/src/invoke/invoke.service';
import { createUser, landlordActor } from '../factories/identity.factory';
import type { TestProvider } from './databases';
import { freePort } from './free-port';
import { startTestApp, TestApp } from './test-app';

/**
 * The decisioning engine's specs (libs/engine/src/engine-*.spec.ts): one app per spec file and provider, with a
 * real SMTP server and a real HTTP server receiving the case callbacks, an engineer holding an API key, and the
 * telemetry read back as the flush wrote it.
 */

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
export const GUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** The Unix milliseconds a version 7 GUID carries in its first 48 bits. */
export const instantOfGuid = (guid: string) => parseInt(guid.replace(/-/g, '').slice(0, 12), 16);
export const CASE_WARN_MS = 300;
export const ARCHIVER_CAPACITY = 3;

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

/** What engineApp's beforeAll sets up. */
interface EngineState {
  t: TestApp;
  smtp: Awaited<ReturnType<typeof startSmtp>>;
  callbacks: Awaited<ReturnType<typeof startCallbackServer>>;
  actor: Actor;
  archiver: ArchiverService;
  invoker: InvokeService;
  ds: DataSource;
}

/** The calls of EngineApp, on the app its beforeAll starts. */
function engineCalls(f: EngineState) {
  /** HTTP callers authenticate with real API keys, created as an administrator would. */
  const keys = new Map<string, string>();
  const keyFor = async (name: string, a: Actor) => {
    const admin = await landlordActor(f.t.app);
    const owner = a.landlord
      ? admin
      : (
          await createUser(f.t.app, {
            tenantGuid: a.tenantGuid,
            // nobody creates a key for a user who holds more than they do
            permissions: [Permission.ReadWriteSecurityUser, ...a.permissions],
          })
        ).actor;
    keys.set(
      name,
      (await f.t.app.get(ApiKeyService).create(owner, { userRegistryGuid: a.userGuid, name })).key,
    );
  };
  /**
   * What the real telemetry recorded between two marks: the capture rows (after a flush) and the counter
   * increments, read back from the OpenTelemetryMetric aggregation the same flush wrote.
   */
  const flush = () => f.t.app.get(CaptureFlusher).flush();
  const counterSince = async (instrument: string, since: number): Promise<number> => {
    const rows = await f.ds
      .getRepository(OpenTelemetryMetric)
      .find({ where: { InstrumentName: instrument } });
    return rows.filter((r) => r.Id > since).reduce((sum, r) => sum + Number(r.Sum), 0);
  };
  const lastMetricId = async (): Promise<number> =>
    Number(
      (await f.ds.getRepository(OpenTelemetryMetric).find({ order: { Id: 'DESC' }, take: 1 }))[0]?.Id ?? 0,
    );
  const http = () => request(f.t.url);
  const casesOf = (keyValue: string) =>
    f.ds.getRepository(CaseRecord).find({ where: { CaseKeyValue: keyValue } });
  return { keys, keyFor, flush, counterSince, lastMetricId, http, casesOf };
}

/** The app's state (from engineApp's beforeAll on) and its calls (at once). */
export type EngineApp = EngineState & ReturnType<typeof engineCalls>;

/**
 * Starts the engine's test app on `provider` before the describe's tests (and stops it after): call it first
 * in the describe's body.
 */
export function engineApp(provider: TestProvider): EngineApp {
  const state = {} as EngineState;
  const f: EngineApp = Object.assign(state, engineCalls(state));

  beforeAll(async () => {
    f.smtp = await startSmtp();
    f.callbacks = await startCallbackServer();
    f.t = await startTestApp(provider, {
      SmtpHost: '127.0.0.1',
      SmtpPort: String(f.smtp.port),
      CaseCreationWarnThresholdMilliseconds: String(CASE_WARN_MS),
      ArchiverQueueCapacity: String(ARCHIVER_CAPACITY),
      // Flushed by the tests themselves, so nothing runs behind their back.
      StageRollupIntervalMilliseconds: '3600000',
      ArchiveBulkCopyIntervalMilliseconds: '600000',
    });
    f.actor = (
      await createUser(f.t.app, {
        permissions: [Permission.ReadWriteModel, Permission.ReadWriteCaseWorkflow, Permission.Invoke],
      })
    ).actor;
    await f.keyFor('engineer', f.actor);
    f.archiver = f.t.app.get(ArchiverService);
    f.invoker = f.t.app.get(InvokeService);
    f.ds = f.t.app.get(DataSource);
  });

  afterAll(async () => {
    await f.t?.close();
    await new Promise<void>((resolve) => f.smtp?.server.close(() => resolve()));
    await new Promise<void>((resolve) => f.callbacks?.server.close(() => resolve()));
  });

  return f;
}
