import { BeforeApplicationShutdown, Injectable, Module, OnApplicationBootstrap } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Clock } from '@app/runtime';
import { inertText } from '@app/input-rules';
import { CAPTURE_QUEUE_SETTINGS, type CaptureQueueSettings } from '@app/config';
import { CacheEventCapture } from './cache-event-capture';
import { CaptureFlusher } from './capture-flusher';
import { CaptureMetricReader } from './capture-metric-reader';
import { CaptureQueues } from './capture-queues.service';
import { CaptureRepository, CaptureWriter } from './capture.repository';
import { CAPTURE_ENTITIES } from './entities';
import { TelemetryRetention } from './telemetry-retention.service';
import { CAPTURE_LENGTHS } from './capture-queue-id';

/** Starts the flush once the application (and its database) is up; flushes once more on shutdown. */
@Injectable()
class CaptureFlushLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(private readonly flusher: CaptureFlusher) {}

  onApplicationBootstrap(): void {
    this.flusher.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.flusher.stop();
  }
}

@Module({
  imports: [TypeOrmModule.forFeature(CAPTURE_ENTITIES)],
  providers: [
    CaptureQueues,
    CaptureRepository,
    { provide: CaptureWriter, useExisting: CaptureRepository },
    { provide: CaptureMetricReader, useFactory: () => new CaptureMetricReader() },
    {
      provide: CaptureFlusher,
      inject: [CaptureQueues, CaptureWriter, CaptureMetricReader, Clock, CAPTURE_QUEUE_SETTINGS.token],
      useFactory: (
        queues: CaptureQueues,
        writer: CaptureWriter,
        reader: CaptureMetricReader,
        clock: Clock,
        settings: CaptureQueueSettings,
      ) =>
        new CaptureFlusher(queues, writer, reader, clock, {
          instance: inertText(settings.InstanceName, CAPTURE_LENGTHS.instance) ?? '',
          intervalMs: settings.CaptureQueueFlushIntervalMilliseconds,
        }),
    },
    CaptureFlushLifecycle,
    TelemetryRetention,
    CacheEventCapture,
  ],
  exports: [CaptureQueues, CaptureMetricReader, CaptureFlusher, TelemetryRetention],
})
export class CaptureQueuesModule {}
