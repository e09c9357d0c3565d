import type { Request, Response } from 'express';
import { performance } from 'node:perf_hooks';
import type { HttpServerMetrics } from '@app/telemetry';

/** The template of the route that answered (`/api/TenantRegistry/:guid`), or undefined when none matched. */
function routeOf(req: Request): string | undefined {
  const route = (req as { route?: { path?: unknown } }).route;
  return typeof route?.path === 'string' ? route.path : undefined;
}

/**
 * The front layer's step for the request metrics (`http.server.request.duration`, HttpServerMetrics): the time
 * from this step to the answer's last byte handed to the socket, by route template, method, status code and
 * scheme. A request the client left before its answer was sent is not measured (it has no status).
 */
export function requestMetrics(metrics: HttpServerMetrics): (req: Request, res: Response) => void {
  return (req, res) => {
    const started = performance.now();
    res.once('finish', () =>
      metrics.record({
        method: req.method,
        route: routeOf(req),
        statusCode: res.statusCode,
        scheme: req.protocol,
        seconds: (performance.now() - started) / 1000,
      }),
    );
  };
}
