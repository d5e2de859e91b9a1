import { TaskNotFoundError, UnsupportedOperationError } from '../../../errors/a2a-errors';
import type { StreamResponse } from '../../../schemas/core';
import { isInterruptedState, isTerminalState } from '../../../schemas/helpers';
import type { TaskBusMessage, TaskStore } from '../../task-store';
import { AsyncQueue } from '../async-queue';
import { withHistoryLength } from '../task-updates';
import { failLostTurn, isRunningState, type FailLostTurnOptions } from './turn-lease';

/** Whether a stream event ends a turn (a terminal or interrupted status). */
function isStatusEnd(event: StreamResponse): boolean {
  if (!('statusUpdate' in event)) return false;
  const { state } = event.statusUpdate.status;
  return isTerminalState(state) || isInterruptedState(state);
}

/** Options for {@link followTask}. */
export interface FollowTaskOptions {
  store: TaskStore;
  /** Aborted when the caller goes away. */
  signal: AbortSignal | undefined;
  /** A terminal task: refused with -32004 (`SubscribeToTask`) or streamed as its snapshot alone. */
  onTerminal: 'refuse' | 'snapshot';
  historyLength?: number | undefined;
  /** Ends a task whose turn was lost (its replica died) instead of following it for ever. */
  lostTurns?: FailLostTurnOptions | undefined;
}

/**
 * Streams a task's snapshot, then, unless it is interrupted (its turn is over) or terminal, its
 * events until one ends the turn. A terminal task is refused with -32004 (`onTerminal:
 * 'refuse'`, `SubscribeToTask`) or streamed as its snapshot alone (`'snapshot'`).
 */
export async function* followTask(
  id: string,
  { store, signal, onTerminal, historyLength, lostTurns }: FollowTaskOptions,
): AsyncGenerator<StreamResponse, void, undefined> {
  let lostCheck: NodeJS.Timeout | undefined;
  const queue = new AsyncQueue<TaskBusMessage>();
  const onAbort = (): void => void queue.return();
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted === true) onAbort();
  // Subscribe before reading the snapshot, so no event falls between the two.
  const unsubscribe = await store.subscribe(id, (busMessage) => {
    if (busMessage.type === 'event') queue.push(busMessage);
  });
  try {
    const record = await store.load(id);
    if (record === undefined) throw new TaskNotFoundError(`Task ${id} was not found.`);
    if (lostTurns !== undefined && isRunningState(record.task.status.state)) {
      const failed = await failLostTurn(id, lostTurns);
      if (failed !== undefined) {
        // Ended just now because its replica is gone: the follower is told so, not refused.
        yield { task: withHistoryLength(failed.task, historyLength) };
        return;
      }
      // Looked at again while followed: the replica running it may die meanwhile. Ending it
      // publishes its FAILED status, which ends this stream like any other end.
      lostCheck = setInterval(
        () => void failLostTurn(id, lostTurns).catch(() => undefined),
        Math.max(1, Math.floor(lostTurns.leaseMs / 2)),
      );
      lostCheck.unref();
    }
    const { state } = record.task.status;
    if (isTerminalState(state) && onTerminal === 'refuse') {
      throw new UnsupportedOperationError(
        `Task ${id} is ${state}: there is nothing to subscribe to.`,
      );
    }
    yield { task: withHistoryLength(record.task, historyLength) };
    // An interrupted task runs nowhere until a message continues it: the turn is over.
    if (isTerminalState(state) || isInterruptedState(state)) return;
    for await (const busMessage of queue) {
      if (busMessage.type !== 'event' || busMessage.version <= record.version) continue;
      yield busMessage.event;
      if (isStatusEnd(busMessage.event)) return;
    }
  } finally {
    clearInterval(lostCheck);
    signal?.removeEventListener('abort', onAbort);
    await queue.return();
    await unsubscribe();
  }
}
