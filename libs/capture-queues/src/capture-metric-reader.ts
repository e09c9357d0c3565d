import {
  AggregationTemporality,
  MetricReader,
  type CollectionResult,
  type MetricProducer,
} from '@opentelemetry/sdk-metrics';

/**
 * Our own MetricReader, feeding the OpenTelemetryMetric queue: delta temporality, so each collection (one
 * per flush) holds exactly what was measured since the previous one. Registered on the service's
 * MeterProvider by the telemetry module, and always on (EnableOpenTelemetry only governs export).
 */
export class CaptureMetricReader extends MetricReader {
  private bound = false;
  /** Producers whose data is already DELTA (histograms folded in place), merged into each collection. */
  private readonly producers: MetricProducer[] = [];

  constructor() {
    super({
      aggregationTemporalitySelector: () => AggregationTemporality.DELTA,
      // The SDK's default (2000 per instrument) would fold series into an overflow series before our
      // aggregation could count them; our aggregation enforces the spec's 10000 series across instruments.
      cardinalitySelector: () => 20_001,
    });
  }

  override setMetricProducer(metricProducer: MetricProducer): void {
    super.setMetricProducer(metricProducer);
    this.bound = true;
  }

  /** Adds a producer that reports DELTA data itself: each collection of it is one interval. */
  addProducer(producer: MetricProducer): void {
    this.producers.push(producer);
  }

  /** The measurements since the previous collection, or null when no MeterProvider holds this reader. */
  async collectDelta(timeoutMillis = 5000): Promise<CollectionResult | null> {
    if (!this.bound) return null;
    const sdk = await this.collect({ timeoutMillis });
    if (!this.producers.length) return sdk;
    const extra = await Promise.all(this.producers.map((p) => p.collect({ timeoutMillis })));
    return {
      resourceMetrics: {
        resource: sdk.resourceMetrics.resource,
        scopeMetrics: [
          ...sdk.resourceMetrics.scopeMetrics,
          ...extra.flatMap((r) => r.resourceMetrics.scopeMetrics),
        ],
      },
      errors: [...sdk.errors, ...extra.flatMap((r) => r.errors)],
    };
  }

  protected override async onForceFlush(): Promise<void> {}

  protected override async onShutdown(): Promise<void> {
    this.bound = false;
  }
}
