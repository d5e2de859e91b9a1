import type { Express } from 'express';
import type { A2AHandler } from '@fleet/a2a/server';
import { a2aRouter } from '@fleet/a2a/server/express';
import { createServiceApp, type HttpLogger, type ReadinessCheck } from '@fleet/http';

/** Everything the RAG agent app is built from. `main.ts` assembles these; tests pass their own. */
export interface AppDependencies {
  /** The A2A handler (card, agent, task store), from `createRagHandler`. */
  handler: A2AHandler;
  /** When set, `POST /a2a` needs `Authorization: Bearer <internalToken>`. */
  internalToken: string | undefined;
  logger: HttpLogger;
  /**
   * Largest JSON-RPC body in bytes: uploads travel base64-encoded inside it, so use
   * {@link a2aBodyLimit} of the upload limit. @default 1048576
   */
  bodyLimit?: number;
  /** `/readyz` checks: Redis (the task store) and the database. */
  readinessChecks?: Record<string, ReadinessCheck>;
  /** `/readyz` answers 503 once this returns true. */
  isShuttingDown?: () => boolean;
  /** Adds stacks to 500s outside production. @default false */
  exposeStack?: boolean;
  /** @default true */
  metrics?: boolean;
}

/** JSON-RPC envelope and other parts beside the file, on top of its base64 size. */
const ENVELOPE_BYTES = 1024 * 1024;

/**
 * The JSON-RPC body limit that lets a file of `maxUploadBytes` through: its base64 size (4/3)
 * plus 1 MiB.
 *
 * @example
 * a2aBodyLimit(25 * 1024 * 1024); // 36_001_112
 */
export function a2aBodyLimit(maxUploadBytes: number): number {
  return Math.ceil(maxUploadBytes / 3) * 4 + ENVELOPE_BYTES;
}

/**
 * Builds the RAG agent service: the A2A agent (`/.well-known/agent-card.json`,
 * `/.well-known/agent.json`, `POST /a2a`), `/healthz`, `/readyz` and `/metrics`. Pure: no
 * environment, no sockets (house style rule 3).
 *
 * @example
 * const app = createApp({ handler, internalToken: config.internalToken, logger, bodyLimit: a2aBodyLimit(config.maxUploadBytes) });
 * http.createServer(app).listen(8083);
 */
export function createApp({
  handler,
  internalToken,
  logger,
  bodyLimit,
  readinessChecks = {},
  isShuttingDown = () => false,
  exposeStack = false,
  metrics = true,
}: AppDependencies): Express {
  return createServiceApp({
    serviceName: 'rag-agent',
    logger,
    readinessChecks,
    isShuttingDown,
    exposeStack,
    metrics,
    routes: (app) =>
      app.use(
        a2aRouter({ handler, internalToken, ...(bodyLimit === undefined ? {} : { bodyLimit }) }),
      ),
  });
}
