import type { RequestListener } from 'node:http';
import type { Redis } from 'ioredis';
import type OpenAI from 'openai';
import { dataPart, textPart, type DependencyOutput, type Part } from '@fleet/a2a';
import { A2AClient, discoverAgentCard } from '@fleet/a2a/client';
import { RedisTaskStore, type A2AHandler } from '@fleet/a2a/server';
import { silentLogger, startServer, type RunningServer } from '@fleet/http';
import { createCodeHandler } from '../agent';
import { createApp } from '../app';
import { createCodeWriter } from '../authoring';
import { createSandbox, type CreateSandboxOptions, type Sandbox } from '../sandbox';

/** The token test agents require. */
export const TEST_TOKEN = 'code-agent-test-token-0123456789';

/** A code agent listening on a free port, with a client that carries the token. */
export interface RunningCodeAgent {
  server: RunningServer;
  handler: A2AHandler;
  taskStore: RedisTaskStore;
  sandbox: Sandbox;
  client: A2AClient;
  close(): Promise<void>;
}

/** Options for {@link bootCodeAgent}. */
export interface BootCodeAgentOptions {
  redis: Redis;
  keyPrefix: string;
  /** Online mode: the LLM that writes the programs. */
  llm?: { client: OpenAI; model: string } | undefined;
  sandbox?: CreateSandboxOptions;
  /** Wraps the sandbox, e.g. to count runs. */
  wrapSandbox?: (sandbox: Sandbox) => Sandbox;
  requireApproval?: boolean;
  maxAttempts?: number;
  approvalTtlMs?: number;
}

/** Boots the code agent service in-process, as `main.ts` does, on 127.0.0.1 and a free port. */
export async function bootCodeAgent({
  redis,
  keyPrefix,
  llm,
  sandbox: sandboxOptions = {},
  wrapSandbox = (sandbox) => sandbox,
  requireApproval = true,
  maxAttempts,
  approvalTtlMs,
}: BootCodeAgentOptions): Promise<RunningCodeAgent> {
  const taskStore = new RedisTaskStore({ redis, keyPrefix });
  // The card must name the real address, which is known once the server listens.
  const target: { app?: RequestListener } = {};
  const server = await startServer({
    app: (req, res) => target.app?.(req, res),
    port: 0,
    signals: [],
  });
  const sandbox = wrapSandbox(
    createSandbox({
      limits: { wallClockMs: 30_000, cpuSeconds: 2, memoryBytes: 256 * 1024 * 1024 },
      ...sandboxOptions,
    }),
  );
  const handler = createCodeHandler({
    writer: createCodeWriter({ llm }),
    sandbox,
    store: taskStore,
    url: server.url,
    requireApproval,
    ...(maxAttempts === undefined ? {} : { maxAttempts }),
    ...(approvalTtlMs === undefined ? {} : { approvalTtlMs }),
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
    taskStore,
    sandbox,
    client: new A2AClient({ card, token: TEST_TOKEN, timeoutMs: 60_000 }),
    async close() {
      await handler.close();
      await server.shutdown();
      await taskStore.close();
    },
  };
}

/** The parts of a plan node message: the task and the fleet node input. */
export function nodeParts(options: {
  task: string;
  dependencyOutputs?: Record<string, DependencyOutput>;
  sessionId?: string;
}): Part[] {
  return [
    textPart(options.task),
    dataPart({
      fleet: {
        sessionId: options.sessionId ?? 'session-1',
        nodeId: 'code',
        tenant: 'test',
        dependencyOutputs: options.dependencyOutputs ?? {},
      },
    }),
  ];
}

/** The parts of an approval continuation. */
export function decisionParts(decision: 'approve' | 'deny', instructions?: string): Part[] {
  return [
    dataPart({
      approvalDecision: { decision, ...(instructions === undefined ? {} : { instructions }) },
    }),
  ];
}
