import type { Express, Router } from 'express';
import {
  createMetrics,
  createServiceApp,
  requireBearerToken,
  type HttpLogger,
  type ReadinessCheck,
} from '@fleet/http';
import type { A2AHandler } from '../create-a2a-handler';
import { a2aRouter } from './a2a-router';
import { observeTaskMetrics } from './observe-task-metrics';

/** Everything an agent service's app is built from. `main.ts` assembles these; tests pass their own. */
export interface AgentAppDependencies {
  /** The A2A handler (card, agent, task store). */
  handler: A2AHandler;
  /** When set, `POST /a2a` needs `Authorization: Bearer <internalToken>`. */
  internalToken: string | undefined;
  logger: HttpLogger;
  /** Largest JSON-RPC body in bytes. @default 1048576 */
  bodyLimit?: number;
  /** `/readyz` checks, e.g. `{ redis: () => redis.ping() }` for the task store. */
  readinessChecks?: Record<string, ReadinessCheck>;
  /** `/readyz` answers 503 once this returns true. */
  isShuttingDown?: () => boolean;
  /** Adds stacks to 500s outside production. @default false */
  exposeStack?: boolean;
  /** `/metrics`: HTTP requests and the A2A task metrics (`observeTaskMetrics`). @default true */
  metrics?: boolean;
  /**
   * Plain HTTP routes for the fleet's other services (not A2A), mounted at
   * {@link INTERNAL_ROUTES_PATH} behind the same token check as `POST /a2a` (401 with the fleet's
   * JSON error body without `Authorization: Bearer <internalToken>`). A router path `/files/:id`
   * answers `/internal/files/:id`.
   */
  internalRoutes?: Router;
}

/** Where an agent app mounts its {@link AgentAppDependencies.internalRoutes}. */
export const INTERNAL_ROUTES_PATH = '/internal';

/**
 * Builds an A2A agent service: the agent (`/.well-known/agent-card.json`,
 * `/.well-known/agent.json`, `POST /a2a`), `/healthz`, `/readyz` and `/metrics` (HTTP requests,
 * tasks in flight and task durations by state). Pure: no
 * environment, no sockets (CONTRIBUTING.md convention 3).
 *
 * @example
 * const app = createAgentApp({ serviceName: 'web-agent', handler, internalToken: config.internalToken, logger });
 * http.createServer(app).listen(8084);
 */
export function createAgentApp({
  serviceName,
  handler,
  internalToken,
  logger,
  bodyLimit,
  readinessChecks = {},
  isShuttingDown = () => false,
  exposeStack = false,
  metrics = true,
  internalRoutes,
}: AgentAppDependencies & { serviceName: string }): Express {
  const serviceMetrics = metrics ? createMetrics({ serviceName }) : undefined;
  if (serviceMetrics) observeTaskMetrics({ handler, registry: serviceMetrics.registry });
  return createServiceApp({
    serviceName,
    logger,
    readinessChecks,
    isShuttingDown,
    exposeStack,
    metrics: serviceMetrics ?? false,
    routes: (app) => {
      app.use(
        a2aRouter({ handler, internalToken, ...(bodyLimit === undefined ? {} : { bodyLimit }) }),
      );
      if (internalRoutes !== undefined) {
        const guard =
          internalToken === undefined
            ? []
            : [
                requireBearerToken({
                  token: internalToken,
                  message: 'This agent needs Authorization: Bearer <internal token>.',
                }),
              ];
        app.use(INTERNAL_ROUTES_PATH, ...guard, internalRoutes);
      }
    },
  });
}
