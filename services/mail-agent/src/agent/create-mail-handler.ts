import { reportUsage } from '@fleet/agent-kit';
import {
  createA2AHandler,
  type A2AHandler,
  type A2ALogger,
  type TaskStore,
} from '@fleet/a2a/server';
import type { AgentAvailability } from '@fleet/a2a';
import type { WithSpanOptions } from '@fleet/telemetry';
import { buildMailCard } from './mail-card';
import { createMailAgent, type CreateMailAgentOptions } from './mail-agent';

/** Options for {@link createMailHandler}: the agent's, plus where tasks live and the card's URL. */
export interface CreateMailHandlerOptions extends CreateMailAgentOptions {
  /** Where tasks live: Redis in the service, so any replica continues an approval (docs/architecture.md §4). */
  store: TaskStore;
  /** The service's base URL for the card. */
  url: string;
  /** Whether `/a2a` requires the internal token (declared on the card). @default true */
  internalToken?: boolean;
  a2aLogger?: A2ALogger | undefined;
  /** Declared on the card (`mailAvailability(account)`); absent: the card does not say. */
  availability?: AgentAvailability | undefined;
  tracer?: WithSpanOptions['tracer'];
}

/**
 * The mail agent's A2A JSON-RPC handler: its card, its agent and its task store. Mount it with
 * `a2aRouter`; close it on shutdown so running turns stop.
 *
 * @example
 * const handler = createMailHandler({ account, mailbox, sender, chooser, llm, store, url });
 */
export function createMailHandler({
  store,
  url,
  internalToken = true,
  a2aLogger,
  availability,
  tracer,
  ...agent
}: CreateMailHandlerOptions): A2AHandler {
  return createA2AHandler({
    card: buildMailCard({ url, internalToken, availability }),
    execute: reportUsage(createMailAgent(agent)),
    store,
    logger: a2aLogger,
    ...(tracer ? { tracer } : {}),
  });
}
