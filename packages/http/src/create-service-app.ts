import express, { type Express } from 'express';
import { errorMiddleware, notFoundHandler, type ErrorFormat } from './error-middleware';
import { healthRoutes, type ReadinessCheck } from './health';
import type { HttpLogger } from './logger';
import { createMetrics, type Metrics } from './metrics';
import { observeRequests } from './observe-requests';
import { requestId } from './request-id';

/** Options for {@link createServiceApp}. */
export interface CreateServiceAppOptions {
  /** The `service` label on its metrics. */
  serviceName: string;
  logger: HttpLogger;
  /** The service's own routes, mounted after the shared ones and before the 404 and error handlers. */
  routes: (app: Express) => void;
  /** Dependencies `/readyz` checks. */
  readinessChecks?: Record<string, ReadinessCheck>;
  /** `/readyz` answers 503 once this returns true. */
  isShuttingDown?: () => boolean;
  /** How errors look on the wire. @default 'fleet' */
  errorFormat?: ErrorFormat;
  /** Adds stacks to 500s outside production. @default false */
  exposeStack?: boolean;
  /**
   * `/metrics` and request metrics: true for the app's own registry, or a registry the service
   * also feeds elsewhere (a hot path outside express). @default true
   */
  metrics?: boolean | Metrics;
}

/**
 * The express app every fleet service starts from (docs/architecture.md §1): request ids, access logs
 * and Prometheus metrics, `/healthz` and `/readyz`, then the service's routes, then a 404 and the
 * one error handler (CONTRIBUTING.md convention 12). Pure, like the `createApp` that calls it.
 *
 * @example
 * return createServiceApp({
 *   serviceName: 'planner', logger, readinessChecks: { redis: () => redis.ping().then(() => undefined) },
 *   routes: (app) => app.use(a2aRouter({ handler, internalToken })),
 * });
 */
export function createServiceApp({
  serviceName,
  logger,
  routes,
  readinessChecks = {},
  isShuttingDown = () => false,
  errorFormat = 'fleet',
  exposeStack = false,
  metrics: withMetrics = true,
}: CreateServiceAppOptions): Express {
  const metrics =
    withMetrics === true
      ? createMetrics({ serviceName })
      : withMetrics === false
        ? undefined
        : withMetrics;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestId());
  app.use(observeRequests({ logger, metrics }));
  if (metrics) app.use(metrics.router);
  app.use(healthRoutes({ checks: readinessChecks, isShuttingDown }));
  routes(app);
  app.use(notFoundHandler({ format: errorFormat }));
  app.use(errorMiddleware({ format: errorFormat, logger, exposeStack }));
  return app;
}
