import { FoldedHistograms } from './folded-histograms';

/** OpenTelemetry's HTTP server semantic conventions: the request duration histogram, in seconds. */
export const HTTP_SERVER_REQUEST_DURATION = 'http.server.request.duration';

/** The conventions' advised bucket bounds for it, in seconds. */
const HTTP_DURATION_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** The methods the conventions name; any other is `_OTHER`, so a client cannot make series up. */
const KNOWN_METHODS = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'CONNECT',
  'OPTIONS',
  'TRACE',
  'PATCH',
]);

/** Route × method × status series kept; more share the overflow series (routes and statuses are few). */
const MAX_SERIES = 2_000;

type Recorder = (seconds: number) => void;
type ByScheme = Map<string, Recorder>;
type ByStatus = Map<number, ByScheme>;

/**
 * `http.server.request.duration` (seconds) per route template, method, status code and scheme, with
 * `error.type` for a 5xx (the conventions' attributes). Folded in place like the stage histograms (a Map
 * look-up and a bucket search a request), exported CUMULATIVE to Prometheus and OTLP; not stored in
 * OpenTelemetryMetric, which holds the spec's instruments (spec: Events). Made only when EnableOpenTelemetry
 * is True: otherwise nothing reads it, and the front layer records nothing.
 */
export class HttpServerMetrics {
  readonly histograms: FoldedHistograms;
  /** Recorders by route template (undefined: none matched), then method, then status, then scheme. */
  private readonly recorders = new Map<string | undefined, Map<string, ByStatus>>();
  private bound = 0;

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

  /**
   * One answered request. The series is found through nested maps keyed by the values themselves (the route
   * template and the method are the same string objects every time), so no key is built per request.
   */
  record(
    method: string,
    route: string | undefined,
    statusCode: number,
    scheme: string,
    seconds: number,
  ): void {
    const byMethod =
      this.recorders.get(route) ?? this.add(this.recorders, route, new Map<string, ByStatus>());
    const byStatus = byMethod.get(method) ?? this.add(byMethod, method, new Map<number, ByScheme>());
    const byScheme = byStatus.get(statusCode) ?? this.add(byStatus, statusCode, new Map<string, Recorder>());
    const record = byScheme.get(scheme) ?? this.bind(byScheme, method, route, statusCode, scheme);
    record(seconds);
  }

  private add<K, V>(map: Map<K, V>, key: K, value: V): V {
    map.set(key, value);
    return value;
  }

  private bind(
    into: Map<string, Recorder>,
    rawMethod: string,
    route: string | undefined,
    statusCode: number,
    scheme: string,
  ): Recorder {
    const method = KNOWN_METHODS.has(rawMethod) ? rawMethod : '_OTHER';
    const key = `${method} ${statusCode} ${scheme} ${route ?? ''}`;
    const record = this.histograms.bindSeries(HTTP_SERVER_REQUEST_DURATION, key, {
      'http.request.method': method,
      'http.response.status_code': statusCode,
      'url.scheme': scheme,
      ...(route !== undefined ? { 'http.route': route } : {}),
      ...(statusCode >= 500 ? { 'error.type': String(statusCode) } : {}),
    });
    // Methods a client makes up all share `_OTHER`: only the known ones are kept by their own name, and past
    // the bound none (they record into the overflow series through a fresh look-up).
    if (method !== '_OTHER' && this.bound < MAX_SERIES) {
      into.set(scheme, record);
      this.bound++;
    }
    return record;
  }
}
