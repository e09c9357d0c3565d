import { bool, int, text, textWithDefault } from './setting-kinds';

/** Capture queues and metric export (spec: Events, Limits), then the decisioning pipelines. */
export const PIPELINE_SETTINGS = [
  // --- capture queues and metric export (spec: Events, Limits)
  int(
    'CaptureQueueFlushIntervalMilliseconds',
    60_000,
    10,
    3_600_000,
    'How often the capture queues are written and CaptureQueueHealth is recorded (spec: once a minute).',
  ),
  int(
    'TelemetryRetentionRows',
    100_000,
    1,
    100_000_000,
    'Rows each telemetry table keeps (spec: each grid holds the last 100000); older rows are trimmed.',
  ),
  int(
    'TelemetryRetentionIntervalMilliseconds',
    60_000,
    10,
    86_400_000,
    'How often the telemetry tables are trimmed to TelemetryRetentionRows.',
  ),
  textWithDefault(
    'OpenTelemetryPrometheusHost',
    '127.0.0.1',
    'Address the Prometheus scrape endpoint binds to when EnableOpenTelemetry is True.',
  ),
  int(
    'OpenTelemetryPrometheusPort',
    9464,
    1,
    65535,
    'Port of the Prometheus scrape endpoint (/metrics) when EnableOpenTelemetry is True.',
  ),
  text(
    'OTEL_EXPORTER_OTLP_ENDPOINT',
    'Standard OpenTelemetry variable: base URL of an OTLP/HTTP receiver; metrics go to <url>/v1/metrics when EnableOpenTelemetry is True.',
    { kind: { type: 'url', protocols: ['http', 'https'] } },
  ),
  int(
    'OTEL_METRIC_EXPORT_INTERVAL',
    60_000,
    10,
    86_400_000,
    'Standard OpenTelemetry variable: milliseconds between OTLP metric exports.',
  ),
  int(
    'EventLoopDelayWarnMilliseconds',
    100,
    1,
    60_000,
    'A warn line (a summary, at most one a minute) when the event loop was held longer than this: a callback that was due waited this long (nodejs.eventloop.delay.max).',
  ),
  // --- decisioning pipelines (not named by the spec beyond the rollup interval)
  int(
    'StageRollupIntervalMilliseconds',
    60_000,
    50,
    3_600_000,
    'How often the Archiver and case creation stage rollups are written (one row per stage that ran).',
  ),
  int(
    'ArchiverQueueCapacity',
    10_000,
    1,
    1_000_000,
    'Invocations waiting for the Archiver; when full, Invoke answers 503 with Retry-After before any side effect.',
  ),
  int(
    'ArchiveBulkCopyIntervalMilliseconds',
    100,
    10,
    600_000,
    'How often buffered archive rows are bulk-inserted (BulkCopyArchiveBuffer), their cases then decided. Short, so the work comes in small pieces between the answers: at 1 000 ms, each second\'s burst raised Invoke\'s p99 about 1.5× under load.',
  ),
  int(
    'ArchiveBulkCopyBatchSize',
    2_000,
    1,
    100_000,
    'Buffered archive rows that trigger a bulk insert before the interval elapses.',
  ),
  int(
    'CaseCreationQueueCapacity',
    50_000,
    1,
    1_000_000,
    'Activations waiting for case creation (the case lag bound); while it holds this many, Invoke answers 503 with Retry-After before any side effect. The Archiver never waits for case creation, and nothing accepted is dropped.',
  ),
  int(
    'CaseCreationBatchSize',
    2_000,
    1,
    10_000,
    'Activations case creation decides together: one open-case look-up and one multi-row upsert per batch.',
  ),
  int(
    'HttpEndpointTimeoutMilliseconds',
    5_000,
    1,
    600_000,
    'Timeout of a case workflow status HTTP callback.',
  ),
  text(
    'SmtpHost',
    'SMTP server for case notifications; notifications fail (logged and counted) while unset.',
  ),
  int('SmtpPort', 25, 1, 65535, 'SMTP server port.'),
  bool('SmtpSecure', false, 'Connect to the SMTP server over TLS from the start (port 465 style).'),
  text('SmtpUser', 'SMTP user name, when the server needs authentication.'),
  text('SmtpPassword', 'SMTP password.', { secret: true }),
  textWithDefault('SmtpFrom', 'decisioning@localhost', 'Sender address of case notifications.'),
  bool(
    'CreateDemoModel',
    true,
    'On start, create the demo model, rule, workflow and statuses in the landlord tenant when missing.',
  ),
] as const;
