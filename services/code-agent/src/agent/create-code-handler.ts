import type { AgentAvailability } from '@fleet/a2a';
import { reportUsage } from '@fleet/agent-kit';
import {
  createA2AHandler,
  type A2AHandler,
  type A2ALogger,
  type TaskStore,
} from '@fleet/a2a/server';
import type { WithSpanOptions } from '@fleet/telemetry';
import type { CodeWriter } from '../authoring';
import type { DataFileLimits } from '../data-files';
import type { Sandbox } from '../sandbox';
import { buildCodeCard } from './code-card';
import { createCodeAgent } from './code-agent';

/** Options for {@link createCodeHandler}. */
export interface CreateCodeHandlerOptions {
  writer: CodeWriter;
  sandbox: Sandbox;
  /** Where tasks live: Redis in the service, so any replica takes the continuation. */
  store: TaskStore;
  /** The service's base URL for the card. */
  url: string;
  /** Whether `/a2a` requires the internal token (declared on the card). @default true */
  internalToken?: boolean;
  /** @default true */
  requireApproval?: boolean;
  /** @default 2 */
  maxAttempts?: number;
  /** @default 600000 */
  approvalTtlMs?: number;
  /** Files and bytes a task may bring for `/data`. @default DEFAULT_DATA_FILE_LIMITS */
  dataLimits?: DataFileLimits;
  logger?: A2ALogger | undefined;
  tracer?: WithSpanOptions['tracer'];
  /** Whether the agent can work now, stated on its card. */
  availability?: AgentAvailability | undefined;
}

/**
 * The code agent's A2A JSON-RPC handler: its card, its agent and its task store. Mount it with
 * `a2aRouter`; close it on shutdown so running turns stop (and their sandboxes are killed).
 *
 * @example
 * const handler = createCodeHandler({ writer, sandbox, store: new RedisTaskStore({ redis }), url });
 */
export function createCodeHandler({
  writer,
  sandbox,
  store,
  url,
  internalToken = true,
  requireApproval = true,
  maxAttempts,
  approvalTtlMs,
  dataLimits,
  logger,
  tracer,
  availability,
}: CreateCodeHandlerOptions): A2AHandler {
  return createA2AHandler({
    card: buildCodeCard({ url, internalToken, requiresApproval: requireApproval, availability }),
    execute: reportUsage(
      createCodeAgent({
        writer,
        sandbox,
        requireApproval,
        ...(maxAttempts === undefined ? {} : { maxAttempts }),
        ...(approvalTtlMs === undefined ? {} : { approvalTtlMs }),
        ...(dataLimits === undefined ? {} : { dataLimits }),
        ...(tracer ? { tracer } : {}),
      }),
    ),
    store,
    logger,
    ...(tracer ? { tracer } : {}),
  });
}
