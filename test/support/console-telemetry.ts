import type { INestApplicationContext } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { ApiKeyService } from '@app/api-keys';
import { CaptureFlusher } from '@app/capture-queues';
import { Permission } from '@app/access';
import {
  ArchiverService,
  DEMO_MODEL_GUID,
  demoTransaction,
  PipelineTelemetry,
  StageRollupService,
} from '@app/engine';
import { createUser, type CreatedUser } from '../factories/identity.factory';

/**
 * Fills the telemetry grids the way `npm run demo` does: demo transactions sent to the demo model over
 * HTTP with an API key of a landlord user holding Invoke, in `rounds` rounds, each followed by the stage
 * rollup (so the counters have several rows and instants). With the warn thresholds at 0 every Archiver and
 * case creation stage raises its warning. ModelInvokeWarning rows depend on the demo model's 5 ms
 * threshold, so a few are also recorded through the one call site (the PipelineTelemetry port). Then the capture queues
 * are flushed.
 */
export async function fillTelemetry(
  app: INestApplicationContext,
  url: string,
  landlordAdmin: CreatedUser,
  options: { rounds?: number; perRound?: number } = {},
): Promise<{ invoker: CreatedUser; apiKey: string }> {
  const invoker = await createUser(app, {
    tenantGuid: landlordAdmin.tenantGuid,
    permissions: [Permission.Invoke],
  });
  const { key } = await app
    .get(ApiKeyService)
    .create(landlordAdmin.actor, { userRegistryGuid: invoker.guid, name: 'demo traffic' });
  const rounds = options.rounds ?? 5;
  const perRound = options.perRound ?? 8;
  let sent = 0;
  for (let round = 0; round < rounds; round++) {
    await Promise.all(
      Array.from({ length: perRound }, async () => {
        const res = await fetch(`${url}/api/Invoke/EntityAnalysisModel/${DEMO_MODEL_GUID}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: JSON.stringify(demoTransaction(sent++)),
        });
        if (res.status !== 200) throw new Error(`invoke answered ${res.status}: ${await res.text()}`);
      }),
    );
    await app.get(ArchiverService).drain();
    await app.get(StageRollupService).flush();
  }
  const recorder = app.get(PipelineTelemetry);
  for (let i = 0; i < 12; i++)
    recorder.modelInvokeWarning({
      entityAnalysisModelGuid: DEMO_MODEL_GUID,
      entityAnalysisModelName: 'Demo model',
      entityAnalysisModelInstanceEntryGuid: randomUUID(),
      message: ['Request parsed', 'Activation rules', 'Response ready'][i % 3],
      elapsedMicroseconds: 6_000 + i * 900,
      sinceLastEntryMicroseconds: 5_100 + ((i * 7) % 12) * 350,
      occurredDate: new Date(Date.now() - (12 - i) * 20_000),
    });
  await app.get(CaptureFlusher).flush();
  return { invoker, apiKey: key };
}

/** Signs `userName` in through the Login page in `context`, and waits for the console home. */
export async function signInThroughPage(
  context: BrowserContext,
  origin: string,
  userName: string,
  password: string,
): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${origin}/Account/Login`);
  await page.getByLabel('User name').fill(userName);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${origin}/`);
  await page.getByRole('heading', { name: 'Operations console' }).waitFor();
  return page;
}
