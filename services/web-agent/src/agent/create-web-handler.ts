import { reportUsage } from '@fleet/agent-kit';
import {
  createA2AHandler,
  type A2AHandler,
  type A2ALogger,
  type TaskStore,
} from '@fleet/a2a/server';
import type { AgentAvailability } from '@fleet/a2a';
import type { WithSpanOptions } from '@fleet/telemetry';
import type { Researcher } from '../research';
import { buildWebCard } from './web-card';
import { createWebAgent } from './web-agent';

/** Options for {@link createWebHandler}. */
export interface CreateWebHandlerOptions {
  researcher: Researcher;
  /** Where tasks live: Redis in the service, so any replica answers GetTask (docs/architecture.md §4). */
  store: TaskStore;
  /** The service's base URL for the card. */
  url: string;
  /** Whether `/a2a` requires the internal token (declared on the card). @default true */
  internalToken?: boolean;
  logger?: A2ALogger | undefined;
  /** Declared on the card (`webAvailability(settings)`); absent: the card does not say. */
  availability?: AgentAvailability | undefined;
  tracer?: WithSpanOptions['tracer'];
}

/**
 * The web agent's A2A JSON-RPC handler: its card, its agent and its task store. Mount it with
 * `a2aRouter`; close it on shutdown so running turns stop.
 *
 * @example
 * const handler = createWebHandler({ researcher, store: new RedisTaskStore({ redis }), url });
 */
export function createWebHandler({
  researcher,
  store,
  url,
  internalToken = true,
  logger,
  availability,
  tracer,
}: CreateWebHandlerOptions): A2AHandler {
  return createA2AHandler({
    card: buildWebCard({ url, internalToken, availability }),
    execute: reportUsage(createWebAgent({ researcher })),
    store,
    logger,
    ...(tracer ? { tracer } : {}),
  });
}
