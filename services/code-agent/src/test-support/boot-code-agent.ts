import type { Redis } from 'ioredis';
import type OpenAI from 'openai';
import { dataPart, type DependencyOutput, type Part } from '@fleet/a2a';
import { bootAgent, nodeParts as agentNodeParts, type BootedAgent } from '@fleet/agent-kit/testing';
import type { A2AHandler } from '@fleet/a2a/server';
import { createCodeHandler } from '../agent';
import { createCodeWriter } from '../authoring';
import type { DataFileLimits } from '../data-files';
import { createSandbox, type CreateSandboxOptions, type Sandbox } from '../sandbox';

/** The token test agents require. */
export const TEST_TOKEN = 'code-agent-test-token-0123456789';

/** A code agent listening on a free port, with a client that carries the token. */
export interface RunningCodeAgent extends Omit<BootedAgent<A2AHandler>, 'url'> {
  sandbox: Sandbox;
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
  dataLimits?: DataFileLimits;
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
  dataLimits,
}: BootCodeAgentOptions): Promise<RunningCodeAgent> {
  const sandbox = wrapSandbox(
    createSandbox({
      limits: { wallClockMs: 30_000, cpuSeconds: 2, memoryBytes: 256 * 1024 * 1024 },
      ...sandboxOptions,
    }),
  );
  const agent = await bootAgent({
    serviceName: 'code-agent',
    redis,
    keyPrefix,
    token: TEST_TOKEN,
    // Runs in the sandbox, with a fix and a second approval, can take a while.
    clientTimeoutMs: 60_000,
    createHandler: ({ store, url }) =>
      createCodeHandler({
        writer: createCodeWriter({ llm }),
        sandbox,
        store,
        url,
        requireApproval,
        ...(maxAttempts === undefined ? {} : { maxAttempts }),
        ...(approvalTtlMs === undefined ? {} : { approvalTtlMs }),
        ...(dataLimits === undefined ? {} : { dataLimits }),
      }),
  });
  return {
    server: agent.server,
    handler: agent.handler,
    taskStore: agent.taskStore,
    sandbox,
    client: agent.client,
    close: () => agent.close(),
  };
}

/** The parts of a plan node message: the task and the fleet node input. */
export function nodeParts(options: {
  task: string;
  dependencyOutputs?: Record<string, DependencyOutput>;
  sessionId?: string;
}): Part[] {
  return agentNodeParts({
    text: options.task,
    nodeId: 'code',
    tenant: 'test',
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    ...(options.dependencyOutputs === undefined
      ? {}
      : { dependencyOutputs: options.dependencyOutputs }),
  });
}

/** The parts of an approval continuation. */
export function decisionParts(decision: 'approve' | 'deny', instructions?: string): Part[] {
  return [
    dataPart({
      approvalDecision: { decision, ...(instructions === undefined ? {} : { instructions }) },
    }),
  ];
}
