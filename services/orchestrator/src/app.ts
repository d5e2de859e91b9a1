import type { Express } from 'express';
import type { FleetRedis } from '@fleet/a2a/server';
import type { A2AHandler } from '@fleet/a2a/server';
import { a2aRouter, observeTaskMetrics } from '@fleet/a2a/server/express';
import { createMetrics, createServiceApp, type HttpLogger } from '@fleet/http';
import type { SessionStore } from '@fleet/sessions';
import { DEFAULT_BODY_LIMIT } from './config';
import { agentsRouter, type AvailableAgent } from './discovery';
import type { AgentBreakers } from './execution';
import { registerOrchestratorMetrics } from './metrics';
import type { RunScheduler } from './scheduling';

/** Everything the orchestrator app is built from. `main.ts` assembles these; tests pass their own. */
export interface AppDependencies {
  /** The orchestrator's A2A handler (`createOrchestratorHandler`). */
  handler: A2AHandler;
  /** FLEET_INTERNAL_TOKEN: `POST /a2a` requires it. */
  internalToken: string;
  /**
   * The agents discovery knows now: `GET /internal/agents` lists them (internal token required).
   * Undefined: no listing (404).
   */
  availableAgents?: (() => Promise<AvailableAgent[]>) | undefined;
  /** Checked by `/readyz`. */
  redis: Pick<FleetRedis, 'ping'>;
  /** Resolves when the planner's card can be read; checked by `/readyz`. */
  plannerReady: () => Promise<void>;
  logger: HttpLogger;
  /** Adds stacks to 500s outside production. @default false */
  exposeStack?: boolean;
  /** `/readyz` answers 503 once this returns true. */
  isShuttingDown?: () => boolean;
  /**
   * `/metrics`: HTTP requests, the A2A task metrics, and — when `breakers` and `sessions` are
   * given — circuit breaker states and sessions awaiting approval (docs/operations.md).
   * @default true
   */
  metrics?: boolean;
  /** The breakers the runs share, for `orchestrator_agent_circuit_state`. */
  breakers?: Pick<AgentBreakers, 'agents' | 'stateOf'>;
  /** The session store, for `orchestrator_sessions_awaiting_approval`. */
  sessions?: Pick<SessionStore, 'countAwaitingApproval'>;
  /** The run scheduler, for `orchestrator_active_runs`, `orchestrator_queued_runs` and `orchestrator_run_wait_seconds`. */
  scheduler?: Pick<RunScheduler, 'snapshot' | 'onAdmission'>;
  /**
   * Largest A2A body `POST /a2a` accepts (ORCHESTRATOR_BODY_LIMIT): at least what the gateway
   * accepts, plus the envelope. @default {@link DEFAULT_BODY_LIMIT} (17 MiB)
   */
  bodyLimit?: number;
}

/**
 * Builds the orchestrator: its Agent Card at the well-known paths, the A2A JSON-RPC endpoint at
 * `POST /a2a` (bearer token required), the agent listing `GET /internal/agents` (bearer token
 * required; the gateway's `GET /v1/agents` reads it), `/healthz`, `/readyz` (Redis and the planner) and
 * `/metrics` (requests, A2A tasks, circuit breakers, sessions awaiting approval, runs executing and queued). Pure: no environment, no sockets (CONTRIBUTING.md convention 3).
 *
 * @example
 * const app = createApp({ handler, internalToken, redis, plannerReady: planner.checkReady, logger });
 * http.createServer(app).listen(8081);
 */
export function createApp({
  handler,
  internalToken,
  availableAgents,
  redis,
  plannerReady,
  logger,
  exposeStack = false,
  isShuttingDown = () => false,
  metrics = true,
  bodyLimit = DEFAULT_BODY_LIMIT,
  breakers,
  sessions,
  scheduler,
}: AppDependencies): Express {
  const serviceMetrics = metrics ? createMetrics({ serviceName: 'orchestrator' }) : undefined;
  if (serviceMetrics) {
    observeTaskMetrics({ handler, registry: serviceMetrics.registry });
    registerOrchestratorMetrics({
      registry: serviceMetrics.registry,
      breakers,
      sessions,
      scheduler,
    });
  }
  return createServiceApp({
    serviceName: 'orchestrator',
    logger,
    exposeStack,
    isShuttingDown,
    metrics: serviceMetrics ?? false,
    readinessChecks: {
      redis: async () => {
        await redis.ping();
      },
      planner: plannerReady,
    },
    routes: (app) => {
      if (availableAgents !== undefined) app.use(agentsRouter({ availableAgents, internalToken }));
      app.use(a2aRouter({ handler, internalToken, bodyLimit }));
    },
  });
}
