import { Injectable } from '@nestjs/common';
import { StreamAudience, StreamRegistry } from './stream-registry';

/**
 * Who receives an event. Telemetry (capture-queue health, stage rollups) is landlord-only like the telemetry
 * grids (spec: Errors, 403 for any other tenant), so 'landlord' is the default.
 */
export type StreamAudienceRule = 'landlord' | 'everyone' | ((audience: StreamAudience) => boolean);

/**
 * The hook through which other features push events into the open streams of THIS node (GET
 * /api/Stream/Telemetry). TelemetryStreamBridge calls it after every capture flush (one `CaptureQueueHealth`
 * event holding that flush's six rows) and every stage-rollup write (`ArchiverStagePerformanceCounter`,
 * `CaseCreationStagePerformanceCounter`, each an array of the rows written), named like the grids; every node
 * publishes what it writes itself, so a client sees the rows of the node it is connected to (subscribe on
 * each node, or read the grids, for the whole picture).
 *
 *   publisher.publish('CaptureQueueHealth', rows);          // landlord streams only
 *   publisher.publish('notice', { text }, 'everyone');
 *
 * `event` must match /^[A-Za-z][A-Za-z0-9._-]{0,63}$/; `data` is sent as one line of JSON.
 */
@Injectable()
export class StreamPublisher {
  constructor(private readonly streams: StreamRegistry) {}

  /** Returns how many open streams the event reached. */
  publish(event: string, data: unknown, audience: StreamAudienceRule = 'landlord'): number {
    const filter =
      audience === 'landlord'
        ? (a: StreamAudience) => a.landlord
        : audience === 'everyone'
          ? () => true
          : audience;
    return this.streams.broadcast(event, data, filter);
  }
}
