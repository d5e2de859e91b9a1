import { reportUsage } from '@fleet/agent-kit';
import {
  createA2AHandler,
  type A2AHandler,
  type A2ALogger,
  type TaskStore,
} from '@fleet/a2a/server';
import type { WithSpanOptions } from '@fleet/telemetry';
import type { McpToolbox } from '../mcp';
import type { ReasoningTool } from '../tools';
import { buildReasoningCard } from './reasoning-card';
import { createReasoningAgent, type ReasoningLlm } from './reasoning-agent';

/** Options for {@link createReasoningHandler}. */
export interface CreateReasoningHandlerOptions {
  llm: ReasoningLlm | undefined;
  tools: readonly ReasoningTool[];
  /** The MCP servers' tools (`createMcpToolbox`). @default none */
  mcpTools?: Pick<McpToolbox, 'tools' | 'servers'> | undefined;
  maxIterations: number;
  maxTokens: number;
  /** REASONING_MAX_ATTACHMENTS. @default 8 */
  maxAttachments?: number;
  /** REASONING_MAX_ATTACHMENT_BYTES. @default 8 MiB */
  maxAttachmentBytes?: number;
  /** Where tasks live: Redis in the service, so any replica answers GetTask (docs/architecture.md §4). */
  store: TaskStore;
  /** The service's base URL for the card. */
  url: string;
  /** Whether `/a2a` requires the internal token (declared on the card). @default true */
  internalToken?: boolean;
  logger?: A2ALogger | undefined;
  tracer?: WithSpanOptions['tracer'];
}

/**
 * The reasoning agent's A2A JSON-RPC handler: its card, its agent and its task store. Mount it
 * with `a2aRouter`; close it on shutdown so running turns stop.
 *
 * @example
 * const handler = createReasoningHandler({ llm, tools, maxIterations: 6, maxTokens: 16000, store, url });
 */
export function createReasoningHandler({
  llm,
  tools,
  mcpTools,
  maxIterations,
  maxTokens,
  maxAttachments,
  maxAttachmentBytes,
  store,
  url,
  internalToken = true,
  logger,
  tracer,
}: CreateReasoningHandlerOptions): A2AHandler {
  return createA2AHandler({
    card: buildReasoningCard({
      url,
      internalToken,
      tools: tools.map((tool) => tool.name),
      mcpServers: mcpTools?.servers ?? [],
    }),
    execute: reportUsage(
      createReasoningAgent({
        llm,
        tools,
        mcpTools,
        maxIterations,
        maxTokens,
        ...(maxAttachments === undefined ? {} : { maxAttachments }),
        ...(maxAttachmentBytes === undefined ? {} : { maxAttachmentBytes }),
        ...(tracer ? { tracer } : {}),
      }),
    ),
    store,
    logger,
    ...(tracer ? { tracer } : {}),
  });
}
