import type { Redis } from 'ioredis';
import { bootAgent, type BootedAgent } from '@fleet/agent-kit/testing';
import type { WithSpanOptions } from '@fleet/telemetry';
import { attachmentBodyLimit, createReasoningHandler, type ReasoningLlm } from '../agent';
import { DEFAULT_MAX_ATTACHMENT_BYTES } from '../reasoning';
import type { McpToolbox } from '../mcp';
import { createReasoningTools } from '../tools';

/** The token test agents require. */
export const TEST_TOKEN = 'reasoning-agent-test-token-0123';

/** A reasoning agent listening on a free port, with a client that carries the token. */
export type RunningReasoningAgent = BootedAgent;

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
  /** MCP tools (`createMcpToolbox`); the caller closes them. @default none */
  mcpTools?: McpToolbox;
  /** REASONING_MAX_ATTACHMENTS. @default 8 */
  maxAttachments?: number;
  /** REASONING_MAX_ATTACHMENT_BYTES (the body limit follows). @default 8 MiB */
  maxAttachmentBytes?: number;
  tracer?: WithSpanOptions['tracer'];
}

/** Boots the reasoning agent service in-process, as `main.ts` does, on 127.0.0.1 and a free port. */
export function bootReasoningAgent({
  redis,
  keyPrefix,
  llm,
  maxIterations = 6,
  maxTokens = 16_000,
  now,
  mcpTools,
  maxAttachments,
  maxAttachmentBytes = DEFAULT_MAX_ATTACHMENT_BYTES,
  tracer,
}: BootReasoningAgentOptions): Promise<RunningReasoningAgent> {
  return bootAgent({
    serviceName: 'reasoning-agent',
    redis,
    keyPrefix,
    token: TEST_TOKEN,
    bodyLimit: attachmentBodyLimit(maxAttachmentBytes),
    createHandler: ({ store, url }) =>
      createReasoningHandler({
        llm,
        tools: createReasoningTools(now === undefined ? {} : { now }),
        mcpTools,
        maxIterations,
        maxTokens,
        ...(maxAttachments === undefined ? {} : { maxAttachments }),
        maxAttachmentBytes,
        store,
        url,
        tracer,
      }),
  });
}
