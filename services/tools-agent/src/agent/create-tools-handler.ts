import type { AgentAvailability, AgentCard } from '@fleet/a2a';
import { reportUsage } from '@fleet/agent-kit';
import {
  createA2AHandler,
  type A2AHandler,
  type A2ALogger,
  type TaskStore,
} from '@fleet/a2a/server';
import type { WithSpanOptions } from '@fleet/telemetry';
import type { ToolCatalog } from '../servers';
import { createToolsAgent, type CreateToolsAgentOptions } from './tools-agent';
import { buildToolsCard } from './tools-card';

/** Options for {@link createToolsHandler}. */
export interface CreateToolsHandlerOptions extends Omit<CreateToolsAgentOptions, 'catalog'> {
  catalog: Pick<ToolCatalog, 'tools' | 'find' | 'connection' | 'servers' | 'onChange'>;
  /** Where tasks live: Redis in the service, so any replica takes the continuation. */
  store: TaskStore;
  /** The service's base URL for the card. */
  url: string;
  /** Whether `/a2a` requires the internal token (declared on the card). @default true */
  internalToken?: boolean;
  logger?: A2ALogger | undefined;
  tracer?: WithSpanOptions['tracer'];
  /** Whether the agent can work now, stated on its card. */
  availability?: AgentAvailability | undefined;
}

/**
 * The tools agent's A2A JSON-RPC handler. Its `card` is a getter over the catalog: rebuilt when a
 * server changes its tools (`notifications/tools/list_changed`), so the card served at the
 * well-known paths always lists the tools offered now (the A2A router reads `handler.card` on
 * every request). Close it on shutdown so running turns stop; the catalog is closed by its owner.
 *
 * @example
 * const handler = createToolsHandler({ catalog, llm: model.llm, store, url });
 */
export function createToolsHandler({
  catalog,
  store,
  url,
  internalToken = true,
  logger,
  tracer,
  availability,
  ...agentOptions
}: CreateToolsHandlerOptions): A2AHandler {
  const build = (): AgentCard =>
    buildToolsCard({ url, servers: catalog.servers(), internalToken, availability });
  let card = build();
  const stopWatching = catalog.onChange(() => {
    card = build();
  });
  const handler = createA2AHandler({
    card,
    execute: reportUsage(
      createToolsAgent({ catalog, ...agentOptions, ...(tracer ? { tracer } : {}) }),
    ),
    store,
    logger,
    ...(tracer ? { tracer } : {}),
  });
  return {
    get card() {
      return card;
    },
    handle: (body, context) => handler.handle(body, context),
    async close() {
      stopWatching();
      await handler.close();
    },
    ...(handler.observeTurns === undefined
      ? {}
      : { observeTurns: handler.observeTurns.bind(handler) }),
  };
}
