import type { Express } from 'express';
import type { A2AHandler } from '@fleet/a2a/server';
import { a2aRouter } from '@fleet/a2a/server/express';
import { createServiceApp, type HttpLogger, type ReadinessCheck } from '@fleet/http';

/** Everything the code agent app is built from. `main.ts` assembles these; tests pass their own. */
export interface AppDependencies {
  /** The A2A handler (card, agent, task store), from `createCodeHandler`. */
  handler: A2AHandler;
  /** When set, `POST /a2a` needs `Authorization: Bearer <internalToken>`. */
  internalToken: string | undefined;
  logger: HttpLogger;
  /** `/readyz` checks: Redis (the task store). */
  readinessChecks?: Record<string, ReadinessCheck>;
  /** `/readyz` answers 503 once this returns true. */
  isShuttingDown?: () => boolean;
  /** Adds stacks to 500s outside production. @default false */
  exposeStack?: boolean;
  /** @default true */
  metrics?: boolean;
}

/**
 * Builds the code agent service: the A2A agent (`/.well-known/agent-card.json`,
 * `/.well-known/agent.json`, `POST /a2a`), `/healthz`, `/readyz` and `/metrics`. Pure: no
 * environment, no sockets (house style rule 3).
 *
 * @example
 * const app = createApp({ handler, internalToken: config.internalToken, logger });
 * http.createServer(app).listen(8086);
 */
export function createApp({
  handler,
  internalToken,
  logger,
  readinessChecks = {},
  isShuttingDown = () => false,
  exposeStack = false,
  metrics = true,
}: AppDependencies): Express {
  return createServiceApp({
    serviceName: 'code-agent',
    logger,
    readinessChecks,
    isShuttingDown,
    exposeStack,
    metrics,
    routes: (app) => app.use(a2aRouter({ handler, internalToken })),
  });
}
