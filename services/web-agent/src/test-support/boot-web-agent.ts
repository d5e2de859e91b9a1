import type { RequestListener } from 'node:http';
import type { Redis } from 'ioredis';
import type OpenAI from 'openai';
import { dataPart, textPart, type Part } from '@fleet/a2a';
import { A2AClient, discoverAgentCard } from '@fleet/a2a/client';
import { RedisTaskStore, type A2AHandler } from '@fleet/a2a/server';
import { silentLogger, startServer, type RunningServer } from '@fleet/http';
import type { WithSpanOptions } from '@fleet/telemetry';
import { createWebHandler } from '../agent';
import { createWebAnswerer } from '../answering';
import { createApp } from '../app';
import { createHostAllowlist, createPageFetcher, type ResolveHost } from '../fetching';
import { createResearcher } from '../research';
import type { SearchProvider } from '../search';

/** The token test agents require. */
export const TEST_TOKEN = 'web-agent-test-token-0123456789';

/** A web agent listening on a free port, with a client that carries the token. */
export interface RunningWebAgent {
  server: RunningServer;
  handler: A2AHandler;
  client: A2AClient;
  close(): Promise<void>;
}

/** Options for {@link bootWebAgent}. */
export interface BootWebAgentOptions {
  redis: Redis;
  keyPrefix: string;
  provider: SearchProvider | undefined;
  /** WEB_FETCH_ALLOWLIST. @default ['127.0.0.1'] (the fake web) */
  allowlist?: string[];
  resolveHost?: ResolveHost;
  llm?: { client: OpenAI; model: string } | undefined;
  tracer?: WithSpanOptions['tracer'];
  fetchPages?: number;
}

/** Boots the web agent service in-process, as `main.ts` does, on 127.0.0.1 and a free port. */
export async function bootWebAgent({
  redis,
  keyPrefix,
  provider,
  allowlist = ['127.0.0.1'],
  resolveHost,
  llm,
  tracer,
  fetchPages,
}: BootWebAgentOptions): Promise<RunningWebAgent> {
  const taskStore = new RedisTaskStore({ redis, keyPrefix });
  const target: { app?: RequestListener } = {};
  const server = await startServer({
    app: (req, res) => target.app?.(req, res),
    port: 0,
    signals: [],
  });
  const researcher = createResearcher({
    provider,
    fetchPage: createPageFetcher({
      allowlist: createHostAllowlist(allowlist),
      timeoutMs: 5_000,
      ...(resolveHost === undefined ? {} : { resolveHost }),
    }),
    answerer: createWebAnswerer({ llm, tracer }),
    ...(fetchPages === undefined ? {} : { fetchPages }),
    tracer,
  });
  const handler = createWebHandler({ researcher, store: taskStore, url: server.url, tracer });
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

/** The parts of a plan node message: the task and the fleet node input. */
export function nodeParts(options: {
  question: string;
  skill?: string;
  dependencyOutputs?: Record<string, { agent: string; summary: string; partial?: boolean }>;
}): Part[] {
  return [
    textPart(options.question),
    dataPart({
      fleet: {
        sessionId: 'session-1',
        nodeId: 'web',
        tenant: 'tenant-1',
        ...(options.skill === undefined ? {} : { skill: options.skill }),
        dependencyOutputs: options.dependencyOutputs ?? {},
      },
    }),
  ];
}
