import request from 'supertest';
import { DataSource } from 'typeorm';
import { ApiKeyService } from '@app/api-keys';
import { CaptureFlusher } from '@app/capture-queues';
import { EXAMPLE_GUID } from '@app/input-rules';
import { HTTP_SERVER_REQUEST_DURATION, HttpServerMetrics } from '@app/telemetry';
import { freePort } from '../support/free-port';
import { startTestApp, TestApp } from '../support/test-app';
import { landlordActor } from '../factories/identity.factory';
import { samples } from '../support/prometheus';

const DURATION = 'http_server_request_duration_seconds';

/**
 * The OpenTelemetry HTTP server request metrics on the Prometheus scrape:
 * `http.server.request.duration` in seconds per route template, method and status code, and every histogram's
 * name ending with its unit's word, every counter's with `_total` once.
 */
describe('request metrics on a Prometheus scrape', () => {
  let t: TestApp;
  let promPort: number;
  let key: string;
  const scrape = async () => (await fetch(`http://127.0.0.1:${promPort}/metrics`)).text();

  beforeAll(async () => {
    promPort = await freePort();
    t = await startTestApp('postgres', {
      EnableOpenTelemetry: 'True',
      OpenTelemetryPrometheusPort: String(promPort),
      CaptureQueueFlushIntervalMilliseconds: '3600000',
    });
    const landlord = await landlordActor(t.app);
    key = (
      await t.app
        .get(ApiKeyService)
        .create(landlord, { userRegistryGuid: landlord.userGuid, name: 'metrics' })
    ).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('counts each answer by route template, method and status code, in seconds', async () => {
    for (let i = 0; i < 3; i++) await request(t.url).get('/api/Live').expect(200);
    await request(t.url).get('/api/TenantRegistry').expect(401);
    await request(t.url).get(`/api/TenantRegistry/${EXAMPLE_GUID}`).set('x-api-key', key).expect(404);
    await request(t.url)
      .post('/api/TenantRegistry')
      .set('x-api-key', key)
      .send({ name: 'Measured' })
      .expect(201);
    await request(t.url).get('/api/NoSuchRoute').expect(404);
    await request(t.url).delete('/api/Live').expect(405);

    const text = await scrape();
    expect(text).toContain(`# TYPE ${DURATION} histogram`);
    expect(text).toContain(`# UNIT ${DURATION} s`);
    const all = samples(text);
    const count = (labels: Record<string, string>) =>
      all
        .filter(
          (s) =>
            s.name === `${DURATION}_count` &&
            Object.entries(labels).every(([k, v]) => s.labels[k] === v) &&
            (labels.http_route !== undefined || s.labels.http_route === undefined),
        )
        .map((s) => s.value);
    const get = { http_request_method: 'GET', url_scheme: 'http' };
    expect(count({ ...get, http_route: '/api/Live', http_response_status_code: '200' })).toEqual([3]);
    expect(count({ ...get, http_route: '/api/TenantRegistry', http_response_status_code: '401' })).toEqual([
      1,
    ]);
    expect(
      count({ ...get, http_route: '/api/TenantRegistry/:guid', http_response_status_code: '404' }),
    ).toEqual([1]);
    expect(
      count({
        http_request_method: 'POST',
        http_route: '/api/TenantRegistry',
        http_response_status_code: '201',
      }),
    ).toEqual([1]);
    // No route answered: no http.route (the conventions' rule), so an unknown path makes no new series.
    expect(count({ ...get, http_response_status_code: '404' })).toEqual([1]);
    expect(count({ http_request_method: 'DELETE', http_response_status_code: '405' })).toEqual([1]);
    // Seconds: a Live answer takes far less than one.
    const liveSum = all.find(
      (s) => s.name === `${DURATION}_sum` && s.labels.http_route === '/api/Live',
    )!.value;
    expect(liveSum).toBeGreaterThan(0);
    expect(liveSum).toBeLessThan(3);
    const buckets = all.filter((s) => s.name === `${DURATION}_bucket` && s.labels.http_route === '/api/Live');
    expect(buckets.map((b) => b.labels.le)).toEqual([
      '0.005',
      '0.01',
      '0.025',
      '0.05',
      '0.075',
      '0.1',
      '0.25',
      '0.5',
      '0.75',
      '1',
      '2.5',
      '5',
      '7.5',
      '10',
      '+Inf',
    ]);
  });

  it('names every histogram with its unit and every counter with _total once; the spec instruments stay in ms', async () => {
    const text = await scrape();
    const types = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => ({ name: m[1], type: m[2] }));
    const units = new Map([...text.matchAll(/^# UNIT (\S+) (\S+)$/gm)].map((m) => [m[1], m[2]]));
    const words: Record<string, string> = { ms: 'milliseconds', s: 'seconds' };
    const wrong: string[] = [];
    for (const { name, type } of types) {
      if (type === 'counter' && (!name.endsWith('_total') || name.endsWith('_total_total')))
        wrong.push(`counter ${name}`);
      const unit = units.get(name);
      if (type === 'histogram' && (!unit || !name.endsWith(`_${words[unit]}`)))
        wrong.push(`histogram ${name} (${unit})`);
    }
    expect(wrong).toEqual([]);
    expect(
      types
        .filter((x) => x.type === 'histogram')
        .map((x) => x.name)
        .sort(),
    ).toEqual([
      DURATION,
      'service_engine_archiver_stage_duration_milliseconds',
      'service_engine_casecreation_stage_duration_milliseconds',
      'service_engine_stage_duration_milliseconds',
    ]);
    expect(units.get('service_engine_stage_duration_milliseconds')).toBe('ms');
  });

  it('keeps the request metrics out of the OpenTelemetryMetric table (the spec’s instruments only)', async () => {
    await request(t.url).get('/api/Live').expect(200);
    await t.app.get(CaptureFlusher).flush();
    const rows = await t.app
      .get(DataSource)
      .query<unknown[]>(`SELECT 1 FROM "OpenTelemetryMetric" WHERE "InstrumentName" = $1`, [
        HTTP_SERVER_REQUEST_DURATION,
      ]);
    expect(rows).toEqual([]);
  });
});

describe('request metrics without EnableOpenTelemetry', () => {
  it('records nothing: nothing would read it', async () => {
    const t = await startTestApp('sqlite');
    try {
      await request(t.url).get('/api/Live').expect(200);
      const collected = await t.app.get(HttpServerMetrics).histograms.cumulativeProducer().collect();
      expect(collected.resourceMetrics.scopeMetrics[0].metrics).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
