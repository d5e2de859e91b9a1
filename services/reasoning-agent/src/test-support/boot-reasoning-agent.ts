import type { RequestListener } from 'node:http';
import type { Redis } from 'ioredis';
import { A2AClient, discoverAgentCard } from '@fleet/a2a/client';
import { RedisTaskStore, type A2AHandler } from '@fleet/a2a/server';
import { silentLogger, startServer, type RunningServer } from '@fleet/http';
import type { WithSpanOptions } from '@fleet/telemetry';
import { createReasoningHandler, type ReasoningLlm } from '../agent';
import { createApp } from '../app';
import { createReasoningTools } from '../tools';

/** The token test agents require. */
export const TEST_TOKEN = 'reasoning-agent-test-token-0123';

/** A reasoning agent listening on a free port, with a client that carries the token. */
export interface RunningReasoningAgent {
  server: RunningServer;
  handler: A2AHandler;
  client: A2AClient;
  close(): Promise<void>;
}

/** Options for {@link bootReasoningAgent}. */
export interface BootReasoningAgentOptions {
  redis: Redis;
  keyPrefix: string;
  llm: ReasoningLlm | undefined;
  /** @default 6 */
  maxIterations?: number;
  /** @default 16000 */
  maxTokens?: number;
  /** The clock of `current_time`. @default the real one */
  now?: () => Date;
  tracer?: WithSpanOptions['tracer'];
}

/** Boots the reasoning agent service in-process, as `main.ts` does, on 127.0.0.1 and a free port. */
export async function bootReasoningAgent({
  redis,
  keyPrefix,
  llm,
  maxIterations = 6,
  maxTokens = 16_000,
  now,
  tracer,
}: BootReasoningAgentOptions): Promise<RunningReasoningAgent> {
  const taskStore = new RedisTaskStore({ redis, keyPrefix });
  const target: { app?: RequestListener } = {};
  const server = await startServer({
    app: (req, res) => target.app?.(req, res),
    port: 0,
    signals: [],
  });
  const handler = createReasoningHandler({
    llm,
    tools: createReasoningTools(now === undefined ? {} : { now }),
    maxIterations,
    maxTokens,
    store: taskStore,
    url: server.url,
    tracer,
  });
  target.app = createApp({
    handler,
    internalToken: TEST_TOKEN,
    logger: silentLogger,
    readinessChecks: {
      redis: async () => {
        await redis.ping();
      },
    },
    isShuttingDown: () => server.isShuttingDown(),
    metrics: false,
  });
  const card = await discoverAgentCard(server.url);
  return {
    server,
    handler,
    client: new A2AClient({ card, token: TEST_TOKEN, timeoutMs: 30_000 }),
    async close() {
      await handler.close();
      await server.shutdown();
      await taskStore.close();
    },
  };
}
