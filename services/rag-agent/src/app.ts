import type { Express } from 'express';
import { createAgentApp, type AgentAppDependencies } from '@fleet/a2a/server/express';

/**
 * Everything the RAG agent app is built from: the A2A handler from `createRagHandler`, the
 * internal token, the byte routes (`contentRouter`), the logger, the JSON-RPC body limit (uploads travel base64-encoded inside it: use
 * {@link a2aBodyLimit} of the upload limit) and `/readyz` checks (Redis and the database).
 */
export type AppDependencies = AgentAppDependencies;

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
 * `/.well-known/agent.json`, `POST /a2a`), `/healthz`, `/readyz` and `/metrics`, and with
 * `internalRoutes: contentRouter({ runFiles, documents })` the byte routes
 * (`GET /internal/files/:id/content`, `GET /internal/documents/:id/content`) behind the same
 * token as `/a2a`. Pure: no environment, no sockets (CONTRIBUTING.md convention 3).
 *
 * @example
 * const app = createApp({ handler, internalToken: config.internalToken, logger, bodyLimit: a2aBodyLimit(config.maxUploadBytes) });
 * http.createServer(app).listen(8083);
 */
export function createApp(dependencies: AppDependencies): Express {
  return createAgentApp({ serviceName: 'rag-agent', ...dependencies });
}
