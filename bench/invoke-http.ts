/* Part of `npm run bench:invoke`: the Invoke endpoint over HTTP with a real API key, the service's own
 * telemetry binding (CapturePipelineTelemetry) against a binding that does nothing, alternating rounds. */
import { Test } from '@nestjs/testing';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { AddressInfo } from 'node:net';
import type { Settings } from '@app/config';
import { DEMO_MODEL_GUID, NullPipelineTelemetry, PipelineTelemetry, demoTransaction } from '@app/engine';
import { AppModule } from '../apps/server/src/app.module';
import { APPLICATION_OPTIONS, configureApp } from '../apps/server/src/create-app';
import { ADMIN_INITIAL_PASSWORD, ADMIN_PASSWORD, benchSettings, load, rate } from './support';

async function start(
  settings: Settings,
  telemetryOff: boolean,
): Promise<{ app: NestExpressApplication; url: string }> {
  const builder = Test.createTestingModule({ imports: [AppModule.forRoot(settings)] });
  if (telemetryOff) builder.overrideProvider(PipelineTelemetry).useClass(NullPipelineTelemetry);
  const app = (await builder.compile()).createNestApplication<NestExpressApplication>(APPLICATION_OPTIONS);
  configureApp(app, settings);
  await app.listen(0, '127.0.0.1');
  return { app, url: `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}` };
}

async function apiKey(url: string, first: boolean): Promise<string> {
  const signIn = await fetch(`${url}/api/Authentication/ByUserNamePassword`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(
      first
        ? {
            userName: 'Administrator',
            password: ADMIN_INITIAL_PASSWORD,
            newPassword: ADMIN_PASSWORD,
            repeatNewPassword: ADMIN_PASSWORD,
          }
        : { userName: 'Administrator', password: ADMIN_PASSWORD },
    ),
  });
  const { token } = (await signIn.json()) as { token: string };
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const me = (await (await fetch(`${url}/api/Authentication/Session`, { headers: auth })).json()) as {
    userGuid: string;
  };
  const created = await fetch(`${url}/api/UserRegistryApiKey`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ userRegistryGuid: me.userGuid, name: 'bench' }),
  });
  return ((await created.json()) as { key: string }).key;
}

export async function invokeOverHttp(seconds: number): Promise<void> {
  // One database for both apps, so they invoke the same demo model; the Archiver keeps up at these rates.
  const settings = benchSettings('invoke-http', { CaptureQueueFlushIntervalMilliseconds: '5000' });
  const on = await start(settings, false);
  const keyOn = await apiKey(on.url, true);
  const off = await start(settings, true);
  const keyOff = await apiKey(off.url, false);
  const body = JSON.stringify(demoTransaction(1));
  const run = async (url: string, key: string) =>
    rate(
      await load({
        url: `${url}/api/Invoke/EntityAnalysisModel/${DEMO_MODEL_GUID}`,
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body,
        connections: 16,
        duration: seconds,
      }),
    );
  try {
    await run(on.url, keyOn); // warm-up
    await run(off.url, keyOff);
    const ons: number[] = [];
    const offs: number[] = [];
    const rounds = Number(process.env.BENCH_HTTP_ROUNDS ?? 5);
    for (let round = 0; round < rounds; round++) {
      ons.push(await run(on.url, keyOn));
      offs.push(await run(off.url, keyOff));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const a = median(ons);
    const b = median(offs);
    console.log(
      `Invoke over HTTP (API key, demo model, 16 connections, median of ${rounds} alternating rounds):`,
    );
    console.log(`  telemetry off (null binding):         ${b.toFixed(0)} invocations/s`);
    console.log(
      `  telemetry on (the service's binding): ${a.toFixed(0)} invocations/s  (overhead ${(((b - a) / b) * 100).toFixed(1)}%; target < 3%)`,
    );
  } finally {
    await on.app.close();
    await off.app.close();
  }
}
