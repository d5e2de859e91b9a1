import type { Express } from 'express';
import { createAgentApp, type AgentAppDependencies } from '@fleet/a2a/server/express';

/**
 * Everything the tools agent app is built from: the A2A handler from `createToolsHandler`, the
 * internal token, the logger and `/readyz` checks. `main.ts` assembles these; tests pass their own.
 */
export type AppDependencies = AgentAppDependencies;

/**
 * Builds the tools agent service: the A2A agent (`/.well-known/agent-card.json`,
 * `/.well-known/agent.json`, `POST /a2a`), `/healthz`, `/readyz` and `/metrics`. Pure: no
 * environment, no sockets (CONTRIBUTING.md convention 3).
 *
 * @example
 * const app = createApp({ handler, internalToken: config.internalToken, logger });
 * http.createServer(app).listen(8088);
 */
export function createApp(dependencies: AppDependencies): Express {
  return createAgentApp({ serviceName: 'tools-agent', ...dependencies });
}
