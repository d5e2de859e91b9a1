import type { WithSpanOptions } from '@fleet/telemetry';
import type { AgentCard } from '../schemas/agent-card';
import type { AgentExecute } from './agent';
import type { A2AHandler, A2ALogger } from './handler-types';
import type { TaskStore } from './task-store';
import { createA2AMethods } from './internal/handler/a2a-methods';
import { handleJsonRpc } from './internal/handler/handle-json-rpc';
import { createTaskTurns } from './internal/handler/task-turns';
import { DEFAULT_TURN_LEASE_MS, type LostTurnPolicy } from './internal/handler/turn-lease';

export type { LostTurnPolicy } from './internal/handler/turn-lease';
export type {
  A2AHandler,
  A2AHandlerResult,
  A2AJsonResult,
  A2ALogger,
  A2ARequestContext,
  A2AStreamResult,
  TurnObserver,
  TurnOutcome,
} from './handler-types';

/** Options for {@link createA2AHandler}. */
export interface CreateA2AHandlerOptions {
  /** The card served at the well-known paths. */
  card: AgentCard;
  /** The agent: one call per turn. */
  execute: AgentExecute;
  /** Where tasks live and how their events reach other replicas. */
  store: TaskStore;
  logger?: A2ALogger | undefined;
  /**
   * Cancel a turn when the streaming or blocking caller that started it goes away (its
   * `signal` aborts, the generator's `finally` runs). @default true
   */
  cancelOnDisconnect?: boolean | undefined;
  /**
   * How long `CancelTask` waits for the replica running the task to stop it before marking the
   * task canceled itself (that replica may be gone). @default 5000
   */
  cancelTimeoutMs?: number | undefined;
  /** The tracer for the agent spans. @default the global tracer */
  tracer?: WithSpanOptions['tracer'];
  /**
   * File parts (`raw`, base64) longer than this many characters are kept in the task's history
   * without their bytes. @default 65536
   */
  maxStoredPartBytes?: number | undefined;
  /**
   * A running turn holds a lease in a shared store, renewed every third of this. A task whose
   * record says WORKING, whose lease has lapsed and which has not changed for this long is taken
   * for a turn whose replica died: `GetTask` and `SubscribeToTask` on any replica end it FAILED
   * (saying so) instead of leaving it WORKING for ever. @default 10000
   */
  turnLeaseMs?: number | undefined;
  /**
   * What becomes of a task whose turn was lost (its replica died mid-turn). `fail`: `GetTask` and
   * `SubscribeToTask` end it FAILED, as above. `take-over`, for an agent whose work is durable (it
   * can carry any of its turns on from a store of its own): the task is never failed for it and
   * stays WORKING; a message to the task then starts a new turn of it on the replica that
   * receives it (the agent sees `isContinuation: true`), while a message to a task whose turn still
   * runs is refused with -32004. docs/a2a.md §3. @default 'fail'
   */
  lostTurns?: LostTurnPolicy | undefined;
}

/**
 * Creates the A2A v1.0 JSON-RPC server core: `SendMessage` (blocking until the task is terminal or
 * interrupted unless `configuration.returnImmediately`), `SendStreamingMessage`, `GetTask`,
 * `ListTasks`, `CancelTask` and `SubscribeToTask`, with the multi-turn rules of docs/a2a.md §3. The push
 * notification config methods answer -32003 and `GetExtendedAgentCard` -32004 (-32007 when the
 * card declares an extended card: this server has none to give).
 *
 * A message whose `messageId` is already in its task's history (a continuation re-sent after a
 * crash) does not run the agent again: `SendMessage` answers with the task as it stands,
 * `SendStreamingMessage` streams it and follows it like `SubscribeToTask` while it still runs.
 *
 * A turn runs on the replica that received its message; its events are saved and published
 * through the store, so `GetTask`, `SubscribeToTask` and `CancelTask` work on any replica, and a
 * continuation may run on another replica than the turn before it. Each turn runs in an AGENT
 * span (a child of the request's span).
 *
 * @example
 * const handler = createA2AHandler({ card, execute, store: new RedisTaskStore({ redis }), logger });
 * app.use(a2aRouter({ handler, internalToken: config.internalToken }));
 */
export function createA2AHandler({
  card,
  execute,
  store,
  logger,
  cancelOnDisconnect = true,
  cancelTimeoutMs = 5000,
  tracer,
  maxStoredPartBytes = 65_536,
  turnLeaseMs = DEFAULT_TURN_LEASE_MS,
  lostTurns = 'fail',
}: CreateA2AHandlerOptions): A2AHandler {
  const turns = createTaskTurns({ card, execute, store, logger, tracer, turnLeaseMs });
  const call = createA2AMethods({
    card,
    store,
    turns,
    logger,
    cancelOnDisconnect,
    cancelTimeoutMs,
    maxStoredPartBytes,
    turnLeaseMs,
    lostTurnPolicy: lostTurns,
  });
  return {
    card,
    handle: (body, context = {}) => handleJsonRpc(body, context, { call, logger }),
    close: () => turns.close(),
    observeTurns: (observer) => turns.observe(observer),
  };
}
