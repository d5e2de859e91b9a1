import type { TaskState } from '../../../schemas/core';
import type { A2ALogger } from '../../handler-types';
import type { TaskRecord, TaskStore } from '../../task-store';
import { agentMessage, withStatus } from '../task-updates';
import { CAS_ATTEMPTS } from './turn';

/** How long a running turn's lease lives without renewal (renewed every third of it). */
export const DEFAULT_TURN_LEASE_MS = 10_000;

/** The status text of a task whose replica stopped in the middle of its turn. */
export const LOST_TURN_MESSAGE =
  'The agent replica that was running this task stopped before it finished, so the task ends here. ' +
  'Anything the agent had already done may have taken effect; send a new message to try again.';

/** States in which a turn is running somewhere (not waiting for a message, not over). */
const RUNNING_STATES: ReadonlySet<TaskState> = new Set<TaskState>([
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
]);

/** Whether a task's record says a turn runs it. */
export function isRunningState(state: TaskState): boolean {
  return RUNNING_STATES.has(state);
}

/**
 * Holds the lease of a turn that runs here: set at once, renewed every third of `leaseMs`,
 * released when the turn ends. Other replicas read it to tell a turn that runs somewhere from one
 * whose replica died. A store without leases (one process) holds nothing.
 */
export function holdTurnLease(
  store: TaskStore,
  taskId: string,
  { leaseMs, logger }: { leaseMs: number; logger: A2ALogger | undefined },
): { release(): void } {
  if (store.holdTurn === undefined) return { release: () => undefined };
  const hold = (): void => {
    store.holdTurn?.(taskId, leaseMs).catch((error: unknown) => {
      logger?.warn({ taskId, err: error }, 'cannot renew the turn lease');
    });
  };
  hold();
  const timer = setInterval(hold, Math.max(1, Math.floor(leaseMs / 3)));
  timer.unref();
  return {
    release() {
      clearInterval(timer);
      store.releaseTurn?.(taskId).catch(() => undefined);
    },
  };
}

/** Options for {@link failLostTurn}. */
export interface FailLostTurnOptions {
  store: TaskStore;
  /** Whether the turn runs on this replica (then it is not lost). */
  isRunningHere: (taskId: string) => boolean;
  leaseMs: number;
  now?: () => number;
}

/**
 * Ends a task whose turn is lost: its record says a turn runs it, none runs here, its lease has
 * lapsed and it has not changed for a whole lease. It is marked FAILED (compare-and-set, so a
 * live writer wins) and the status is published, so followers on every replica see the end.
 * Returns the new record, or undefined when the task is not lost (or the store has no leases).
 */
export async function failLostTurn(
  taskId: string,
  { store, isRunningHere, leaseMs, now = Date.now }: FailLostTurnOptions,
): Promise<TaskRecord | undefined> {
  if (store.turnHeld === undefined || isRunningHere(taskId)) return undefined;
  for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt += 1) {
    const current = await store.load(taskId);
    if (current === undefined || !isRunningState(current.task.status.state)) return undefined;
    // A turn that has just started may not hold its lease yet.
    const changedAt = Date.parse(current.task.status.timestamp ?? '');
    if (Number.isFinite(changedAt) && now() - changedAt < leaseMs) return undefined;
    if (await store.turnHeld(taskId)) return undefined;
    const task = withStatus(current.task, {
      state: 'TASK_STATE_FAILED',
      message: agentMessage(current.task, LOST_TURN_MESSAGE),
    });
    const version = current.version + 1;
    if (await store.save({ task, version }, { expectedVersion: current.version })) {
      await store.publish(taskId, {
        type: 'event',
        version,
        event: { statusUpdate: { taskId, contextId: task.contextId, status: task.status } },
      });
      return { task, version };
    }
  }
  return undefined;
}
