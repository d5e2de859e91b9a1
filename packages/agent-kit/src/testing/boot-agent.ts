import type { RequestListener } from 'node:http';
import type { Router } from 'express';
import type { Redis } from 'ioredis';
import { dataPart, textPart, type DependencyOutput, type Part } from '@fleet/a2a';
import { A2AClient, discoverAgentCard } from '@fleet/a2a/client';
import { RedisTaskStore, type A2AHandler } from '@fleet/a2a/server';
import { createAgentApp } from '@fleet/a2a/server/express';
import { silentLogger, startServer, type ReadinessCheck, type RunningServer } from '@fleet/http';
import type { AgentHandlerParts } from '../start-agent-service';

/** Options for {@link bootAgent}. */
export interface BootAgentOptions<THandler extends A2AHandler = A2AHandler> {
  /** `web-agent`: the app's service name. */
  serviceName: string;
  /** The task store's Redis (the test's own connection; not closed by `close()`). */
  redis: Redis;
  /** A prefix of its own per test file, so runs do not see each other's tasks. */
  keyPrefix: string;
  /** The internal token `/a2a` requires and the client sends (at least 16 characters). */
  token: string;
  /** Builds the handler, as `main.ts` does, on the task store and the server's URL. */
  createHandler: (parts: AgentHandlerParts) => THandler;
  /** Largest JSON-RPC body in bytes. @default 1048576 */
  bodyLimit?: number;
  /** Plain HTTP routes at `/internal/…`, behind the token (`createAgentApp`'s `internalRoutes`). */
  internalRoutes?: Router;
  /** `/readyz` checks besides Redis. */
  readinessChecks?: Record<string, ReadinessCheck>;
  /** The client's per-call timeout. @default 30000 */
  clientTimeoutMs?: number;
}

/** An agent listening on 127.0.0.1 and a free port, with a client that carries the token. */
export interface BootedAgent<THandler extends A2AHandler = A2AHandler> {
  server: RunningServer;
  handler: THandler;
  taskStore: RedisTaskStore;
  client: A2AClient;
  url: string;
  /** Stops running turns, the server and the task store (not Redis). */
  close(): Promise<void>;
}

/**
 * Boots an agent service in-process the way `startAgentService` does in `main.ts` (the same app,
 * card, token check and Redis task store), on 127.0.0.1 and a free port, without metrics or logs.
 *
 * @example
 * const agent = await bootAgent({ serviceName: 'web-agent', redis, keyPrefix: 'test:web',
 *   token: TEST_TOKEN, createHandler: ({ store, url }) => createWebHandler({ researcher, store, url }) });
 * const task = await agent.client.sendMessage({ message });
 */
export async function bootAgent<THandler extends A2AHandler>({
  serviceName,
  redis,
  keyPrefix,
  token,
  createHandler,
  bodyLimit,
  internalRoutes,
  readinessChecks = {},
  clientTimeoutMs = 30_000,
}: BootAgentOptions<THandler>): Promise<BootedAgent<THandler>> {
  const taskStore = new RedisTaskStore({ redis, keyPrefix });
  // The handler's card needs the server's URL, and the server needs the app: start the server on
  // a listener that forwards to the app once it exists.
  const target: { app?: RequestListener } = {};
  const server = await startServer({
    app: (req, res) => target.app?.(req, res),
    port: 0,
    signals: [],
  });
  const handler = createHandler({ store: taskStore, url: server.url });
  target.app = createAgentApp({
    serviceName,
    handler,
    internalToken: token,
    logger: silentLogger,
    ...(bodyLimit === undefined ? {} : { bodyLimit }),
    ...(internalRoutes === undefined ? {} : { internalRoutes }),
    readinessChecks: {
      redis: async () => {
        await redis.ping();
      },
      ...readinessChecks,
    },
    isShuttingDown: () => server.isShuttingDown(),
    metrics: false,
  });
  const card = await discoverAgentCard(server.url);
  return {
    server,
    handler,
    taskStore,
    url: server.url,
    client: new A2AClient({ card, token, timeoutMs: clientTimeoutMs }),
    async close() {
      await handler.close();
      await server.shutdown();
      await taskStore.close();
    },
  };
}

/** Options for {@link nodeParts}. */
export interface NodePartsOptions {
  /** The task text (the text part). */
  text: string;
  skill?: string;
  dependencyOutputs?: Record<string, DependencyOutput>;
  /** @default 'session-1' */
  sessionId?: string;
  /** @default 'node-1' */
  nodeId?: string;
  /** @default 'tenant-1' */
  tenant?: string;
}

/** The parts of a plan node message, as the orchestrator sends them: the task and the node input. */
export function nodeParts({
  text,
  skill,
  dependencyOutputs = {},
  sessionId = 'session-1',
  nodeId = 'node-1',
  tenant = 'tenant-1',
}: NodePartsOptions): Part[] {
  return [
    textPart(text),
    dataPart({
      fleet: {
        sessionId,
        nodeId,
        tenant,
        ...(skill === undefined ? {} : { skill }),
        dependencyOutputs,
      },
    }),
  ];
}
