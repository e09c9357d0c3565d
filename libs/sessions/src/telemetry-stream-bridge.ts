import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { CAPTURE_QUEUE_NAMES, CaptureFlusher } from '@app/capture-queues';
import { StageRollupService } from '@app/engine';
import { StreamPublisher } from './stream-publisher';

/**
 * Pushes each minute's telemetry into the open streams as it is written (the console's live grids): the six
 * CaptureQueueHealth rows after every flush, and the stage rollups after every rollup write. Landlord streams
 * only, like the telemetry grids.
 */
@Injectable()
export class TelemetryStreamBridge implements OnModuleInit, OnModuleDestroy {
  private readonly unsubscribe: (() => void)[] = [];

  constructor(
    private readonly publisher: StreamPublisher,
    private readonly flusher: CaptureFlusher,
    private readonly rollups: StageRollupService,
  ) {}

  onModuleInit(): void {
    this.unsubscribe.push(
      this.flusher.onFlushed((report) => {
        if (!report.health.length) return;
        this.publisher.publish(
          'CaptureQueueHealth',
          report.health.map((h) => ({
            queueId: h.QueueId,
            queueName: h.QueueName ?? CAPTURE_QUEUE_NAMES[h.QueueId],
            queueDepth: h.QueueDepth,
            droppedCount: h.DroppedCount,
            createdDate: h.CreatedDate.toISOString(),
          })),
        );
      }),
      this.rollups.onWritten(({ archiver, caseCreation }) => {
        const shape = (r: {
          StageId: number;
          StageName: string;
          TotalMicroseconds: number;
          MinMicroseconds: number;
          MaxMicroseconds: number;
          InvokeCount: number;
          CreatedDate: Date;
        }) => ({
          stageId: r.StageId,
          stageName: r.StageName,
          totalMicroseconds: r.TotalMicroseconds,
          minMicroseconds: r.MinMicroseconds,
          maxMicroseconds: r.MaxMicroseconds,
          invokeCount: r.InvokeCount,
          createdDate: r.CreatedDate.toISOString(),
        });
        if (archiver.length)
          this.publisher.publish(
            'ArchiverStagePerformanceCounter',
            archiver.map((r) => ({ entityAnalysisModelGuid: r.EntityAnalysisModelGuid, ...shape(r) })),
          );
        if (caseCreation.length)
          this.publisher.publish('CaseCreationStagePerformanceCounter', caseCreation.map(shape));
      }),
    );
  }

  onModuleDestroy(): void {
    for (const u of this.unsubscribe) u();
  }
}
