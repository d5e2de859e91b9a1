import {
  Attributes,
  recordError,
  setSpanOutput,
  SpanKind,
  withSpan,
  type WithSpanOptions,
} from '@fleet/telemetry';
import type { AgentCard } from '../../../schemas/agent-card';
import type { Message, StreamResponse } from '../../../schemas/core';
import { isTerminalState, partsText } from '../../../schemas/helpers';
import type { AgentContext, AgentExecute } from '../../agent';
import type { A2ALogger, TurnObserver } from '../../handler-types';
import type { TaskBusMessage, TaskRecord, TaskStore, Unsubscribe } from '../../task-store';
import { AsyncQueue } from '../async-queue';
import { applyEvent, driveAgent, errorText } from './drive-agent';
import { logFailure } from './log-failure';
import { holdTurnLease } from './turn-lease';
import { abortTurn, type Turn } from './turn';

/** Options for {@link createTaskTurns}. */
export interface TaskTurnsOptions {
  card: AgentCard;
  execute: AgentExecute;
  store: TaskStore;
  logger: A2ALogger | undefined;
  tracer: WithSpanOptions['tracer'];
  /** How long a turn's lease lives without renewal (see turn-lease.ts). */
  turnLeaseMs: number;
}

/** How a turn starts: its message, and whether a caller streams its events. */
export interface StartTurnOptions {
  message: Message;
  isContinuation: boolean;
  streaming: boolean;
}

/** The turns running on this replica. */
export interface TaskTurns {
  /** Starts a turn of the task in `record` (already saved with its message). */
  start(record: TaskRecord, options: StartTurnOptions): Turn;
  /** The turn of a task running here, if any. */
  get(taskId: string): Turn | undefined;
  /** Stops every turn running here (their tasks fail: the agent shut down) and waits for them. */
  close(): Promise<void>;
  /** Tells `observer` about every turn started from now on; returns its removal. */
  observe(observer: TurnObserver): () => void;
}

/** What the turns of one handler share. */
interface TurnRunner extends TaskTurnsOptions {
  readonly running: Map<string, Turn>;
  readonly observers: Set<TurnObserver>;
  /**
   * The handler's one listener for cancel requests from other replicas, when the store has a
   * channel for them (`listenForCancels`): started with the first turn, kept while turns run.
   */
  cancels: Promise<Unsubscribe | undefined> | undefined;
}

/**
 * Listens for the cancel requests of this turn's task: through the handler's one listener on the
 * store's cancel channel when there is one (set up once, by the first turn), else by subscribing
 * to the task's own channel. Resolves to what stops the turn's own subscription, if it has one.
 */
function listenForCancel(runner: TurnRunner, turn: Turn): Promise<Unsubscribe | undefined> {
  const { store, logger, running } = runner;
  const { taskId } = turn;
  if (store.listenForCancels !== undefined) {
    runner.cancels ??= store
      .listenForCancels((id) => {
        const target = running.get(id);
        if (target !== undefined) abortTurn(target, 'cancel');
      })
      .catch((error: unknown) => {
        logger?.warn({ err: error }, 'cannot listen for cancel requests');
        runner.cancels = undefined;
        return undefined;
      });
    return Promise.resolve(undefined);
  }
  return store
    .subscribe(taskId, (busMessage: TaskBusMessage) => {
      if (busMessage.type === 'cancel') abortTurn(turn, 'cancel');
    })
    .catch((error: unknown) => {
      logger?.warn({ taskId, err: error }, 'cannot listen for cancel requests');
      return undefined;
    });
}

/** Calls every observer; one that throws is logged, never allowed to break a turn. */
function notify(
  observers: readonly TurnObserver[],
  logger: A2ALogger | undefined,
  call: (observer: TurnObserver) => void,
): void {
  for (const observer of observers) {
    try {
      call(observer);
    } catch (error) {
      logger?.warn({ err: error }, 'a turn observer failed');
    }
  }
}

