import type { Request, Response } from 'express';
import { performance } from 'node:perf_hooks';
import type { Socket } from 'node:net';
import type { HttpServerMetrics } from '@app/telemetry';

/** When the front layer took the request, kept on its response (no closure per request). */
const STARTED = Symbol('request-metrics-started');

type MeasuredResponse = Response & { [STARTED]?: number };

/**
 * The front layer's step for the request metrics (`http.server.request.duration`, HttpServerMetrics): the time
 * from this step to the answer's last byte handed to the socket, by route template (`req.route.path`, set by
 * Express's router; none when no route matched), method, status code and scheme. A request the client left
 * before its answer was sent is not measured (it has no status). One shared listener and a number on the
 * response, and the scheme from the socket unless a proxy is trusted: the whole step costs a few per cent of
 * the cheapest answer (docs/performance.md, bench:pair).
 */
export function requestMetrics(
  metrics: HttpServerMetrics,
  trustProxy: boolean,
): (req: Request, res: Response) => void {
  function answered(this: MeasuredResponse): void {
    const req = this.req;
    const route = (req as { route?: { path?: unknown } }).route?.path;
    metrics.record(
      req.method,
      typeof route === 'string' ? route : undefined,
      this.statusCode,
      trustProxy
        ? req.protocol
        : (req.socket as Socket & { encrypted?: boolean }).encrypted
          ? 'https'
          : 'http',
      (performance.now() - (this[STARTED] ?? 0)) / 1000,
    );
  }
  return (_req, res) => {
    (res as MeasuredResponse)[STARTED] = performance.now();
    res.on('finish', answered);
  };
}
