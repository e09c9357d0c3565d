import {
  Inject,
  Injectable,
  Logger,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import { metrics } from '@opentelemetry/api';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader, type IMetricReader } from '@opentelemetry/sdk-metrics';
import { CaptureMetricReader, CaptureQueuesModule } from '@app/capture-queues';
import { TELEMETRY_SETTINGS, type TelemetrySettings } from '@app/config';
import { EngineMetrics, engineHistograms } from './engine-metrics';
import { DatabaseSizeRepository } from '@app/database';
import { DatabaseSizeGauges } from './database-size-gauges';
import { EventLoopDelay } from './event-loop-delay';
import { FoldedHistograms } from './folded-histograms';
import { HttpServerMetrics } from './http-server-metrics';
import { RuntimeController } from './runtime.controller';

/** Name of the service's meter and resource. */
export const SERVICE_NAME = 'decisioning-operations-service';

/** The service's MeterProvider, with the readers it was built with. */
export class ServiceMeterProvider {
  readonly provider: MeterProvider;
  readonly prometheus: PrometheusExporter | null;
  readonly otlp: PeriodicExportingMetricReader | null;

  constructor(
    settings: TelemetrySettings,
    capture: CaptureMetricReader,
    folded: FoldedHistograms,
    http: HttpServerMetrics,
  ) {
    // Histograms folded in place reach every reader as a producer: the capture reader stores intervals
    // (DELTA); the exporters, like the SDK's own instruments there, report totals (CUMULATIVE).
    capture.addProducer(folded.deltaProducer());
    const readers: IMetricReader[] = [capture];
    this.prometheus = null;
    this.otlp = null;
    if (settings.EnableOpenTelemetry) {
      this.prometheus = new PrometheusExporter({
        host: settings.OpenTelemetryPrometheusHost,
        port: settings.OpenTelemetryPrometheusPort,
        preventServerStart: true,
        // Prometheus names carry their unit (…_milliseconds, …_seconds); OTLP keeps the instruments' names.
        metricProducers: [
          folded.cumulativeProducer({ prometheusNames: true }),
          http.histograms.cumulativeProducer({ prometheusNames: true }),
        ],
      });
      readers.push(this.prometheus);
      const endpoint = settings.OTEL_EXPORTER_OTLP_ENDPOINT;
      if (endpoint) {
        const interval = settings.OTEL_METRIC_EXPORT_INTERVAL;
        this.otlp = new PeriodicExportingMetricReader({
          exporter: new OTLPMetricExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/metrics` }),
          exportIntervalMillis: interval,
          exportTimeoutMillis: Math.min(interval, 30_000),
          metricProducers: [folded.cumulativeProducer(), http.histograms.cumulativeProducer()],
        });
        readers.push(this.otlp);
      }
    }
    this.provider = new MeterProvider({
      resource: resourceFromAttributes({
        'service.name': SERVICE_NAME,
        'service.instance.id': settings.InstanceName,
      }),
      readers,
    });
  }
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Opens the Prometheus endpoint, makes the provider the process's global one, and shuts it down last. */
@Injectable()
class TelemetryLifecycle implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Telemetry');
  private global = false;

  constructor(
    private readonly meters: ServiceMeterProvider,
    private readonly eventLoop: EventLoopDelay,
    private readonly sizes: DatabaseSizeGauges,
    @Inject(TELEMETRY_SETTINGS.token) private readonly settings: TelemetrySettings,
  ) {}

  async onModuleInit(): Promise<void> {
    const meter = this.meters.provider.getMeter(SERVICE_NAME);
    this.eventLoop.observeOn(meter);
    this.eventLoop.start();
    this.sizes.observeOn(meter);
    // So libraries measuring through @opentelemetry/api land in the same readers (first app of a process).
    this.global = metrics.setGlobalMeterProvider(this.meters.provider);
    if (this.meters.prometheus) {
      try {
        await this.meters.prometheus.startServer();
        this.logger.log(
          `Prometheus metrics on http://${this.settings.OpenTelemetryPrometheusHost}:${this.settings.OpenTelemetryPrometheusPort}/metrics`,
        );
      } catch (err) {
        // Export is an aid to operations: the service keeps running, loudly.
        this.logger.error(`The Prometheus endpoint could not open: ${message(err)}`);
      }
    }
  }

  onApplicationBootstrap(): void {
    // after the migrations (the database module's start-up) have made the tables
    this.sizes.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.eventLoop.stop();
    this.sizes.stop();
    // After the capture flush's last collection (beforeApplicationShutdown); sends a last OTLP export.
    try {
      await this.meters.provider.shutdown({ timeoutMillis: 5000 });
    } catch (err) {
      this.logger.warn(`Metric shutdown: ${message(err)}`);
    }
    if (this.global) metrics.disable();
  }
}

@Module({
  imports: [CaptureQueuesModule],
  providers: [
    { provide: FoldedHistograms, useFactory: () => engineHistograms(SERVICE_NAME) },
    { provide: HttpServerMetrics, useFactory: () => new HttpServerMetrics(SERVICE_NAME) },
    {
      provide: ServiceMeterProvider,
      inject: [TELEMETRY_SETTINGS.token, CaptureMetricReader, FoldedHistograms, HttpServerMetrics],
      useFactory: (
        settings: TelemetrySettings,
        capture: CaptureMetricReader,
        folded: FoldedHistograms,
        http: HttpServerMetrics,
      ) => new ServiceMeterProvider(settings, capture, folded, http),
    },
    {
      provide: EngineMetrics,
      inject: [ServiceMeterProvider, FoldedHistograms],
      useFactory: (m: ServiceMeterProvider, folded: FoldedHistograms) =>
        new EngineMetrics(m.provider.getMeter(SERVICE_NAME), folded),
    },
    DatabaseSizeRepository,
    {
      provide: DatabaseSizeGauges,
      inject: [DatabaseSizeRepository],
      useFactory: (repository: DatabaseSizeRepository) => new DatabaseSizeGauges(repository),
    },
    {
      provide: EventLoopDelay,
      inject: [TELEMETRY_SETTINGS.token],
      useFactory: (settings: TelemetrySettings) =>
        new EventLoopDelay(settings.EventLoopDelayWarnMilliseconds),
    },
    TelemetryLifecycle,
  ],
  controllers: [RuntimeController],
  exports: [
    ServiceMeterProvider,
    EngineMetrics,
    HttpServerMetrics,
    EventLoopDelay,
    DatabaseSizeGauges,
    CaptureQueuesModule,
  ],
})
export class TelemetryModule {}
