import { reportUsage } from '@fleet/agent-kit';
import {
  createA2AHandler,
  type A2AHandler,
  type A2ALogger,
  type TaskStore,
} from '@fleet/a2a/server';
import type { WithSpanOptions } from '@fleet/telemetry';
import type { Planner } from '../planning';
import { buildPlannerCard } from './planner-card';
import { createPlannerAgent } from './planner-agent';

/** Options for {@link createPlannerHandler}. */
export interface CreatePlannerHandlerOptions {
  planner: Planner;
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
 * The planner's A2A JSON-RPC handler: its card, its agent and its task store. Mount it with
 * `a2aRouter`; close it on shutdown so running turns stop.
 *
 * @example
 * const handler = createPlannerHandler({ planner, store: new RedisTaskStore({ redis }), url });
 */
export function createPlannerHandler({
  planner,
  store,
  url,
  internalToken = true,
  logger,
  tracer,
}: CreatePlannerHandlerOptions): A2AHandler {
  return createA2AHandler({
    card: buildPlannerCard({ url, internalToken }),
    execute: reportUsage(createPlannerAgent({ planner })),
    store,
    logger,
    ...(tracer ? { tracer } : {}),
  });
}
