import { DataSource } from 'typeorm';
import { CaptureFlusher } from '@app/capture-queues';
import { ENGINE_INSTRUMENTS } from '@app/telemetry';
import { freePort } from './support/free-port';
import { createSqliteDirectory } from './support/databases';
import { spawnServer, waitFor } from './support/spawn-server';
import { startTestApp } from './support/test-app';
import { samples, type Sample } from './support/prometheus';

/** The spec's stages (spec: Resources), and the invoke pipeline's trace points (docs/engine.md). */
const ARCHIVER = ['BuildArchiveJson', 'CaseCreationDispatch', 'RdbmsArchiveWrite', 'BulkCopyArchiveBuffer'];
const CASE_CREATION = [
  'ExistingCasePriorityLookup',
  'WorkflowStatusLookupAndPersist',
  'Notification',
  'HttpEndpoint',
];
const INVOKE = ['Parse', 'ExtractFields', 'Activation', 'BuildResponse', 'BuildArchivePayload'];

/** Prometheus names of the spec's instruments (docs/telemetry.md), with the stages each one knows. */
const COUNTERS: [string, string[]][] = [
  ['service_engine_archiver_warn_count_total', ARCHIVER],
  ['service_engine_casecreation_warn_count_total', CASE_CREATION],
  ['service_engine_logs_warn_count_total', INVOKE],
];
const HISTOGRAMS: [string, string[]][] = [
  ['service_engine_archiver_stage_duration_milliseconds', ARCHIVER],
  ['service_engine_casecreation_stage_duration_milliseconds', CASE_CREATION],
  ['service_engine_stage_duration_milliseconds', INVOKE],
];

describe('metric series from the first scrape', () => {
  it('the service started with EnableOpenTelemetry=True exports every warning counter and stage histogram series at 0', async () => {
    const [port, promPort] = [await freePort(), await freePort()];
    const server = spawnServer({
      DataDirectory: createSqliteDirectory(),
      Port: String(port),
      EnableOpenTelemetry: 'True',
      OpenTelemetryPrometheusPort: String(promPort),
    });
    try {
      await waitFor(() => server.output().includes('Service listening'), 30_000, 'the service to listen');
      // Right after start: nothing has run through any pipeline.
      const res = await fetch(`http://127.0.0.1:${promPort}/metrics`);
      expect(res.status).toBe(200);
      const text = await res.text();
      const all = samples(text);
      const find = (name: string, stage: string, extra: Record<string, string> = {}) =>
        all.filter(
          (s) =>
            s.name === name &&
            s.labels.stage === stage &&
            Object.entries(extra).every(([k, v]) => s.labels[k] === v),
        );

      for (const [name, stages] of COUNTERS) {
        expect(text).toContain(`# TYPE ${name} counter`);
        for (const stage of stages)
          expect({ name, stage, values: find(name, stage).map((s) => s.value) }).toEqual({
            name,
            stage,
            values: [0],
          });
      }
      for (const [name, stages] of HISTOGRAMS) {
        expect(text).toContain(`# TYPE ${name} histogram`);
        // The spec's unit (milliseconds) stays as it is: in the name, and on the UNIT line.
        expect(text).toContain(`# UNIT ${name} ms`);
        for (const stage of stages) {
          const count = find(`${name}_count`, stage).map((s) => s.value);
          const sum = find(`${name}_sum`, stage).map((s) => s.value);
          const buckets = find(`${name}_bucket`, stage);
          expect({ name, stage, count, sum }).toEqual({ name, stage, count: [0], sum: [0] });
          expect(buckets.length).toBeGreaterThan(10);
          expect(buckets.find((b) => b.labels.le === '+Inf')?.value).toBe(0);
          expect(buckets.every((b) => b.value === 0)).toBe(true);
        }
      }
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it('a first breach then counts from 0 to 1 on the scrape, and the capture flush stores no zero rows', async () => {
    const promPort = await freePort();
    const t = await startTestApp('sqlite', {
      EnableOpenTelemetry: 'True',
      OpenTelemetryPrometheusPort: String(promPort),
      CaptureQueueFlushIntervalMilliseconds: '3600000',
    });
    try {
      const scrape = async () => samples(await (await fetch(`http://127.0.0.1:${promPort}/metrics`)).text());
      const value = (all: Sample[], name: string, stage: string) =>
        all.find((s) => s.name === name && s.labels.stage === stage)?.value;
      expect(value(await scrape(), 'service_engine_archiver_warn_count_total', 'RdbmsArchiveWrite')).toBe(0);
      const { PipelineTelemetry } = await import('@app/engine');
      t.app.get(PipelineTelemetry).archiverWarning({
        entityAnalysisModelGuid: '11111111-1111-4111-8111-111111111111',
        entityAnalysisModelInstanceEntryGuid: '22222222-2222-4222-8222-222222222222',
        stageId: 3,
        durationMicroseconds: 11_000_000,
      });
      const after = await scrape();
      expect(value(after, 'service_engine_archiver_warn_count_total', 'RdbmsArchiveWrite')).toBe(1);
      expect(value(after, 'service_engine_archiver_warn_count_total', 'BuildArchiveJson')).toBe(0);

      // The OpenTelemetryMetric table keeps what was measured: the breach, not the zeros nor empty histograms.
      await t.app.get(CaptureFlusher).flush();
      const rows = await t.app
        .get(DataSource)
        .query<{ InstrumentName: string; Attributes: string; Sum: number | string }[]>(
          `SELECT "InstrumentName", "Attributes", "Sum" FROM "OpenTelemetryMetric"`,
        );
      const engine = rows.filter((r) =>
        (Object.values(ENGINE_INSTRUMENTS) as string[]).includes(r.InstrumentName),
      );
      expect(engine).toEqual([
        {
          InstrumentName: ENGINE_INSTRUMENTS.archiverWarnCount,
          Attributes: JSON.stringify({ stage: 'RdbmsArchiveWrite' }),
          Sum: 1,
        },
      ]);
    } finally {
      await t.close();
    }
  });
});
