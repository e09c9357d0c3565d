import { FoldedHistograms } from './folded-histograms';

/** OpenTelemetry's HTTP server semantic conventions: the request duration histogram, in seconds. */
export const HTTP_SERVER_REQUEST_DURATION = 'http.server.request.duration';

/** The conventions' advised bucket bounds for it, in seconds. */
const HTTP_DURATION_BUCKETS_S = [
  0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
];

/** The methods the conventions name; any other is `_OTHER`, so a client cannot make series up. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);

/** Route × method × status series kept; more share the overflow series (routes and statuses are few). */
const MAX_SERIES = 2_000;

/** What the front layer knows of an answered request. */
export interface AnsweredRequest {
  method: string;
  /** The matched route's template (`/api/TenantRegistry/:guid`); undefined when no route matched. */
  route: string | undefined;
  statusCode: number;
  scheme: string;
  seconds: number;
}

/**
 * `http.server.request.duration` (seconds) per route template, method, status code and scheme, with
 * `error.type` for a 5xx (the conventions' attributes). Folded in place like the stage histograms (a Map
 * look-up and a bucket search a request), exported CUMULATIVE to Prometheus and OTLP; not stored in
 * OpenTelemetryMetric, which holds the spec's instruments (spec: Events). Made only when EnableOpenTelemetry
 * is True: otherwise nothing reads it, and the front layer records nothing.
 */
export class HttpServerMetrics {
  readonly histograms: FoldedHistograms;
  private readonly recorders = new Map<string, (seconds: number) => void>();

  constructor(scope: string) {
    this.histograms = new FoldedHistograms(
      [
        {
          name: HTTP_SERVER_REQUEST_DURATION,
          unit: 's',
          description: 'Duration of HTTP server requests.',
          boundaries: HTTP_DURATION_BUCKETS_S,
          maxSeries: MAX_SERIES,
        },
      ],
      scope,
    );
  }

  record(answer: AnsweredRequest): void {
    const method = KNOWN_METHODS.has(answer.method) ? answer.method : '_OTHER';
    const key = `${method} ${answer.statusCode} ${answer.scheme} ${answer.route ?? ''}`;
    let record = this.recorders.get(key);
    if (!record) {
      record = this.histograms.bindSeries(HTTP_SERVER_REQUEST_DURATION, key, {
        'http.request.method': method,
        'http.response.status_code': answer.statusCode,
        'url.scheme': answer.scheme,
        ...(answer.route !== undefined ? { 'http.route': answer.route } : {}),
        ...(answer.statusCode >= 500 ? { 'error.type': String(answer.statusCode) } : {}),
      });
      // past the bound every new key records into the overflow series; its recorders are not kept
      if (this.recorders.size < MAX_SERIES) this.recorders.set(key, record);
    }
    record(answer.seconds);
  }
}