/** Runs the agent in its AGENT span (a child of the request's span). */
async function runInSpan(
  { card, execute, store, logger, tracer }: TurnRunner,
  turn: Turn,
  context: AgentContext,
): Promise<void> {
  const { message, isContinuation } = context;
  await withSpan(
    {
      name: card.name,
      kind: SpanKind.AGENT,
      input: partsText(message.parts) || message.parts,
      attributes: {
        [Attributes.AGENT_NAME]: card.name,
        'a2a.task_id': context.taskId,
        'a2a.context_id': context.contextId,
        'a2a.continuation': isContinuation,
      },
      tracer,
    },
    async (span) => {
      try {
        const { agentError } = await driveAgent(turn, context, { execute, store });
        if (agentError !== undefined) {
          recordError(span, agentError);
          logger?.warn({ taskId: context.taskId, err: agentError }, 'the agent failed');
        }
      } finally {
        const { status } = turn.record.task;
        setSpanOutput(
          span,
          status.message ? partsText(status.message.parts) || status.state : status.state,
        );
        span.setAttribute('a2a.task_state', status.state);
      }
    },
  );
}

/** The whole life of a turn: cancel listener, agent, failure handling, clean-up. */
async function runTurn(runner: TurnRunner, turn: Turn, context: AgentContext): Promise<void> {
  const { store, logger, running } = runner;
  const { taskId } = turn;
  const startedAt = performance.now();
  const lease = holdTurnLease(store, taskId, { leaseMs: runner.turnLeaseMs, logger });
  // The observers that saw the start see the end, whatever is added or removed meanwhile.
  const observers = [...runner.observers];
  notify(observers, logger, (observer) => observer.started());
  // Cancel requests from other replicas arrive on the store's cancel channel (or the task's). The
  // agent starts while the SUBSCRIBE is on its way: a request published before the SUBSCRIBE took
  // effect went unheard when the agent waited for it too, so no request is heard later or missed
  // more than before.
  const subscribing = listenForCancel(runner, turn);
  try {
    await runInSpan(runner, turn, context);
  } catch (error) {
    turn.failure = error instanceof Error ? error : new Error(String(error));
    logFailure(logger, error, { taskId });
    if (!isTerminalState(turn.record.task.status.state)) {
      // The store failed mid-turn: record the failure if it is reachable again.
      await applyEvent(store, turn, {
        type: 'status',
        state: 'TASK_STATE_FAILED',
        message: errorText(error),
      }).catch(() => undefined);
    }
  } finally {
    running.delete(taskId);
    lease.release();
    const outcome = {
      state: turn.record.task.status.state,
      seconds: (performance.now() - startedAt) / 1000,
    };
    notify(observers, logger, (observer) => observer.ended(outcome));
    // The caller's stream ends at once; the UNSUBSCRIBE round trip is not in its way.
    if (turn.failure !== undefined) {
      turn.queue?.fail(turn.failure);
    } else {
      turn.queue?.end();
    }
    const unsubscribe = await subscribing;
    await unsubscribe?.().catch(() => undefined);
  }
}

/** Starts a turn on this replica. */
function startTurn(
  runner: TurnRunner,
  record: TaskRecord,
  { message, isContinuation, streaming }: StartTurnOptions,
): Turn {
  const { task } = record;
  const turn: Turn = {
    taskId: task.id,
    controller: new AbortController(),
    abortCause: undefined,
    record,
    queue: streaming ? new AsyncQueue<StreamResponse>() : undefined,
    failure: undefined,
    done: Promise.resolve(),
  };
  runner.running.set(task.id, turn);
  const context: AgentContext = {
    taskId: task.id,
    contextId: task.contextId,
    message: structuredClone(message),
    task: structuredClone(task),
    isContinuation,
    signal: turn.controller.signal,
    claimOnce: (key) => runner.store.claim(task.id, key),
  };
  turn.done = runTurn(runner, turn, context);
  return turn;
}

/**
 * Keeps the turns running on this replica: each runs the agent in an AGENT span, saves and
 * publishes its events through the store, and listens on the task's channel for cancel requests
 * from other replicas.
 */
export function createTaskTurns(options: TaskTurnsOptions): TaskTurns {
  const runner: TurnRunner = {
    ...options,
    running: new Map(),
    observers: new Set(),
    cancels: undefined,
  };
  return {
    start: (record, startOptions) => startTurn(runner, record, startOptions),
    get: (taskId) => runner.running.get(taskId),
    async close() {
      const turns = [...runner.running.values()];
      for (const turn of turns) abortTurn(turn, 'shutdown');
      await Promise.all(turns.map((turn) => turn.done));
      const cancels = runner.cancels;
      runner.cancels = undefined;
      await (await cancels)?.().catch(() => undefined);
    },
    observe(observer) {
      runner.observers.add(observer);
      return () => runner.observers.delete(observer);
    },
  };
}
