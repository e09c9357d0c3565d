/* The child of bench/invoke-http.ts: one service process on its own SQLite DataDirectory, whose
 * PipelineTelemetry is switched between the service's own binding (CapturePipelineTelemetry, "on") and one that
 * does nothing ("off"), so both sides run in the same process, heap and database. Prints `LISTENING <url>` when
 * ready and answers the parent's IPC messages: `on` / `off` switch, `cpu` gives this process's CPU time,
 * `archiver-idle` answers once the Archiver has drained, `close` shuts down and exits. */
import 'reflect-metadata';
import { Test } from '@nestjs/testing';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { AddressInfo } from 'node:net';
import { ArchiverService, CapturePipelineTelemetry, PipelineTelemetry } from '@app/engine';
import { CaptureQueues } from '@app/capture-queues';
import { EngineMetrics } from '@app/telemetry';
import { AppModule } from '../apps/server/src/app.module';
import { APPLICATION_OPTIONS, configureApp } from '../apps/server/src/create-app';
import { ServiceExpressAdapter } from '../apps/server/src/express-adapter';
import { benchSettings } from './support';
import { NullPipelineTelemetry } from './null-pipeline-telemetry';
import { SwitchableTelemetry } from './switchable-telemetry';

export type ServerRequest = { id: number; kind: 'on' | 'off' | 'cpu' | 'archiver-idle' | 'close' };

async function main(): Promise<void> {
  const settings = benchSettings('invoke-http');
  const off = new NullPipelineTelemetry();
  const telemetry = new SwitchableTelemetry(off);
  const moduleRef = await Test.createTestingModule({ imports: [AppModule.forRoot(settings)] })
    .overrideProvider(PipelineTelemetry)
    .useValue(telemetry)
    .compile();
  // the service's own HTTP server (apps/server/src/express-adapter.ts), as createApp builds it
  const app = moduleRef.createNestApplication<NestExpressApplication>(
    new ServiceExpressAdapter(),
    APPLICATION_OPTIONS,
  );
  configureApp(app, settings);
  await app.listen(0, '127.0.0.1');
  const on = new CapturePipelineTelemetry(app.get(EngineMetrics), app.get(CaptureQueues));
  const archiver = app.get(ArchiverService);
  process.on('message', (m: ServerRequest) => {
    const reply = (value: unknown) => process.send?.({ id: m.id, value });
    switch (m.kind) {
      case 'on':
      case 'off':
        telemetry.target = m.kind === 'on' ? on : off;
        return reply(true);
      case 'cpu':
        return reply(process.cpuUsage());
      case 'archiver-idle':
        return void archiver.drain().then(() => reply(true));
      case 'close':
        return void app.close().then(() => process.exit(0));
    }
  });
  const { port } = app.getHttpServer().address() as AddressInfo;
  process.stdout.write(`LISTENING http://127.0.0.1:${port}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
