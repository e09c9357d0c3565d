import { DataSource } from 'typeorm';
import { createServer, type Server } from 'node:http';
import { ArchiverStage, CaseCreationStage, ENGINE_INSTRUMENTS, EngineMetrics } from '@app/telemetry';
import { PipelineTelemetry } from '@app/engine';
import { freePort } from './support/free-port';
import { waitFor } from './support/spawn-server';
import { startTestApp, TestApp } from './support/test-app';

/** A plain OTLP/HTTP receiver: keeps every body POSTed to /v1/metrics. */
async function startOtlpReceiver(): Promise<{ url: string; bodies: string[]; close: () => Promise<void> }> {
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/metrics')
        bodies.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const ALL = Object.values(ENGINE_INSTRUMENTS);

function recordEveryInstrument(t: TestApp): void {
  const engine = t.app.get(EngineMetrics);
  const recorder = t.app.get(PipelineTelemetry);
  engine.archiverStageDuration(ArchiverStage.BuildArchiveJson, 4);
  engine.caseCreationStageDuration(CaseCreationStage.Notification, 12);
  engine.invokeStageDuration('Activation', 0.3);
  recorder.archiverWarning({
    entityAnalysisModelGuid: '11111111-1111-4111-8111-111111111111',
    entityAnalysisModelInstanceEntryGuid: null,
    stageId: ArchiverStage.BulkCopyArchiveBuffer,
    durationMicroseconds: 11_000_000,
  });
  recorder.caseCreationWarning({
    caseWorkflowGuid: '44444444-4444-4444-8444-444444444444',
    caseWorkflowName: 'Fraud',
    caseKey: 'AccountId',
    caseKeyValue: '42',
    stageId: CaseCreationStage.HttpEndpoint,
    durationMicroseconds: 11_000_000,
    destination: 'http://127.0.0.1/hook',
  });
  recorder.modelInvokeWarning({
    entityAnalysisModelGuid: '11111111-1111-4111-8111-111111111111',
    entityAnalysisModelName: 'Demo',
    entityAnalysisModelInstanceEntryGuid: '22222222-2222-4222-8222-222222222222',
    message: 'Activation',
    elapsedMicroseconds: 10,
    sinceLastEntryMicroseconds: 10,
  });
}

describe('metric export with EnableOpenTelemetry', () => {
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let t: TestApp;
  let promPort: number;

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    promPort = await freePort();
    t = await startTestApp('sqlite', {
      EnableOpenTelemetry: 'True',
      OpenTelemetryPrometheusPort: String(promPort),
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_METRIC_EXPORT_INTERVAL: '200',
      CaptureQueueFlushIntervalMilliseconds: '3600000',
    });
    recordEveryInstrument(t);
  });

  afterAll(async () => {
    await t?.close();
    await otlp?.close();
  });

  it('serves every instrument on the Prometheus scrape endpoint, bound to 127.0.0.1', async () => {
    const res = await fetch(`http://127.0.0.1:${promPort}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    for (const name of ALL) expect(text).toContain(name.replace(/\./g, '_'));
    expect(text).toMatch(/service_engine_archiver_stage_duration\w*_bucket\{[^}]*stage="BuildArchiveJson"/);
    expect(text).toMatch(/service_engine_logs_warn_count\w*\{[^}]*stage="Activation"[^}]*\} 1/);
  });

  it('keeps the stage histograms cumulative on the scrape while the capture flush stores each interval once', async () => {
    const { CaptureFlusher } = await import('@app/capture-queues');
    const scrapeCount = async (stage: string): Promise<number> => {
      const text = await (await fetch(`http://127.0.0.1:${promPort}/metrics`)).text();
      const line = text
        .split('\n')
        .find((l) => /^service_engine_stage_duration\w*_count\{/.test(l) && l.includes(`stage="${stage}"`));
      return Number(line?.split(' ').pop());
    };
    const stored = async (stage: string): Promise<number[]> => {
      const rows = await t.app
        .get(DataSource)
        .query<{ Count: number | string }[]>(
          `SELECT "Count" FROM "OpenTelemetryMetric" WHERE "InstrumentName" = ? AND "Attributes" = ? ORDER BY "Id"`,
          [ENGINE_INSTRUMENTS.invokeStageDuration, JSON.stringify({ stage })],
        );
      return rows.map((r) => Number(r.Count));
    };
    const engine = t.app.get(EngineMetrics);
    const flusher = t.app.get(CaptureFlusher);
    engine.invokeStageDuration('ExtractFields', 0.2);
    engine.invokeStageDuration('ExtractFields', 0.4);
    expect(await scrapeCount('ExtractFields')).toBe(2);
    await flusher.flush();
    expect(await stored('ExtractFields')).toEqual([2]);
    engine.invokeStageDuration('ExtractFields', 0.1);
    // The flush took its interval without taking anything from the exporters' totals ...
    expect(await scrapeCount('ExtractFields')).toBe(3);
    expect(await scrapeCount('ExtractFields')).toBe(3);
    // ... and the scrapes took nothing from the next interval.
    await flusher.flush();
    expect(await stored('ExtractFields')).toEqual([2, 1]);
  });

  it('sends every instrument to the OTLP/HTTP receiver', async () => {
    await waitFor(
      () => ALL.every((name) => otlp.bodies.some((b) => b.includes(name))),
      10_000,
      'every instrument at the OTLP receiver',
    );
    const body = otlp.bodies.find((b) => b.includes(ENGINE_INSTRUMENTS.caseCreationWarnCount)) ?? '';
    expect(body).toContain('HttpEndpoint');
  });
});

describe('metric export without EnableOpenTelemetry', () => {
  it('opens no scrape endpoint and sends nothing, while the capture reader still aggregates', async () => {
    const otlp = await startOtlpReceiver();
    const promPort = await freePort();
    const t = await startTestApp('sqlite', {
      OpenTelemetryPrometheusPort: String(promPort),
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_METRIC_EXPORT_INTERVAL: '100',
      CaptureQueueFlushIntervalMilliseconds: '3600000',
    });
    try {
      recordEveryInstrument(t);
      await expect(fetch(`http://127.0.0.1:${promPort}/metrics`)).rejects.toThrow();
      await new Promise((r) => setTimeout(r, 400));
      expect(otlp.bodies).toEqual([]);
      const { CaptureFlusher } = await import('@app/capture-queues');
      const report = await t.app.get(CaptureFlusher).flush();
      // every engine instrument's series folded, beside the gauges every interval has (the database's size)
      const rows = await t.app
        .get(DataSource)
        .query<{ n: string }[]>(`SELECT "InstrumentName" AS "n" FROM "OpenTelemetryMetric"`);
      expect(report.written[6]).toBe(rows.length);
      expect(
        rows
          .map((r) => r.n)
          .filter((n) => (ALL as string[]).includes(n))
          .sort(),
      ).toEqual([...ALL].sort());
    } finally {
      await t.close();
      await otlp.close();
    }
  });
});
