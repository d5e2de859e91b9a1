import type { Request, Response } from 'express';
import { Router } from 'express';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Options for {@link createMetrics}. */
export interface CreateMetricsOptions {
  /** Added as the `service` label on every metric. */
  serviceName: string;
  /** Process metrics (CPU, memory, event-loop lag). @default true */
  defaultMetrics?: boolean;
}

/** One finished request, as {@link Metrics.record} takes it. */
export interface RecordedResponse {
  method: string;
  /** The route pattern (never the raw path: label cardinality must stay bounded). */
  route: string;
  status: number;
  seconds: number;
}

/** A service's metrics: its own registry, HTTP request metrics, and the `/metrics` route. */
export interface Metrics {
  registry: Registry;
  /** Counts and times one finished request. */
  record(response: RecordedResponse): void;
  /** `GET /metrics` in the Prometheus text format. */
  router: Router;
}

/**
 * Builds a per-app Prometheus registry (never the global one, so several apps can live in one
 * test process) with request counters and latency histograms. Feed it with `observeRequests`.
 *
 * @example
 * const metrics = createMetrics({ serviceName: 'gateway' });
 * app.use(observeRequests({ logger, metrics }));
 * app.use(metrics.router);
 */
export function createMetrics({
  serviceName,
  defaultMetrics = true,
}: CreateMetricsOptions): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service: serviceName });
  if (defaultMetrics) collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, matched route and status.',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request to the end of the response, by method and matched route.',
    labelNames: ['method', 'route'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120],
    registers: [registry],
  });

  const children = new Map<
    string,
    { requests: ReturnType<typeof requests.labels>; duration: ReturnType<typeof duration.labels> }
  >();

  const router = Router();
  router.get('/metrics', async function metricsRoute(_req: Request, res: Response) {
    res.setHeader('content-type', registry.contentType);
    res.send(await registry.metrics());
  });

  return {
    registry,
    record({ method, route, status, seconds }) {
      // Labelled children are looked up once per label set: prom-client hashes labels on every call.
      const key = `${method} ${route} ${status}`;
      let series = children.get(key);
      if (series === undefined) {
        series = {
          requests: requests.labels({ method, route, status: String(status) }),
          duration: duration.labels({ method, route }),
        };
        children.set(key, series);
      }
      series.requests.inc();
      series.duration.observe(seconds);
    },
    router,
  };
}
