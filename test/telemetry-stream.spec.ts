import { CaptureFlusher } from '@app/capture-queues';
import { Permission } from '@app/access';
import { ArchiverStage } from '@app/telemetry';
import { StageRollupService } from '@app/engine';
import { createUser, landlordActor } from './factories/identity.factory';
import { signIn } from './support/auth';
import { openStream } from './support/sse';
import { startTestApp, TestApp } from './support/test-app';

describe('telemetry in the stream (GET /api/Stream/Telemetry)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite', {
      CaptureQueueFlushIntervalMilliseconds: '3600000',
      StageRollupIntervalMilliseconds: '3600000',
    });
  });
  afterAll(() => t.close());

  it('a landlord stream receives the six health rows after each flush and the stage rollups as they are written; a tenant stream does not', async () => {
    const landlord = await createUser(t.app, { tenantGuid: (await landlordActor(t.app)).tenantGuid });
    const tenant = await createUser(t.app, { permissions: [Permission.Invoke] });
    const own = await openStream(`${t.url}/api/Stream/Telemetry`, {
      Authorization: `Bearer ${(await signIn(t.url, landlord.name, landlord.password)).token}`,
    });
    const other = await openStream(`${t.url}/api/Stream/Telemetry`, {
      Authorization: `Bearer ${(await signIn(t.url, tenant.name, tenant.password)).token}`,
    });
    try {
      expect(own.status).toBe(200);
      const health = own.nextEvent('CaptureQueueHealth', 5000);
      await t.app.get(CaptureFlusher).flush();
      const rows = JSON.parse((await health).data) as { queueId: number; queueName: string }[];
      expect(rows.map((r) => r.queueId).sort()).toEqual([1, 2, 3, 4, 5, 6]);
      expect(rows.find((r) => r.queueId === 6)?.queueName).toBe('OpenTelemetryMetric');

      const rollups = t.app.get(StageRollupService);
      const counters = own.nextEvent('ArchiverStagePerformanceCounter', 5000);
      rollups.recordArchiver('11111111-2222-4333-8444-555555555555', ArchiverStage.BuildArchiveJson, 250);
      await rollups.flush();
      expect(JSON.parse((await counters).data)).toEqual([
        expect.objectContaining({
          stageId: 1,
          stageName: 'BuildArchiveJson',
          totalMicroseconds: 250,
          invokeCount: 1,
        }),
      ]);
      expect(
        other.events.some(
          (e) => e.event === 'CaptureQueueHealth' || e.event === 'ArchiverStagePerformanceCounter',
        ),
      ).toBe(false);
    } finally {
      own.close();
      other.close();
    }
  });
});
