import { TaskNotCancelableError, TaskNotFoundError } from '../../../errors/a2a-errors';
import type { Task, TaskState } from '../../../schemas/core';
import { isInterruptedState, isTerminalState } from '../../../schemas/helpers';
import type { TaskStore } from '../../task-store';
import { agentMessage, withStatus } from '../task-updates';
import type { TaskTurns } from './task-turns';
import { ABORT_STATUS, abortTurn, CAS_ATTEMPTS } from './turn';

/** Options for {@link cancelTask}. */
export interface CancelTaskOptions {
  store: TaskStore;
  turns: TaskTurns;
  /** How long to wait for the replica running the task to stop it. */
  cancelTimeoutMs: number;
}

function notCancelable(id: string, state: TaskState): TaskNotCancelableError {
  return new TaskNotCancelableError(`Task ${id} is ${state} and cannot be canceled.`);
}

/** Waits for a terminal event of a task running elsewhere; false after `cancelTimeoutMs`. */
async function requestRemoteCancel(
  taskId: string,
  { store, cancelTimeoutMs }: CancelTaskOptions,
): Promise<boolean> {
  let settle: (stopped: boolean) => void = () => undefined;
  const stopped = new Promise<boolean>((resolve) => {
    settle = resolve;
  });
  const unsubscribe = await store.subscribe(taskId, (busMessage) => {
    if (busMessage.type !== 'event' || !('statusUpdate' in busMessage.event)) return;
    if (isTerminalState(busMessage.event.statusUpdate.status.state)) settle(true);
  });
  const timer = setTimeout(() => settle(false), cancelTimeoutMs);
  try {
    await store.publish(taskId, { type: 'cancel' });
    const current = await store.load(taskId);
    if (current && isTerminalState(current.task.status.state)) return true;
    return await stopped;
  } finally {
    clearTimeout(timer);
    await unsubscribe();
  }
}

/** Marks a task that nothing runs CANCELED here (compare-and-set) and publishes the status. */
async function cancelHere(id: string, store: TaskStore): Promise<Task> {
  for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt += 1) {
    const current = await store.load(id);
    if (current === undefined) throw new TaskNotFoundError(`Task ${id} was not found.`);
    const { state } = current.task.status;
    if (isTerminalState(state)) {
      if (state === 'TASK_STATE_CANCELED') return current.task;
      throw notCancelable(id, state);
    }
    const task = withStatus(current.task, {
      state: 'TASK_STATE_CANCELED',
      message: agentMessage(current.task, ABORT_STATUS.cancel.message),
    });
    const version = current.version + 1;
    if (await store.save({ task, version }, { expectedVersion: current.version })) {
      await store.publish(id, {
        type: 'event',
        version,
        event: { statusUpdate: { taskId: id, contextId: task.contextId, status: task.status } },
      });
      return task;
    }
  }
  throw new TaskNotCancelableError(`Task ${id} changed while it was being canceled.`);
}

/**
 * `CancelTask`: stops the task's turn where it runs (here, or on another replica through the
 * store), or, when nothing runs it (interrupted, or its replica is gone), cancels it here.
 * Canceling twice answers the canceled task, as the SDK does.
 */
export async function cancelTask(id: string, options: CancelTaskOptions): Promise<Task> {
  const { store, turns } = options;
  let record = await store.load(id);
  if (record === undefined) throw new TaskNotFoundError(`Task ${id} was not found.`);
  if (record.task.status.state === 'TASK_STATE_CANCELED') return record.task;
  if (isTerminalState(record.task.status.state)) throw notCancelable(id, record.task.status.state);
  const local = turns.get(id);
  if (local) {
    abortTurn(local, 'cancel');
    await local.done;
    return local.record.task;
  }
  if (!isInterruptedState(record.task.status.state) && (await requestRemoteCancel(id, options))) {
    record = await store.load(id);
    if (record) return record.task;
  }
  return cancelHere(id, store);
}
